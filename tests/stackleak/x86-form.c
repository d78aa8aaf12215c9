// On x86 the tracking call is GCC's asm form: the backend sees no call, so a
// caller keeps its values in caller-saved registers and its frame is the
// same.  Per function, the instrumented object has exactly one instruction
// more (the call), no extra push/pop and the same .stack_sizes frame.
// RUN: %clang -O2 -fstack-size-section -c %s -o %t.plain.o
// RUN: %cc %clang $(%flags --stackleak=0) -O2 -c %s -o %t.pass.o
// RUN: %python %S/Inputs/insn-delta.py %t.plain.o %t.pass.o 1 | FileCheck %s
// RUN: %clang $(%flags --stackleak=0) -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR

// CHECK: busy: insns {{[0-9]+}} -> {{[0-9]+}} (+1), push/pop +0, frame [[F:[0-9]+]] -> [[F]] ok
// CHECK: leafy: insns {{[0-9]+}} -> {{[0-9]+}} (+1), push/pop +0, frame [[G:[0-9]+]] -> [[G]] ok
// IR: define {{.*}}@busy({{.*}}) {{.*}}[[ATTR:#[0-9]+]] {
// IR: [[SP:%[0-9a-z]+]] = call i64 @llvm.read_register.i64(metadata [[RSP:![0-9]+]])
// IR-NEXT: call void asm sideeffect "1: call stackleak_track_stack\0A\09.pushsection .discard.passport_stackleak_entry,{{.*}}", "{rsp},~{memory},~{dirflag},~{fpsr},~{flags}"(i64 [[SP]])
// IR: attributes [[ATTR]] = {{{.*}}noredzone
// IR: [[RSP]] = !{!"rsp"}

extern long ext(long);

/* Live values in rax/rcx/rdx/rsi/rdi/r8-r11 around the tracking point. */
long busy(long a, long b, long c, long d, long e, long f)
{
	long x = a * b, y = c * d, z = e * f;

	return ext(x + y) + x * y * z + a + b + c + d + e + f;
}

long leafy(long a, long b, long c, long d)
{
	return (a * b) ^ (c * d) ^ (a + d);
}
