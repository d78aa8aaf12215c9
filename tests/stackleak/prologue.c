// The tracking call comes after the frame is allocated, even where
// shrink-wrapping would sink the prologue below it: it takes the stack
// pointer as input, as GCC's asm takes current_stack_pointer.
// RUN: %cc %clang $(%flags --stackleak=100) -O2 -c %s -o %t.o
// RUN: llvm-objdump -dr --no-show-raw-insn %t.o | FileCheck %s
// CHECK-LABEL: <early_exit>:
// CHECK-NEXT: sub{{q?}} ${{312|0x138}}, %rsp
// CHECK-NEXT: call
// CHECK-NEXT: R_X86_64_PLT32 stackleak_track_stack
extern void use(char *);

int early_exit(int x)
{
	if (__builtin_expect(x, 1))
		return x + 1;
	char b[300];
	use(b);
	return b[3];
}
