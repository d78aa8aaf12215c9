// Functions with __attribute__((latent_entropy)) are instrumented, at -O0 and
// -O2; the others are left alone.  With a seed the constants are GCC's
// -frandom-seed stream in GCC's order: 0x1234 gives 4965995257616 (draw 0)
// for the first entry, and so on (reference §3.2/§3.4).
// RUN: %clang $(%flags --latent-entropy=0x1234 --verbose) -O0 -S -emit-llvm %s -o %t.O0.ll 2>%t.O0.err
// RUN: FileCheck %s --check-prefixes=CHECK,O0 < %t.O0.ll
// RUN: FileCheck %s --check-prefix=NOTE < %t.O0.err
// RUN: %clang $(%flags --latent-entropy=0x1234 --verbose) -O2 -S -emit-llvm %s -o %t.O2.ll 2>%t.O2.err
// RUN: FileCheck %s --check-prefixes=CHECK,O2 < %t.O2.ll
// The same stream at -O0 and -O2 (the pass runs before any optimisation; at
// -O2 Clang's lifetime markers add a block to loop(), so it ends later):
// RUN: FileCheck %s --check-prefix=NOTE < %t.O2.err
// The annotations that carried the attribute are gone from the module:
// RUN: not grep -e passport.latent_entropy -e llvm.global.annotations %t.O0.ll %t.O2.ll
// Without a declaration in the source, the pass declares the global:
// CHECK: @latent_entropy = external global i64

extern int g(int);

// `return call(...)`: the fold goes before the call, as GCC puts it before a
// tail call.
// CHECK-LABEL: @tail(
// CHECK: call {{.*}}@llvm.frameaddress
// CHECK: ptrtoint
// CHECK: load volatile i64, {{.*}}@latent_entropy
// CHECK: xor i64 {{.*}}4965995257616
// CHECK: load volatile i64, {{.*}}@latent_entropy
// CHECK-NEXT: add i64
// CHECK-NEXT: store volatile i64 {{.*}}@latent_entropy
// CHECK-NEXT: {{(tail )?}}call i32 @g(
// CHECK-NEXT: ret i32
__attribute__((latent_entropy)) int tail(int x)
{
	return g(x + 1);
}

// Loops and several returns: one op per block (xor, add, rol cycling), one
// fold per `ret`.
// CHECK-LABEL: @loop(
// The accumulator's alloca is promoted at -O2 (SROA):
// O2-NOT: alloca
// CHECK: call {{.*}}@llvm.frameaddress
// CHECK: xor i64 {{.*}}-2017287728800927691
// O0: add i64 {{.*}}-617825778726513364
// O0: call i64 @llvm.fshl.i64(i64 {{.*}}, i64 {{.*}}, i64 6)
// O0: xor i64 {{.*}}-6900393996936900209
// CHECK: store volatile i64 {{.*}}@latent_entropy
// CHECK-NOT: store volatile i64 {{.*}}@latent_entropy
// CHECK: ret i32
__attribute__((latent_entropy)) int loop(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += g(i);
	if (s > 10)
		return 1;
	return s;
}

// CHECK-LABEL: @plain(
// CHECK-NOT: latent_entropy
// CHECK-NOT: frameaddress
// CHECK: ret i32
int plain(int x)
{
	return g(x) + 1;
}

// The attribute on a prototype reaches the definition.
// CHECK-LABEL: @proto(
// CHECK: load volatile i64, {{.*}}@latent_entropy
// CHECK: store volatile i64 {{.*}}@latent_entropy
void proto(void) __attribute__((latent_entropy));
void proto(void)
{
}

// NOTE: passport: latent-entropy: declare external latent_entropy
// NOTE-NEXT: tail(): entry xor 4965995257616
// NOTE-NEXT: tail(): exit add before tail call
// NOTE-NEXT: instrument tail(): 1 blocks, 1 exits (1 before a tail call)
// NOTE-NEXT: loop(): entry xor 16429456344908623925
// NOTE-NEXT: loop(): block 2 add 17828918294983038252
// NOTE-NEXT: loop(): block 3 rol 6
// NOTE-NEXT: loop(): block 4 xor 11546350076772651407
// NOTE:      instrument loop(): {{[0-9]+}} blocks, 1 exits (0 before a tail call)
// NOTE-NOT:  plain
// NOTE:      instrument proto(): 1 blocks, 1 exits (0 before a tail call)
