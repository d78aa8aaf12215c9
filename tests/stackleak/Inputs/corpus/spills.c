/* Spill-heavy functions with no big local: the frame is spill slots. */
#include "kernel.h"

#define L8(p) long p##0 = produce(0), p##1 = produce(1), p##2 = produce(2), p##3 = produce(3), \
	p##4 = produce(4), p##5 = produce(5), p##6 = produce(6), p##7 = produce(7);
#define S8(p) (p##0 ^ p##1 ^ p##2 ^ p##3 ^ p##4 ^ p##5 ^ p##6 ^ p##7)

noinline long pressure8(void) { L8(a) produce(9); return S8(a); }
noinline long pressure16(void) { L8(a) L8(b) produce(9); return S8(a) * S8(b); }
noinline long pressure24(void) { L8(a) L8(b) L8(c) produce(9); return S8(a) * S8(b) + S8(c); }
noinline long pressure32(void) { L8(a) L8(b) L8(c) L8(d) produce(9); return S8(a) * S8(b) + S8(c) - S8(d); }

noinline u64 mix_loop(const u64 *v, int n)
{
	u64 h0 = 1, h1 = 2, h2 = 3, h3 = 4, h4 = 5, h5 = 6, h6 = 7, h7 = 8, h8 = 9, h9 = 10;

	for (int i = 0; i < n; i++) {
		h0 += v[i]; h1 ^= h0 << 3; h2 += h1 >> 5; h3 ^= produce(h2);
		h4 += h3 * 7; h5 ^= h4 >> 11; h6 += produce(h5); h7 ^= h6 << 9;
		h8 += h7; h9 ^= produce(h8);
	}
	return h0 ^ h1 ^ h2 ^ h3 ^ h4 ^ h5 ^ h6 ^ h7 ^ h8 ^ h9;
}

struct regs { u64 r[16]; };

noinline u64 regs_checksum(const struct regs *in)
{
	struct regs copy = *in;
	u64 sum = 0;

	for (int i = 0; i < 16; i++)
		sum += produce(copy.r[i]) * (i + 1);
	consume(&copy, sizeof(copy));
	return sum;
}
