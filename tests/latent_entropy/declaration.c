// The declaration of latent_entropy the pass adds is referenced the way
// Clang references its own: in a -fno-pic compile (the kernel) it is
// dso_local, as the source's own declaration would be, and the code reaches
// it PC-relative.  Through the GOT (R_X86_64_REX_GOTPCRELX) the kernel's
// relocs tool rejects it in a KASLR (RELOCATABLE) build.  In a PIC compile
// it stays preemptible, again as Clang's own declaration.
// RUN: %clang $(%flags --latent-entropy) -fno-pic -mcmodel=kernel -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=NOPIC
// RUN: %clang -DDECLARED $(%flags --latent-entropy) -fno-pic -mcmodel=kernel -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=NOPIC
// RUN: %clang $(%flags --latent-entropy) -fpic -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=PIC
// RUN: %clang -DDECLARED $(%flags --latent-entropy) -fpic -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=PIC
// RUN: %clang $(%flags --latent-entropy) -fno-pic -mcmodel=kernel -O2 -c %s -o %t.o
// RUN: llvm-objdump -r %t.o | FileCheck %s --check-prefix=RELOC
// NOPIC: @latent_entropy = external dso_local global i64
// PIC: @latent_entropy = external global i64
// RELOC: R_X86_64_PC32 latent_entropy
// RELOC-NOT: GOTPCREL

#ifdef DECLARED
extern volatile unsigned long latent_entropy;
#endif

__attribute__((latent_entropy)) int f(int x)
{
	return x > 3 ? x * 5 : x + 1;
}
