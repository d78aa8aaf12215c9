// After inlining, as GCC instruments: see ../inlining.test.
extern void g(int);
extern int h(int);
volatile unsigned long latent_entropy __attribute__((latent_entropy));

static __attribute__((latent_entropy)) int helper(int x)
{
	if (x > 3)
		g(x);
	return x * 2;
}

int unmarked_caller(int x)
{
	return helper(x) + 1;
}

__attribute__((latent_entropy)) int marked_caller(int x)
{
	int r = helper(x);
	for (int i = 0; i < x; i++)
		r += h(i);
	return r;
}
