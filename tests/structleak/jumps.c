// Where the zeroing goes: at the declaration (after llvm.lifetime.start), so
// a variable declared in a loop is zeroed on every iteration; a declaration
// that a jump can bypass is zeroed at function entry as well.
// RUN: %clang $(%flags --structleak=byref --verbose) -O0 -S -emit-llvm %s -o %t.ll 2> %t.err
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=NOTE < %t.err
// With lifetime markers (-O1, optional passes skipped by opt-bisect; the
// pass is required, so it runs):
// RUN: %clang $(%flags --structleak=byref) -O1 -mllvm -opt-bisect-limit=0 -S -emit-llvm %s -o - 2>/dev/null | FileCheck %s --check-prefix=LIFETIME
// RUN: %clang $(%flags --structleak=byref-all) -O2 -S -emit-llvm %s -o - | %opt -passes=verify -disable-output

struct plain { char c; long l; };
extern void sink(void *);

// CHECK-LABEL: @in_loop(
// CHECK-NOT: call void @llvm.memset
// CHECK: br i1
// CHECK-NOT: call void @llvm.memset
// CHECK: call void @llvm.memset{{.*}}i8 0, i64 16, i1 false)
// CHECK-NOT: call
// CHECK: call void @sink(
// LIFETIME-LABEL: @in_loop(
// LIFETIME: br i1
// LIFETIME: call void @llvm.lifetime.start
// LIFETIME-NOT: call
// LIFETIME: call void @llvm.memset{{.*}}i8 0, i64 16, i1 false)
long in_loop(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++) {
		struct plain p;
		sink(&p);
		s += p.c;
	}
	return s;
}

// CHECK-LABEL: @bypassed(
// CHECK: alloca %struct.plain
// CHECK: call void @llvm.memset{{.*}}i8 0, i64 16, i1 false)
// CHECK: br i1
// CHECK: call void @llvm.memset{{.*}}i8 0, i64 16, i1 false)
// CHECK: call void @sink(
long bypassed(int x)
{
	if (x)
		goto skip;
	struct plain p;
	p.c = 1;
skip:
	sink(&p);
	return p.c;
}
// NOTE: in_loop(): byref variable 'p' (struct) will be forcibly initialized (16 bytes)
// NOTE: in_loop(): 'p' is declared in a loop: zeroed on every iteration
// NOTE: bypassed(): byref variable 'p' (struct) will be forcibly initialized (16 bytes)
// NOTE-NOT: bypassed(): 'p' is declared in a loop
// NOTE: bypassed(): 'p' can be used without passing its declaration: also zeroed at function entry
