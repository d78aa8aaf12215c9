// SPDX-License-Identifier: GPL-2.0
/*
 * stackinit.c - user-space model of the kernel's lib/stackinit_kunit.c
 * method, for structleak: a noinline leaf is called twice with the same
 * stack; the first call fills its variable with 0xFF, the second leaves it
 * uninitialised (or initialised as the case says) and copies it out.  Bytes
 * still 0xFF are uninitialised.  Build with -DMODE_NONE, -DMODE_USER,
 * -DMODE_BYREF or -DMODE_BYREF_ALL for the kernel's expectation table:
 *
 *              USER_PASS  BYREF_PASS  STRONG_PASS
 *   none       xfail      xfail       xfail
 *   user       pass       xfail       xfail
 *   byref      pass       pass        xfail
 *   byref-all  pass       pass        pass
 *
 * A must-pass case with leftover bytes prints `not ok`; an xfail case with
 * leftover bytes prints `# SKIP XFAIL`.  Output is KTAP-like.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef __user
#define __user __attribute__((user))
#endif
#define noinline __attribute__((noinline))
#define HIDE(p) __asm__ volatile("" : "=r"(p) : "0"(p))

#define PASS 0
#define XFAIL 1
#if defined(MODE_NONE)
#define USER_PASS XFAIL
#define BYREF_PASS XFAIL
#define STRONG_PASS XFAIL
#elif defined(MODE_USER)
#define USER_PASS PASS
#define BYREF_PASS XFAIL
#define STRONG_PASS XFAIL
#elif defined(MODE_BYREF)
#define USER_PASS PASS
#define BYREF_PASS PASS
#define STRONG_PASS XFAIL
#else
#define USER_PASS PASS
#define BYREF_PASS PASS
#define STRONG_PASS PASS
#endif
/* passport zeroes at the declaration, every iteration; GCC once at entry. */
#define LOOP_PASS BYREF_PASS

static uint8_t check_buf[128];
static volatile uint8_t forced_mask = 0xff;
static void *fill_start, *target_start;
static size_t fill_size, target_size;
static int ntest, nfail, nskip, npass;

static void report(const char *name, int xfail)
{
	size_t i, sum = 0;

	ntest++;
	if (!(target_start >= fill_start &&
	      (char *)target_start + target_size <= (char *)fill_start + fill_size)) {
		printf("not ok %d %s # fill missed target\n", ntest, name);
		nfail++;
		return;
	}
	for (i = 0; i < target_size; i++)
		sum += check_buf[i] == 0xff;
	if (!sum) {
		printf("ok %d %s\n", ntest, name);
		npass++;
	} else if (xfail) {
		printf("ok %d %s # SKIP XFAIL uninit bytes: %zu\n", ntest, name, sum);
		nskip++;
	} else {
		printf("not ok %d %s # uninit bytes: %zu\n", ntest, name, sum);
		nfail++;
	}
}

struct test_packed { unsigned long one, two, three, four; };
struct test_small_hole { size_t one; char two; int three; unsigned long four; };
struct test_big_hole {
	uint8_t one, two, three;
	uint8_t four __attribute__((aligned(64)));
} __attribute__((aligned(64)));
struct test_trailing_hole { char *one, *two, *three; char four; };
struct test_user { uint8_t one; unsigned long two; char __user *three; unsigned long four; };

