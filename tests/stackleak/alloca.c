// A tracking call after every dynamic alloca, in any block; an alloca in the
// entry block also covers the entry (GCC: no separate entry call).
// RUN: %clang $(%flags --stackleak=100) -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang $(%flags --stackleak=100) -O0 -S -emit-llvm %s -o - | FileCheck %s
// And the calls survive the post-step (a dynamic alloca keeps them all).
// RUN: %cc %clang $(%flags --stackleak=100 --verbose) -O2 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=FIN
// RUN: llvm-objdump -dr %t.o | grep -c 'R_X86_64_PLT32.*stackleak_track_stack' | FileCheck %s --check-prefix=COUNT

extern void use(void *);

// CHECK-LABEL: @vla(
// CHECK: alloca i8, i64
// CHECK-NEXT: call i64 @llvm.read_register.i64
// CHECK-NEXT: call void asm sideeffect "call stackleak_track_stack"
// CHECK-NOT: asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK: ret
void vla(int n)
{
	char b[n];
	use(b);
}

// CHECK-LABEL: @in_loop(
// CHECK: call void asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK: alloca i8, i64
// CHECK-NEXT: call i64 @llvm.read_register.i64
// CHECK-NEXT: call void asm sideeffect "call stackleak_track_stack"
void in_loop(int n)
{
	for (int i = 0; i < n; i++)
		use(__builtin_alloca(i + 1));
}

// FIN-DAG: stackleak: instrument vla(): calls_alloca
// FIN-DAG: stackleak: instrument in_loop(): calls_alloca
// COUNT: 3
