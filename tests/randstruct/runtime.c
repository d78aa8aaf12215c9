// Code over randomized structs still works: container_of, designated
// initialisers (global and local), struct copy, bitfield read/write, a
// flexible array initialised from a string, and the layout really moved.
// RUN: %clang $(%flags --randstruct=full --seed-file=%root/gcc-plugins/test.seed) -O0 %s -o %t.full && %t.full | FileCheck %s
// RUN: %clang $(%flags --randstruct=performance --seed-file=%S/Inputs/seed-b) -O2 %s -o %t.perf && %t.perf | FileCheck %s
// RUN: %clang $(%flags --randstruct=full --seed-file=%root/gcc-plugins/test.seed) -O2 %s -o %t.o2 && %t.o2 | FileCheck %s
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define __randomize_layout __attribute__((randomize_layout))
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

struct node { struct node *next; int key; };
struct item {
	long id;
	char name[12];
	struct node link;
	unsigned flag:1, level:3, small:4;
	short s;
	int value;
	unsigned wide:20;
	void *p;
} __randomize_layout;
struct msg { int len; short kind; long seq; char text[]; } __randomize_layout;

static struct item global = { .id = 7, .name = "global", .value = -3, .flag = 1,
			      .level = 5, .small = 9, .s = -2, .wide = 0xabcde };
static struct msg hello = { .len = 5, .kind = 2, .seq = 99, .text = "hello" };

int main(void)
{
	struct item local = { .value = 42, .id = 1, .name = "local", .level = 3 };
	struct item copy;
	struct node *n = &local.link;
	int declared_order = offsetof(struct item, id) < offsetof(struct item, name) &&
			     offsetof(struct item, name) < offsetof(struct item, link) &&
			     offsetof(struct item, link) < offsetof(struct item, s) &&
			     offsetof(struct item, s) < offsetof(struct item, value) &&
			     offsetof(struct item, value) < offsetof(struct item, p);

	printf("reordered %d\n", !declared_order);
	// CHECK: reordered 1
	printf("container_of %d\n", container_of(n, struct item, link) == &local);
	// CHECK: container_of 1
	printf("global %ld %s %d %u %u %u %d %x\n", global.id, global.name, global.value,
	       global.flag, global.level, global.small, global.s, global.wide);
	// CHECK: global 7 global -3 1 5 9 -2 abcde
	printf("local %ld %s %d %u %u %p\n", local.id, local.name, local.value, local.level,
	       local.flag, local.p);
	// CHECK: local 1 local 42 3 0 (nil)
	local.flag = 1;
	local.level = 6;
	local.small = 15;
	local.wide = 0xfffff;
	local.level += 1;
	copy = local;
	memset(&local, 0, sizeof(local));
	printf("copy %ld %s %d %u %u %u %x\n", copy.id, copy.name, copy.value, copy.flag,
	       copy.level, copy.small, copy.wide);
	// CHECK: copy 1 local 42 1 7 15 fffff
	printf("flex %d %d %ld %s %zu\n", hello.len, hello.kind, hello.seq, hello.text,
	       offsetof(struct msg, text) == sizeof(struct msg) ||
	       offsetof(struct msg, text) + 0 >= offsetof(struct msg, seq));
	// CHECK: flex 5 2 99 hello 1
	return 0;
}
