// The entry call stays exactly where the final frame (.stack_sizes minus the
// callee-saved pushes) is >= track-min-size, and becomes a 5-byte NOP elsewhere.
// RUN: %cc %clang $(%flags --stackleak=100) -O2 -c %s -o %t.o
// RUN: llvm-objdump -dr --no-show-raw-insn %t.o | FileCheck %s
// With track-min-size=0 every function keeps its call, even an empty one (as GCC).
// RUN: %cc %clang $(%flags --stackleak=0) -O2 -c %s -o %t0.o
// RUN: llvm-objdump -dr %t0.o | FileCheck %s --check-prefix=ZERO

extern void use(void *);

// 64 bytes, bounded by 72 in the IR: no call and no NOP at all.
// CHECK-LABEL: <small>:
// CHECK-NOT: {{nop|stackleak_track_stack}}
// CHECK: ret
void small(void) { char b[64]; use(b); }

// Six values live across the call: no IR bound, so the call stays until the
// post-step finds a frame of 0 (all six in callee-saved pushes) and leaves a NOP.
// CHECK-LABEL: <busy>:
// CHECK-NOT: R_X86_64_PLT32 stackleak_track_stack
// CHECK: nopl
// CHECK-NOT: R_X86_64_PLT32 stackleak_track_stack
// CHECK: ret
extern long h(long);
long busy(long a, long b, long c, long d, long e, long f)
{
	long x = h(a);

	return x + a * b + c * d + e * f + b * c * d;
}

// CHECK-LABEL: <large>:
// CHECK: call
// CHECK-NEXT: R_X86_64_PLT32 stackleak_track_stack-0x4
void large(void) { char b[120]; use(b); }

// CHECK-LABEL: <empty>:
// CHECK-NOT: R_X86_64_PLT32 stackleak_track_stack
// CHECK: ret
// ZERO-LABEL: <empty>:
// ZERO: R_X86_64_PLT32 stackleak_track_stack
// ZERO: ret
void empty(void) {}
