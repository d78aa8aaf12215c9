/* Kernel-like definitions for the stackleak differential corpus. */
#ifndef CORPUS_KERNEL_H
#define CORPUS_KERNEL_H
#include <stddef.h>

register unsigned long current_stack_pointer __asm__("rsp");

#define __init __attribute__((section(".init.text"), cold))
#define __meminit __attribute__((section(".meminit.text")))
#define noinstr __attribute__((__noinline__, section(".noinstr.text")))
#define __head __attribute__((section(".head.text")))
#define __always_inline inline __attribute__((always_inline))
#define noinline __attribute__((noinline))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

struct list_head { struct list_head *next, *prev; };

extern void consume(const void *p, size_t n);
extern long produce(long x);
extern int copy_from_user(void *to, const void *from, unsigned long n);
extern int copy_to_user(void *to, const void *from, unsigned long n);
extern void *kmalloc(size_t n, int flags);
extern void kfree(void *p);
extern int printk(const char *fmt, ...);
#define memset __builtin_memset
#define memcpy __builtin_memcpy
#define memcmp __builtin_memcmp
#endif
