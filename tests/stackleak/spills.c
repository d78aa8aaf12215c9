// A frame made of spill slots, with no alloca at all: an IR estimate cannot
// see it (frame=estimate skips it), the final-frame rule tracks it.
// RUN: %cc %clang $(%flags --stackleak=100 --verbose) -O2 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=FINAL
// RUN: llvm-objdump -dr %t.o | FileCheck %s --check-prefix=OBJ
// RUN: %clang $(%flags --stackleak=100 --stackleak-frame=estimate --verbose) -O2 -c %s -o %t.est.o 2>&1 | FileCheck %s --check-prefix=EST
// RUN: llvm-objdump -dr %t.est.o | FileCheck %s --check-prefix=EST-OBJ

extern long step(long);

#define L8(p) long p##0 = step(0), p##1 = step(1), p##2 = step(2), p##3 = step(3), \
	p##4 = step(4), p##5 = step(5), p##6 = step(6), p##7 = step(7);
#define S8(p) (p##0 ^ p##1 ^ p##2 ^ p##3 ^ p##4 ^ p##5 ^ p##6 ^ p##7)

long pressure(void)
{
	L8(a) L8(b) L8(c)
	step(99);
	return S8(a) * S8(b) + S8(c);
}

// FINAL: passport: stackleak: candidate pressure()
// FINAL: stackleak: instrument pressure(): frame {{[0-9]+}} >= 100
// OBJ: R_X86_64_PLT32 stackleak_track_stack
// EST: passport: stackleak: skip pressure(): allocas 0 < 100 bytes (estimate)
// EST-OBJ-NOT: stackleak_track_stack
