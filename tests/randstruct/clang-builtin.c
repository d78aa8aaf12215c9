// Clang >= 15 has its own randstruct (-frandomize-layout-seed-file, mt19937,
// different buckets): with passport's randstruct on, passport's GCC layout
// wins and verbose output says so; with it off, Clang's own layout is used.
// REQUIRES: llvm19
// RUN: %clang $(%flags --randstruct=full --seed-file=%root/gcc-plugins/test.seed --verbose) -frandomize-layout-seed-file=%root/gcc-plugins/test.seed %s -o %t.both 2> %t.both.err
// RUN: FileCheck %s --check-prefix=BOTH-NOTE < %t.both.err
// RUN: %t.both | FileCheck %s --check-prefix=GCC
// RUN: %clang -fplugin=%plugin -mllvm -passport-randstruct-verbose -frandomize-layout-seed-file=%root/gcc-plugins/test.seed %s -o %t.native 2> %t.native.err
// RUN: FileCheck %s --check-prefix=NATIVE-NOTE < %t.native.err
// RUN: %t.native | FileCheck %s --check-prefix=NATIVE
// BOTH-NOTE: passport: randstruct: passport's randstruct is active (full mode); clang's -frandomize-layout-seed is overridden
// BOTH-NOTE: struct marked (randomize_layout, full mode): h e b a d f c g
// NATIVE-NOTE: passport: randstruct: clang's built-in randstruct is active (-frandomize-layout-seed); passport's is off
#include <stddef.h>
#include <stdio.h>
struct marked { int a, b, c, d, e, f, g, h; } __attribute__((randomize_layout));
int main(void)
{
	printf("order");
	for (int off = 0; off < 32; off += 4) {
#define F(x) if (offsetof(struct marked, x) == (size_t)off) printf(" " #x);
		F(a) F(b) F(c) F(d) F(e) F(f) F(g) F(h)
	}
	printf("\n");
	return 0;
}
// GCC: order h e b a d f c g
// NATIVE: order
// NATIVE-NOT: h e b a d f c g
// NATIVE-NOT: a b c d e f g h
