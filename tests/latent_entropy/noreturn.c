// GCC's gate: no noreturn functions, no functions that never return.
// RUN: %clang $(%flags --latent-entropy --verbose) -O2 -S -emit-llvm %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s < %t.ll
extern void g(void);

// NOTE-DAG: passport: latent-entropy: skip die(): noreturn
// CHECK-LABEL: @die(
// CHECK-NOT: latent_entropy
// CHECK: }
__attribute__((latent_entropy, noreturn)) void die(void)
{
	__builtin_trap();
}

// (-O2 infers noreturn before the pass runs at OptimizerLast; at -O0 it
// would say "never returns")
// NOTE-DAG: passport: latent-entropy: skip spin(): {{noreturn|never returns}}
// CHECK-LABEL: @spin(
// CHECK-NOT: latent_entropy
// CHECK: }
__attribute__((latent_entropy)) void spin(void)
{
	for (;;)
		g();
}

// NOTE-DAG: passport: latent-entropy: instrument ok(): 1 blocks, 1 exits (1 before a tail call)
// CHECK-LABEL: @ok(
// CHECK: store volatile i64 {{.*}}@latent_entropy
// CHECK: call void @g()
__attribute__((latent_entropy)) void ok(void)
{
	g();
}