/* How `var` gets its (partial) value, after `var_type var`. */
#define INIT_none(T)
#define INIT_zero(T)			= { }
#define INIT_static_partial(T)		= { .two = 0, }
#define INIT_static_all(T)		= { .one = 0, .two = 0, .three = 0, .four = 0, }
#define INIT_dynamic_partial(T)		= { .two = arg->two, }
#define INIT_dynamic_all(T)		= { .one = arg->one, .two = arg->two, .three = arg->three, .four = arg->four, }
#define INIT_runtime_partial(T)		; var.two = 0
#define INIT_runtime_all(T)		; var.one = 0; var.two = 0; var.three = 0; var.four = 0
#define INIT_assigned_static_partial(T)	; var = (T){ .two = 0, }
#define INIT_assigned_static_all(T)	; var = (T){ .one = 0, .two = 0, .three = 0, .four = 0, }
#define INIT_assigned_dynamic_partial(T) ; var = (T){ .two = arg->two, }
#define INIT_assigned_dynamic_all(T)	; var = (T){ .one = arg->one, .two = arg->two, .three = arg->three, .four = arg->four, }
#define INIT_assigned_copy(T)		; var = *(arg)
#define SINIT_none(T)
#define SINIT_zero(T)			= 0
#define AINIT_none(T)			[16]
#define AINIT_zero(T)			[16] = { }

/* STRUCT and SCALAR cases share the leaf/driver shape. */
#define LEAF_BODY(name)							\
	target_start = &var;						\
	target_size = sizeof(var);					\
	memset(buf, (char)(sp & 0xff), sizeof(buf));			\
	if (fill) {							\
		fill_start = &var;					\
		fill_size = sizeof(var);				\
		memset(fill_start, (char)((sp & 0xff) | forced_mask), fill_size); \
	}								\
	do_nothing_##name(&var);					\
	memcpy(check_buf, target_start, target_size);			\
	return buf[0] | buf[sizeof(buf) - 1];

