/*
 * poison-search.c: the series' stackleak_find_top_of_poison() against 6.1's,
 * both compiled from the kernel trees' own <linux/stackleak.h>.
 *
 * Build one object per tree with -DTREE=old or -DTREE=new, -I<tree>/include
 * and the stand-in headers of poison-search/ first on the include path, then
 * link both with an object built with -DMAIN.  The program fills a model stack with poison and other
 * words and asks both functions for the top of the poison from every high
 * end: all 2^20 patterns of a 20-word stack, then random stacks of 600 words
 * (runs of poison up to twice the search depth).  It prints the number of
 * searches and of differences, and each difference; exit status 1 if any.
 */
#ifndef MAIN
#define CONFIG_KSTACK_ERASE 1
#define CONFIG_GCC_PLUGIN_STACKLEAK 1
#include <linux/stackleak.h>
#define NAMED(tree) NAMED_(tree)
#define NAMED_(tree) tree##_find_entry
unsigned long NAMED(TREE)(unsigned long low, unsigned long high);
unsigned long NAMED(TREE)(unsigned long low, unsigned long high)
{
	return stackleak_find_top_of_poison(low, high);
}
#else
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define POISON ((unsigned long)-0xBEEF)

unsigned long old_find_entry(unsigned long low, unsigned long high);
unsigned long new_find_entry(unsigned long low, unsigned long high);

static unsigned long searches, differences;

/* Both searches over [low, high) of 'stack'; report a difference. */
static void compare(unsigned long *stack, size_t low_word, size_t high_word)
{
	unsigned long low = (unsigned long)&stack[low_word];
	unsigned long high = (unsigned long)&stack[high_word];
	unsigned long a = old_find_entry(low, high), b = new_find_entry(low, high);

	searches++;
	if (a == b)
		return;
	if (differences++ < 10)
		printf("difference: low word %zu, high word %zu: 6.1 gives word %ld, series gives word %ld\n",
		       low_word, high_word, (long)(a - (unsigned long)stack) / 8,
		       (long)(b - (unsigned long)stack) / 8);
}

int main(void)
{
	enum { SMALL = 20, LARGE = 600 };
	static unsigned long stack[LARGE];
	unsigned long pattern;
	size_t i, high;

	/* Every poison/other pattern of a small stack, every high end; word 0
	 * stands for the stack's end marker, below 'low' as in the kernel. */
	for (pattern = 0; pattern < 1UL << SMALL; pattern++) {
		for (i = 0; i < SMALL; i++)
			stack[1 + i] = pattern >> i & 1 ? POISON : i;
		for (high = 1; high <= SMALL + 1; high += 3)
			compare(stack, 1, high);
		compare(stack, 1, SMALL + 1);
	}

	/* Long stacks: runs of poison and of other words of random lengths,
	 * so that runs just under, at and over the search depth all occur. */
	srand(1);
	for (pattern = 0; pattern < 20000; pattern++) {
		i = 1;
		while (i < LARGE) {
			size_t run = (size_t)rand() % 33, end = i + run < LARGE ? i + run : LARGE;
			int poison = rand() & 1;

			for (; i < end; i++)
				stack[i] = poison ? POISON : (unsigned long)rand();
			if (!run)
				i++;
		}
		for (high = 1; high <= LARGE; high += 1 + (size_t)rand() % 40)
			compare(stack, 1, high);
		compare(stack, 1, LARGE);
	}
	printf("%lu searches, %lu differences\n", searches, differences);
	return differences != 0;
}
#endif
