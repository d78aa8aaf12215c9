// Variables with the attribute get random initialisers in the frontend:
// integer scalars, fixed-length integer arrays, structs of integer fields
// (bit-fields masked to their width), static locals; reads of a
// `static const` one fold to the random value, not to 0.  With seed 7 the
// values are the ones GCC 12's plugin gives with -frandom-seed=7 (draws
// 0..12, in parse order; gcc-differential.test checks this against GCC).
// RUN: %clang $(%flags --latent-entropy=7) -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,O2
// RUN: %clang $(%flags --latent-entropy=7) -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,O0
// Without the feature the attribute is accepted silently and does nothing:
// RUN: %clang -fplugin=%plugin -fpass-plugin=%plugin -Werror -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=OFF
// -disable turns the pass off but, as in GCC, variables are still initialised:
// RUN: %clang $(%flags --latent-entropy=7) -mllvm -passport-latent-entropy-disable -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,O2

// Bit-fields a:3 = draw0 & 7, the unnamed :5 consumes draw 1 (GCC stores
// its bits in the padding, Clang cannot), b:7 = draw2 & 0x7f, ..., `int :0`
// consumes draw 6, f = draw 7.
// CHECK-DAG: @latent_entropy = {{.*}}global i64 -690051820997938711
// CHECK-DAG: @v = {{.*}}global { i8, i8, i8, i8, i16, {{(\[2 x i8\], )?}}i64 } { i8 7, i8 31, i8 -29, i8 -126, i16 -5563, {{(\[2 x i8\] zeroinitializer, )?}}i64 -6591595217349195868 }
// OFF-DAG: @v = {{.*}}global {{.*}} zeroinitializer
struct bf {
	int a : 3;
	int : 5;
	unsigned b : 7;
	char c;
	signed char d;
	short e;
	int : 0;
	long f;
} v __attribute__((latent_entropy));

// CHECK-DAG: @k = internal constant [3 x i8] c"+E\F5"
static const unsigned char k[3] __attribute__((latent_entropy));
const unsigned char *p(void) { return k; }

// A static local: draw 11.
// O0-DAG: @q.z = internal global i32 -862152942
// O2-LABEL: @q(
// O2: ret i32 -862152942
int q(void)
{
	static int z __attribute__((latent_entropy));
	return z;
}

// A static const scalar: draw 12.  Clang's CodeGen folds the read even at
// -O0, so the initialiser must be in the AST before CodeGen:
// CHECK-LABEL: @readsc(
// CHECK: ret i32 -1111872836
// OFF-LABEL: @readsc(
// OFF: ret i32 0
static const int sc __attribute__((latent_entropy));
int readsc(void) { return sc; }

// The kernel's own definition (last in this file): the global gets a random
// value too (draw 13).
volatile unsigned long latent_entropy __attribute__((latent_entropy));
