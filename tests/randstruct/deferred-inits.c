// The positional-initialiser check walks the code that is emitted: external
// functions and variable initialisers, and each function of internal linkage
// (a header's static inline) once emitted code reaches it (a call, an
// address, a cleanup, an alias) or its attributes keep it (used); at the end of the
// translation unit. Code nothing reaches emits nothing: not checked, even
// when another unreached function calls it.
// RUN: not %clang $(%flags --randstruct=full --seed-file=%root/gcc-plugins/test.seed) -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error:
#define __randomize_layout __attribute__((randomize_layout))
struct s { int a; long b; char c; } __randomize_layout;

static inline int called_by_dead_code(void)
{
	struct s x = { 1, 2, 3 };
	return x.a;
}

static inline int never_called(void)
{
	return called_by_dead_code();
}

static inline int called_later(void)
{
	struct s x = { 4, 5, 6 };
	return x.a;
}
// CHECK-DAG: deferred-inits.c:[[@LINE-3]]:17: error: positional initialization of field in randomized 'struct s'

static inline int called_by_called(void)
{
	struct s x = { 8, 9 };
	return x.a;
}
// CHECK-DAG: deferred-inits.c:[[@LINE-3]]:17: error: positional initialization of field in randomized 'struct s'

static int __attribute__((used)) kept(void)
{
	struct s x = { 10 };
	return x.a;
}
// CHECK-DAG: deferred-inits.c:[[@LINE-3]]:17: error: positional initialization of field in randomized 'struct s'

static void cleanup(int *p)
{
	struct s x = { 11 };
	*p = x.a;
}
// CHECK-DAG: deferred-inits.c:[[@LINE-3]]:17: error: positional initialization of field in randomized 'struct s'

static int through_pointer(void)
{
	struct s x = { 12 };
	return x.a + called_by_called();
}
// CHECK-DAG: deferred-inits.c:[[@LINE-3]]:17: error: positional initialization of field in randomized 'struct s'

int (*const ops)(void) = through_pointer;

static int alias_target(void)
{
	struct s x = { 13 };
	return x.a;
}
// CHECK-DAG: deferred-inits.c:[[@LINE-3]]:17: error: positional initialization of field in randomized 'struct s'
int alias_name(void) __attribute__((alias("alias_target")));

int external(void)
{
	struct s y = { 7 };
	int guard __attribute__((cleanup(cleanup))) = 0;
	return y.a + called_later() + guard;
}
// CHECK-DAG: deferred-inits.c:[[@LINE-4]]:17: error: positional initialization of field in randomized 'struct s'
