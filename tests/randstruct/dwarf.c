// DWARF describes the reordered layout: every member's
// DW_AT_data_member_location / DW_AT_data_bit_offset equals the offset the
// program computes (offsetof, or the bit found by writing all-ones).
// RUN: %clang $(%flags --randstruct=full --seed-file=%root/gcc-plugins/test.seed) -g -O0 %s -o %t && %t > %t.offsets
// RUN: llvm-dwarfdump --debug-info %t | python3 %S/Inputs/dwarf-check.py %t.offsets | FileCheck %s
// RUN: %clang $(%flags --randstruct=performance --seed-file=%S/Inputs/seed-a) -g -O0 %s -o %t.p && %t.p > %t.p.offsets
// RUN: llvm-dwarfdump --debug-info %t.p | python3 %S/Inputs/dwarf-check.py %t.p.offsets | FileCheck %s
// CHECK: marked.a byte {{[0-9]+}} dwarf
// CHECK: checked 19 members
// CHECK-NOT: mismatch
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#define __randomize_layout __attribute__((randomize_layout))
typedef void (*fp)(void);
struct ops { fp open, read, write, close, poll, mmap; };
struct marked { int a; long b; char c; short d; void *e; char f[3]; } __randomize_layout;
struct bits { int a; unsigned x:1, y:3, z:12; char b; long c; unsigned w:7; } __randomize_layout;
struct ops ops_v;
struct marked marked_v;
struct bits bits_v;
#define P(s, f) printf(#s "." #f " %zu\n", offsetof(struct s, f))
#define B(s, f) do { struct s v; memset(&v, 0, sizeof(v)); v.f = -1; \
	for (unsigned i = 0; i < sizeof(v) * 8; i++) \
		if (((unsigned char *)&v)[i / 8] >> (i % 8) & 1) { printf(#s "." #f " bit %u\n", i); break; } } while (0)
int main(void)
{
	P(ops, open); P(ops, read); P(ops, write); P(ops, close); P(ops, poll); P(ops, mmap);
	P(marked, a); P(marked, b); P(marked, c); P(marked, d); P(marked, e); P(marked, f);
	P(bits, a); P(bits, b); P(bits, c); B(bits, x); B(bits, y); B(bits, z); B(bits, w);
	return 0;
}
// Both DWARF versions (5: DW_AT_data_bit_offset, 4: DW_AT_bit_offset):
// RUN: %clang $(%flags --randstruct=full --seed-file=%S/Inputs/seed-b) -gdwarf-4 -O0 %s -o %t.4 && %t.4 > %t.4.offsets
// RUN: llvm-dwarfdump --debug-info %t.4 | python3 %S/Inputs/dwarf-check.py %t.4.offsets | FileCheck %s
// RUN: %clang $(%flags --randstruct=full --seed-file=%S/Inputs/seed-b) -gdwarf-5 -O0 %s -o %t.5 && %t.5 > %t.5.offsets
// RUN: llvm-dwarfdump --debug-info %t.5 | python3 %S/Inputs/dwarf-check.py %t.5.offsets | FileCheck %s
