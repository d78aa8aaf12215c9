/* erase-loops.h: the user-space stack-erase models of erase-loops.c. */
#ifndef PASSPORT_ERASE_LOOPS_H
#define PASSPORT_ERASE_LOOPS_H
#include <stddef.h>
#include <stdint.h>

/* The x86-64 kernel's poison word and how many of them in a row end the
 * search for the used region (128 bytes). */
#define ERASE_POISON 0xffffffffffff4a2aULL
#define ERASE_SEARCH_WORDS 16

/* Erase [boundary, high) where boundary is found below lowest; returns the
 * bytes written. */
size_t erase_words(uint64_t *low, uint64_t *lowest, uint64_t *high);
size_t erase_unrolled(uint64_t *low, uint64_t *lowest, uint64_t *high);
size_t erase_stosq(uint64_t *low, uint64_t *lowest, uint64_t *high);
void memset_stosb(void *dst, int c, size_t n);

/* One run of comparison variant V over [lowest, high) (the memsets) or the
 * erase below it (the models), as both benchmarks time them. */
enum { ERASE_GLIBC_MEMSET, ERASE_MEMSET_STOSB, ERASE_WORDS, ERASE_STOSQ, ERASE_UNROLLED };
void erase_variant(int v, uint64_t *low, uint64_t *lowest, uint64_t *high);

#endif
