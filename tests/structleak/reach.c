// The frontend marks the locals of the functions that are emitted: external
// ones as they come, and each static one that emitted code reaches (a call
// before or after its definition, its address in a variable's initialiser,
// a cleanup attribute, an alias, as the kernel's SYSCALL_DEFINE makes) or
// that `used` keeps. Each of those zeroes its
// by-reference local; the static inline nothing calls is not emitted.
// RUN: %clang $(%flags --structleak=byref-all --verbose) -O0 -S -emit-llvm %s -o %t.ll 2> %t.err
// RUN: sed -n '/^define internal i64 @called_later(/,/^}/p' %t.ll | FileCheck %s --check-prefix=ZEROED
// RUN: sed -n '/^define internal i64 @through_pointer(/,/^}/p' %t.ll | FileCheck %s --check-prefix=ZEROED
// RUN: sed -n '/^define internal i64 @kept(/,/^}/p' %t.ll | FileCheck %s --check-prefix=ZEROED
// RUN: sed -n '/^define internal void @release(/,/^}/p' %t.ll | FileCheck %s --check-prefix=ZEROED
// RUN: sed -n '/^define internal i64 @alias_target(/,/^}/p' %t.ll | FileCheck %s --check-prefix=ZEROED
// RUN: sed -n '/^define internal i64 @called_by_alias_target(/,/^}/p' %t.ll | FileCheck %s --check-prefix=ZEROED
// RUN: not grep never_called %t.ll
// RUN: FileCheck %s --check-prefix=NOTE --implicit-check-not=never_called < %t.err
struct plain { char c; long l; };
extern void sink(void *);

static inline long never_called(void) { struct plain p; sink(&p); return p.l; }

static inline long called_later(void) { struct plain p; sink(&p); return p.l; }
// NOTE-DAG: called_later(): byref variable 'p' (struct) will be forcibly initialized

static inline long through_pointer(void) { struct plain p; sink(&p); return p.l; }
// NOTE-DAG: through_pointer(): byref variable 'p' (struct) will be forcibly initialized

static long __attribute__((used)) kept(void) { struct plain p; sink(&p); return p.l; }
// NOTE-DAG: kept(): byref variable 'p' (struct) will be forcibly initialized

static void release(int *x) { struct plain p; sink(&p); *x = (int)p.l; }
// NOTE-DAG: release(): byref variable 'p' (struct) will be forcibly initialized

static inline long called_by_alias_target(void) { struct plain p; sink(&p); return p.l; }
// NOTE-DAG: called_by_alias_target(): byref variable 'p' (struct) will be forcibly initialized

static long alias_target(void) { struct plain p; sink(&p); return p.l + called_by_alias_target(); }
// NOTE-DAG: alias_target(): byref variable 'p' (struct) will be forcibly initialized
long alias_name(void) __attribute__((alias("alias_target")));

long (*const op)(void) = through_pointer;

long external(void)
{
	int guard __attribute__((cleanup(release))) = 0;
	return called_later() + guard;
}

// ZEROED: define internal
// ZEROED: call void @llvm.memset{{.*}}, i8 0, i64 16, i1 false)
