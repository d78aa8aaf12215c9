// Runtime: an instrumented function changes latent_entropy; different paths
// leave different values, the same path from the same state the same value;
// a function without the attribute leaves it alone.  The global is the
// kernel's definition, which gets a random initialiser itself.
// RUN: %clang $(%flags --latent-entropy) -O2 %s -o %t && %t | FileCheck %s
// RUN: %clang $(%flags --latent-entropy) -O0 %s -o %t.O0 && %t.O0 | FileCheck %s
// RUN: %clang $(%flags --latent-entropy=99) -O1 %s -o %t.O1 && %t.O1 | FileCheck %s
// The same program without the pass changes nothing:
// RUN: %clang -fplugin=%plugin -O2 %s -o %t.off && %t.off | FileCheck %s --check-prefix=OFF
#include <stdio.h>

volatile unsigned long latent_entropy __attribute__((latent_entropy));

__attribute__((latent_entropy, noinline)) int work(int x)
{
	if (x & 1)
		return x * 3;
	for (int i = 0; i < x; i++)
		x ^= i << 1;
	return x;
}

__attribute__((noinline)) int plain(int x)
{
	return x + 1;
}

int main(void)
{
	unsigned long start = latent_entropy, a, b, c;
	volatile int sink;

	// CHECK: initialised: yes
	// OFF: initialised: no
	printf("initialised: %s\n", start ? "yes" : "no");
	sink = work(1);
	a = latent_entropy;
	latent_entropy = start;
	sink = work(10);
	b = latent_entropy;
	latent_entropy = start;
	sink = work(1);
	c = latent_entropy;
	// CHECK: changed: yes yes
	// CHECK: paths differ: yes
	// CHECK: same path, same value: yes
	// OFF: changed: no no
	printf("changed: %s %s\n", a != start ? "yes" : "no", b != start ? "yes" : "no");
	printf("paths differ: %s\n", a != b ? "yes" : "no");
	printf("same path, same value: %s\n", a == c ? "yes" : "no");
	latent_entropy = start;
	sink = plain(3);
	// CHECK: plain function: unchanged
	// OFF: plain function: unchanged
	printf("plain function: %s\n", latent_entropy == start ? "unchanged" : "changed");
	(void)sink;
	return 0;
}
