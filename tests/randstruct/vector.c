// The reference's section 4.6 test vector (GCC 12.2 + the real plugin, seed
// 0123...0011 = gcc-plugins/test.seed): passport's field order per struct
// (verbose) and the offsets clang actually gives them (run).
// RUN: %clang $(%flags --randstruct=full --seed-file=%root/gcc-plugins/test.seed --verbose) -fsyntax-only %s 2>&1 | FileCheck %s --check-prefixes=CHECK,FULL
// RUN: %clang $(%flags --randstruct=performance --seed-file=%root/gcc-plugins/test.seed --verbose) -fsyntax-only %s 2>&1 | FileCheck %s --check-prefixes=CHECK,PERF
// RUN: %clang $(%flags --randstruct=full --seed-file=%root/gcc-plugins/test.seed) %s -o %t.full && %t.full | FileCheck %s --check-prefixes=OFF,OFF-FULL
// RUN: %clang $(%flags --randstruct=performance --seed-file=%root/gcc-plugins/test.seed) %s -o %t.perf && %t.perf | FileCheck %s --check-prefixes=OFF,OFF-PERF
// Without passport the declared order:
// RUN: %clang %s -o %t.plain && %t.plain | FileCheck %s --check-prefix=PLAIN
#include <stddef.h>
#include <stdio.h>

#define __randomize_layout __attribute__((randomize_layout))
typedef void (*fp)(void);

struct ops { fp a, b, c, d, e, f, g, h; };
struct marked { int a, b, c, d, e, f, g, h; } __randomize_layout;
struct flex { int a, b, c, d; char tail[]; } __randomize_layout;
struct bits { int a; unsigned x:1, y:3; int b, c; } __randomize_layout;
struct task { long state; struct { int a, b, c, d; } __randomize_layout; long last; };
struct big { char a[64], b[64]; long c, d, e, f, g, h, i, j; } __randomize_layout;
struct ops_norand { fp a, b, c; } __attribute__((no_randomize_layout));
struct ops_with_owner { void *owner; fp a, b, c; };

// CHECK: passport: randstruct: passport's randstruct is active
// CHECK: struct ops (function pointers only, {{.*}}): f a h c d b e g
// CHECK: struct marked (randomize_layout, {{.*}}): h e b a d f c g
// CHECK: struct flex (randomize_layout, {{.*}}): d c b a tail
// FULL: struct bits (randomize_layout, full mode): y c b x a
// PERF: struct bits (randomize_layout, performance mode): c x y b a
// CHECK: struct anonymous (randomize_layout, {{.*}}): c a b d
// FULL: struct big (randomize_layout, full mode): i e h c a d b g j f
// PERF: struct big (randomize_layout, performance mode): a b h g j e c f d i
// CHECK: struct ops_norand: no_randomize_layout: kept
// CHECK-NOT: ops_with_owner

#define P(s, f) printf(#s "." #f " %zu\n", offsetof(struct s, f))
int main(void)
{
	struct bits b = { .x = 1, .y = 5 };
	P(ops, f); P(ops, a); P(ops, g);
	P(marked, h); P(marked, e); P(marked, g);
	P(flex, d); P(flex, tail);
	P(task, c); P(task, a); P(task, d);
	P(big, a); P(big, i);
	P(ops_norand, a); P(ops_with_owner, owner);
	printf("bits size %zu a %zu b %zu c %zu x %u y %u\n", sizeof(struct bits),
	       offsetof(struct bits, a), offsetof(struct bits, b), offsetof(struct bits, c),
	       b.x, b.y);
	return 0;
}
// OFF: ops.f 0
// OFF: ops.a 8
// OFF: ops.g 56
// OFF: marked.h 0
// OFF: marked.e 4
// OFF: marked.g 28
// OFF: flex.d 0
// OFF: flex.tail 16
// OFF: task.c 8
// OFF: task.a 12
// OFF: task.d 20
// OFF-FULL: big.a 32
// OFF-FULL: big.i 0
// OFF-PERF: big.a 0
// OFF-PERF: big.i 184
// OFF: ops_norand.a 0
// OFF: ops_with_owner.owner 0
// OFF-FULL: bits size 20 a 16 b 8 c 4 x 1 y 5
// OFF-PERF: bits size 16 a 12 b 8 c 0 x 1 y 5
// PLAIN: ops.f 40
// PLAIN: marked.h 28
// PLAIN: bits size 16 a 0 b 8 c 12