#define DEFINE_CASE(name, T, decl_suffix, xfail)			\
static noinline void do_nothing_##name(void *p) { HIDE(p); }		\
static noinline int leaf_##name(unsigned long sp, int fill, T *arg)	\
{									\
	char buf[32];							\
	T var decl_suffix;						\
	(void)arg;							\
	LEAF_BODY(name)							\
}									\
static noinline void test_##name(void)					\
{									\
	T zero;								\
	int ignored;							\
	memset(&zero, 0, sizeof(zero));					\
	ignored = leaf_##name((unsigned long)&ignored, 1, &zero);	\
	memset(check_buf, 0, sizeof(check_buf));			\
	ignored = leaf_##name((unsigned long)&ignored, 0, &zero);	\
	report(#name, xfail);						\
}
#define DEFINE_ARRAY_CASE(name, init, xfail)				\
static noinline void do_nothing_##name(void *p) { HIDE(p); }		\
static noinline int leaf_##name(unsigned long sp, int fill, void *arg)	\
{									\
	char buf[32];							\
	unsigned char var AINIT_##init(x);				\
	(void)arg;							\
	LEAF_BODY(name)							\
}									\
static noinline void test_##name(void)					\
{									\
	int ignored;							\
	ignored = leaf_##name((unsigned long)&ignored, 1, 0);		\
	memset(check_buf, 0, sizeof(check_buf));			\
	ignored = leaf_##name((unsigned long)&ignored, 0, 0);		\
	report(#name, xfail);						\
}

#define SCALARS(init, xfail)						\
	DEFINE_CASE(u8_##init, uint8_t, SINIT_##init(x), xfail)		\
	DEFINE_CASE(u16_##init, uint16_t, SINIT_##init(x), xfail)	\
	DEFINE_CASE(u32_##init, uint32_t, SINIT_##init(x), xfail)	\
	DEFINE_CASE(u64_##init, uint64_t, SINIT_##init(x), xfail)	\
	DEFINE_ARRAY_CASE(char_array_##init, init, xfail)
#define STRUCTS(init, xfail)						\
	DEFINE_CASE(small_hole_##init, struct test_small_hole, INIT_##init(struct test_small_hole), xfail) \
	DEFINE_CASE(big_hole_##init, struct test_big_hole, INIT_##init(struct test_big_hole), xfail) \
	DEFINE_CASE(trailing_hole_##init, struct test_trailing_hole, INIT_##init(struct test_trailing_hole), xfail) \
	DEFINE_CASE(packed_##init, struct test_packed, INIT_##init(struct test_packed), xfail)
#define RUN_SCALARS(init) test_u8_##init(); test_u16_##init(); test_u32_##init(); \
	test_u64_##init(); test_char_array_##init();
#define RUN_STRUCTS(init) test_small_hole_##init(); test_big_hole_##init(); \
	test_trailing_hole_##init(); test_packed_##init();

SCALARS(zero, PASS)
STRUCTS(zero, PASS)
STRUCTS(static_partial, STRONG_PASS)
STRUCTS(static_all, STRONG_PASS)
STRUCTS(dynamic_partial, STRONG_PASS)
STRUCTS(dynamic_all, STRONG_PASS)
STRUCTS(runtime_partial, STRONG_PASS)
STRUCTS(runtime_all, STRONG_PASS)
STRUCTS(assigned_static_partial, STRONG_PASS)
STRUCTS(assigned_static_all, STRONG_PASS)
STRUCTS(assigned_dynamic_partial, STRONG_PASS)
STRUCTS(assigned_dynamic_all, STRONG_PASS)
STRUCTS(assigned_copy, XFAIL)
SCALARS(none, STRONG_PASS)
STRUCTS(none, BYREF_PASS)
DEFINE_CASE(user, struct test_user, , USER_PASS)

/* A declaration before the first case of a switch: never executed. */
static noinline int leaf_switch(int path, int fill)
{
	switch (path) {
		uint64_t var[10];
	case 1:
	case 2:
		target_start = &var;
		target_size = sizeof(var);
		if (fill) {
			fill_start = &var;
			fill_size = sizeof(var);
			memset(fill_start, forced_mask | (path == 1 ? 0x55 : 0xaa), fill_size);
		}
		memcpy(check_buf, target_start, target_size);
		break;
	default:
		var[1] = 5;
		return var[1] & forced_mask;
	}
	return 0;
}
#define SWITCH_CASE(n)							\
static noinline void test_switch_##n##_none(void)			\
{									\
	leaf_switch(n, 1);						\
	memset(check_buf, 0, sizeof(check_buf));			\
	leaf_switch(n, 0);						\
	report("switch_" #n "_none", XFAIL);				\
}
SWITCH_CASE(1)
SWITCH_CASE(2)

/* A struct declared in a loop body: the first iteration fills it, the
 * second reads it.  GCC zeroes once at function entry (second iteration
 * sees 0xFF); passport zeroes at the declaration, every iteration. */
static noinline void fill_or_copy(struct test_small_hole *p, int fill)
{
	HIDE(p);
	if (fill) {
		fill_start = p;
		fill_size = sizeof(*p);
		memset(p, forced_mask, sizeof(*p));
	} else {
		target_start = p;
		target_size = sizeof(*p);
		memcpy(check_buf, p, sizeof(*p));
	}
}
static noinline void test_loop_scoped(void)
{
	memset(check_buf, 0, sizeof(check_buf));
	for (int i = 0; i < 2; i++) {
		struct test_small_hole var;
		fill_or_copy(&var, i == 0);
	}
	report("loop_scoped_none", LOOP_PASS);
}

int main(void)
{
	printf("KTAP version 1\n# Subtest: stackinit\n");
	RUN_SCALARS(zero)
	RUN_STRUCTS(zero)
	RUN_STRUCTS(static_partial)
	RUN_STRUCTS(static_all)
	RUN_STRUCTS(dynamic_partial)
	RUN_STRUCTS(dynamic_all)
	RUN_STRUCTS(runtime_partial)
	RUN_STRUCTS(runtime_all)
	RUN_STRUCTS(assigned_static_partial)
	RUN_STRUCTS(assigned_static_all)
	RUN_STRUCTS(assigned_dynamic_partial)
	RUN_STRUCTS(assigned_dynamic_all)
	RUN_STRUCTS(assigned_copy)
	RUN_SCALARS(none)
	test_switch_1_none();
	test_switch_2_none();
	RUN_STRUCTS(none)
	test_user();
	test_loop_scoped();
	printf("1..%d\n# stackinit: pass:%d fail:%d skip:%d total:%d\n", ntest, npass, nfail,
	       nskip, ntest);
	return nfail != 0;
}
