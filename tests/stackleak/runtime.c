// Runtime: deep frames and VLAs move the tracked lowest stack pointer;
// a shallow function has no call (the IR bound, or else the post-step).
// The driver and the tracker are in Inputs/runtime-main.c, compiled without
// the pass, so the optimizer cannot see through the measured functions.
// RUN: %clang -O2 -c %S/Inputs/runtime-main.c -o %t.main.o
// RUN: %cc %clang $(%flags --stackleak=100) -O2 -c %s -o %t.o
// RUN: %clang %t.o %t.main.o -o %t && %t | FileCheck %s --check-prefixes=CHECK,FINAL
// RUN: %cc %clang $(%flags --stackleak=100) -O0 -c %s -o %t.O0.o
// RUN: %clang %t.O0.o %t.main.o -o %t.O0 && %t.O0 | FileCheck %s --check-prefixes=CHECK,FINAL
// Without the post-step the IR bound alone leaves shallow() without a call:
// RUN: %clang $(%flags --stackleak=100) -O2 -c %s -o %t.raw.o
// RUN: %clang %t.raw.o %t.main.o -o %t.raw && %t.raw | FileCheck %s --check-prefixes=CHECK,FINAL
// With prove-small off and no post-step, every candidate keeps its call:
// RUN: %clang $(%flags --stackleak=100 --stackleak-prove-small=off) -O2 -c %s -o %t.all.o
// RUN: %clang %t.all.o %t.main.o -o %t.all && %t.all | FileCheck %s --check-prefixes=CHECK,RAW
#include <string.h>

__attribute__((noinline)) int shallow(int x) { volatile char b[16]; b[0] = x; return b[0]; }
__attribute__((noinline)) int deep(int x) { volatile char b[4096]; memset((char *)b, x, sizeof(b)); return b[x]; }
__attribute__((noinline)) int vla(int n) { volatile char b[n]; b[n - 1] = 1; return b[n - 1]; }

/* State kept in registers around the tracking call: the result must be intact. */
__attribute__((noinline)) long busy(long a, long b, long c, long d)
{
	volatile char pad[200];
	pad[0] = 1;
	return a * 1000 + b * 100 + c * 10 + d + pad[0];
}

// FINAL: shallow(1): calls +0, moved >= 0: yes
// RAW: shallow(1): calls +1, moved >= 0: yes
// CHECK: deep(2): calls +1, moved >= 4096: yes
// CHECK: vla(6000): calls +{{[12]}}, moved >= 6000: yes
// CHECK: busy: 1235
