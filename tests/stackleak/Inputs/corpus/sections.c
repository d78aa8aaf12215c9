/* Excluded sections and leaves: no tracking whatever the frame. */
#include "kernel.h"

__init int setup_thing(const void *src) { char buf[300]; copy_from_user(buf, src, sizeof(buf)); consume(buf, sizeof(buf)); return 0; }
__meminit int meminit_thing(const void *src) { char buf[300]; copy_from_user(buf, src, sizeof(buf)); consume(buf, sizeof(buf)); return 0; }
noinstr int entry_work(const void *src) { char buf[300]; copy_from_user(buf, src, sizeof(buf)); consume(buf, sizeof(buf)); return 0; }
__head int head_work(const void *src) { char buf[300]; copy_from_user(buf, src, sizeof(buf)); consume(buf, sizeof(buf)); return 0; }
__attribute__((section(".irqentry.text"))) int irq_work(const void *src) { char buf[300]; copy_from_user(buf, src, sizeof(buf)); consume(buf, sizeof(buf)); return 0; }

/* Leaves with a big local frame. */
noinline int leaf_table(int i)
{
	volatile int t[64];

	for (int j = 0; j < 64; j++)
		t[j] = j * i;
	return t[i & 63];
}

static inline __attribute__((used)) int static_inline_leaf(int i)
{
	volatile int t[64];

	for (int j = 0; j < 64; j++)
		t[j] = j ^ i;
	return t[i & 63];
}

noinline int _paravirt_leaf(int i)
{
	volatile int t[64];

	for (int j = 0; j < 64; j++)
		t[j] = j + i;
	return t[i & 63];
}

int (*const leaf_users[])(int) = { static_inline_leaf, _paravirt_leaf };
