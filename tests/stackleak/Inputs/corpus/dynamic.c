/* Dynamic allocas: VLAs in the first block, in branches and in loops. */
#include "kernel.h"

noinline int vla_entry(int n)
{
	char buf[n];

	consume(buf, n);
	return buf[0];
}

noinline int vla_branch(int n, const void *src)
{
	if (n > 16) {
		char buf[n];
		copy_from_user(buf, src, n);
		consume(buf, n);
	}
	return n;
}

noinline int alloca_loop(int n)
{
	int sum = 0;

	for (int i = 1; i <= n; i++) {
		char *p = __builtin_alloca(i * 8);
		consume(p, i * 8);
		sum += p[0];
	}
	return sum;
}

noinline int small_vla(int n)
{
	int v[n & 3];

	consume(v, sizeof(v));
	return n;
}
