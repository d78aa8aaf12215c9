/*
 * erase-loops.c: user-space models of the kernel's stack erase, shared by the
 * native benchmark (bench/erase-native.c) and the in-guest benchmark
 * (bench/guest-bench.c).
 *
 * The model: a buffer [low, high) stands in for a thread stack that grows
 * down from high. Everything below the low-water mark `lowest` still holds
 * the poison word; [lowest, high) was used since the last erase. An erase
 * (1) walks down from `lowest` until it has seen ERASE_SEARCH_WORDS poison
 * words in a row (the boundary of the used region; the tracked low-water
 * mark can be stale by a frame), then (2) writes the poison word into every
 * word from that boundary up to `high`. Step (2) is where the time goes; it
 * writes the same number of bytes as a memset of the used depth, which is
 * why memset is the yardstick.
 *
 * Two ways to do step (2):
 *   erase_words  one 8-byte store per iteration, the shape of 6.1's C loop
 *                (the kernel's erase on other architectures). This file is compiled like kernel code (no SSE/AVX,
 *                -O2: see qemu/mkinitramfs.sh and bench/compare.sh), so the
 *                compiler cannot turn it into vector stores either.
 *   erase_unrolled  the same stores, four per iteration (fewer loop
 *                instructions; still 8-byte general-register stores)
 *   erase_stosq  `rep stosq` with the poison in rax, after the unrolled
 *                search of step (1): the x86-64 erase of the series
 *                (kernel-patches 0010 and 0011; the kernel's own memset is
 *                `rep stosb`).
 * The other two search word by word, as 6.1 does.
 *
 * Written for passport from the description of the algorithm, not from the
 * kernel source.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "erase-loops.h"

/* Step (1): the lowest address from which up everything must be rewritten. */
static uint64_t *erase_boundary(uint64_t *low, uint64_t *lowest)
{
	uint64_t *p = lowest;
	unsigned run = 0;

	while (p > low && run < ERASE_SEARCH_WORDS) {
		p--;
		run = *p == ERASE_POISON ? run + 1 : 0;
	}
	/* p is the bottom of the poison run (or low): the run itself is
	 * already poison, start above it. */
	return run == ERASE_SEARCH_WORDS ? p + ERASE_SEARCH_WORDS : p;
}

/* Step (1) as the series does it (0011), same result: step over words that
 * are not poison, then test the whole run below in one unrolled sequence of
 * compares (the word loop above costs several instructions a word). The word
 * loop finishes near low. */
static int poisoned_below(const uint64_t *p)
{
	int i;

#pragma GCC unroll 16
	for (i = 1; i <= ERASE_SEARCH_WORDS; i++)
		if (p[-i] != ERASE_POISON)
			return 0;
	return 1;
}

static uint64_t *erase_boundary_unrolled(uint64_t *low, uint64_t *lowest)
{
	uint64_t *p = lowest;

	while (p - low >= ERASE_SEARCH_WORDS) {
		if (p[-1] != ERASE_POISON) {
			p--;
			continue;
		}
		if (poisoned_below(p))
			return p;
		do
			p--;
		while (*p == ERASE_POISON);
	}
	return erase_boundary(low, p);
}

size_t erase_words(uint64_t *low, uint64_t *lowest, uint64_t *high)
{
	uint64_t *p = erase_boundary(low, lowest), *start = p;

	while (p < high)
		*p++ = ERASE_POISON;
	/* the asm keeps the stores: the buffer is not read again in C */
	__asm__ volatile("" ::: "memory");
	return (size_t)(high - start) * sizeof(*p);
}

size_t erase_unrolled(uint64_t *low, uint64_t *lowest, uint64_t *high)
{
	uint64_t *p = erase_boundary(low, lowest), *start = p;

	/* the odd words first, so the loop below runs on whole groups of four */
	while ((size_t)(high - p) % 4)
		*p++ = ERASE_POISON;
	for (; p < high; p += 4) {
		p[0] = ERASE_POISON;
		p[1] = ERASE_POISON;
		p[2] = ERASE_POISON;
		p[3] = ERASE_POISON;
	}
	__asm__ volatile("" ::: "memory");
	return (size_t)(high - start) * sizeof(*p);
}

size_t erase_stosq(uint64_t *low, uint64_t *lowest, uint64_t *high)
{
	uint64_t *p = erase_boundary_unrolled(low, lowest), *start = p;
	size_t n = (size_t)(high - p);

	__asm__ volatile("rep stosq"
			 : "+D"(p), "+c"(n)
			 : "a"(ERASE_POISON)
			 : "memory");
	return (size_t)(high - start) * sizeof(*p);
}

/* The kernel's memset shape: byte-granular `rep stosb`. */
void memset_stosb(void *dst, int c, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(c) : "memory");
}

/* Through a pointer the compiler cannot see through: the library call, not
 * folded, inlined or dropped as a dead store. */
static void *(*volatile library_memset)(void *, int, size_t) = memset;

void erase_variant(int v, uint64_t *low, uint64_t *lowest, uint64_t *high)
{
	size_t bytes = (size_t)(high - lowest) * sizeof(*high);

	switch (v) {
	case ERASE_GLIBC_MEMSET: library_memset(lowest, 0x2a, bytes); break;
	case ERASE_MEMSET_STOSB: memset_stosb(lowest, 0x2a, bytes); break;
	case ERASE_WORDS: erase_words(low, lowest, high); break;
	case ERASE_STOSQ: erase_stosq(low, lowest, high); break;
	case ERASE_UNROLLED: erase_unrolled(low, lowest, high); break;
	}
	__asm__ volatile("" ::: "memory");
}
