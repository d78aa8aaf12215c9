// The pass runs from opt's pipeline too, and its output passes the verifier.
// RUN: %clang -O1 -Xclang -disable-llvm-passes -S -emit-llvm %s -o %t.ll
// RUN: %opt -load %plugin -load-pass-plugin %plugin -passes='passport-stackleak,verify' -passport-stackleak-track-min-size=100 -S %t.ll -o - | FileCheck %s
// The -O0 and -O2 pipelines' output verifies:
// RUN: %clang $(%flags --stackleak=100) -O0 -S -emit-llvm %s -o - | %opt -passes=verify -disable-output
// RUN: %clang $(%flags --stackleak=100) -O2 -S -emit-llvm %s -o - | %opt -passes=verify -disable-output

extern void use(void *);
// CHECK-LABEL: @f(
// CHECK: call void asm sideeffect "1: call stackleak_track_stack
// CHECK: alloca i8, i64
// CHECK-NEXT: call i64 @llvm.read_register.i64
// CHECK-NEXT: call void asm sideeffect "call stackleak_track_stack"
void f(int n)
{
	char a[128];
	use(a);
	if (n) {
		char b[n];
		use(b);
	}
}
