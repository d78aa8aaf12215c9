/* A small corpus for the seed and GCC differential tests: functions with and
 * without the attribute, the gate's exclusions, and every accepted kind of
 * variable (no unnamed bit-fields: their bits differ by design). */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#define __latent_entropy __attribute__((latent_entropy))

extern int ext(int);
extern void sink(const void *);

volatile unsigned long latent_entropy __latent_entropy;

u64 seed64 __latent_entropy;
int signed_int __latent_entropy;
static const u8 compiletime_seed[64] __latent_entropy;
u16 halfwords[5] __latent_entropy;
struct mix { u8 a; int b; long c; short d; u32 e : 12; u32 f : 20; } mixed __latent_entropy;
static struct { char x; long long y; } anon __latent_entropy;

const void *seeds(void)
{
	sink(&anon);
	return compiletime_seed;
}

__latent_entropy int branches(int x)
{
	if (x > 3)
		return ext(x + 1);
	else if (x < -5)
		return ext(x * 3);
	return x * 7;
}

__latent_entropy void empty(void)
{
}

__latent_entropy int loops(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += ext(i);
	while (s > 100)
		s /= 3;
	return s;
}

__latent_entropy int switches(int k)
{
	switch (k) {
	case 0: return ext(1);
	case 1: return 7;
	case 2: ext(2); break;
	default: k++;
	}
	return k;
}

int plain(int x)
{
	return ext(x) + 1;
}

__latent_entropy __attribute__((noreturn)) void dies(void)
{
	ext(0);
	__builtin_trap();
}

__latent_entropy void forever(void)
{
	for (;;)
		ext(1);
}

void declared(void) __latent_entropy;
void declared(void)
{
	static int counter __latent_entropy;

	sink(&counter);
}

static __attribute__((noinline)) __latent_entropy int helper(int x)
{
	return x ^ ext(x);
}

int calls_helper(int x)
{
	return helper(x) + helper(x + 1);
}
