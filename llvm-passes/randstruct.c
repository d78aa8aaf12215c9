// SPDX-License-Identifier: GPL-2.0
/*
 * randstruct.c - the language-independent half of randstruct: its pass
 * table entry and options, the seed file, and the shuffle that gives the
 * GCC plugin's layouts.  The frontend half (randstruct-frontend.cpp) walks
 * Clang's AST and calls in here with each struct's fields.
 *
 * Every behaviour of scripts/gcc-plugins/randomize_layout_plugin.c that
 * changes a layout is reproduced, quirks included (see the comments marked
 * GCC:); the differential tests check them against the real plugin.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passport.h"
#include "randstruct.h"

static struct passport_option randstruct_options[] = {
	{ "mode", "full (default) or performance (GCC's cache-line-aware mode)" },
	{ "seed-file", "the kernel's randstruct seed file: 64 hex characters (required)" },
	{ NULL },
};

struct passport_pass passport_randstruct = {
	.name = "randstruct",
	.help = "randomize struct layouts exactly as the kernel's GCC randstruct plugin",
	.ep = PASSPORT_EP_FRONTEND,
	.options = randstruct_options,
	.run = NULL,
};

/* ---- seed ------------------------------------------------------------------ */

void passport_randstruct_read_seed(const struct passport_pass *pass,
				   const char *path, uint64_t seed[4])
{
	char buf[80];
	size_t len;
	FILE *f;

	if (!path || !*path)
		passport_fatal(pass, "needs -passport-randstruct-seed-file=F (the kernel's "
			       "scripts/basic/randstruct.seed)");
	f = fopen(path, "r");
	if (!f)
		passport_fatal(pass, "seed file %s: %s", path, strerror(errno));
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	/* the kernel's generator writes the digits and one newline */
	if (len && buf[len - 1] == '\n')
		buf[--len] = 0;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)buf[i]))
			passport_fatal(pass, "seed file %s: character %zu is not a hex digit "
				       "(expected 64 hex characters, as "
				       "scripts/gen-randstruct-seed.sh writes)", path, i + 1);
	if (len != 64)
		passport_fatal(pass, "seed file %s: %s%zu hex characters, expected 64 (as "
			       "scripts/gen-randstruct-seed.sh writes)", path,
			       len > 64 ? "more than " : "", len > 64 ? (size_t)64 : len);
	for (int i = 0; i < 4; i++) {
		char group[17];

		memcpy(group, buf + 16 * i, 16);
		group[16] = 0;
		seed[i] = strtoull(group, NULL, 16);
	}
}

/* ---- GCC's algorithm ----------------------------------------------------- */

uint32_t passport_randstruct_name_hash(const char *name)
{
	/* GCC: accumulated in the host's unsigned long (64 bits), then cut to
	 * unsigned int */
	uint64_t h = 0;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h + ((uint64_t)*c << 4) + (*c >> 4)) * 11;
	return (uint32_t)h;
}

/* Bob Jenkins' small 64-bit PRNG, seeded without the 0xf1ea5eed constant. */
struct rs_prng {
	uint64_t a, b, c, d;
};

static uint64_t rot64(uint64_t x, unsigned k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rs_next(struct rs_prng *x)
{
	uint64_t e = x->a - rot64(x->b, 7);

	x->a = x->b ^ rot64(x->c, 13);
	x->b = x->c + rot64(x->d, 37);
	x->c = x->d + e;
	x->d = e + x->a;
	return x->d;
}

static void rs_swap(size_t *order, size_t i, size_t j)
{
	size_t t = order[i];

	order[i] = order[j];
	order[j] = t;
}

static void full_shuffle(struct rs_prng *r, size_t n, size_t *order)
{
	for (size_t i = n - 1; i > 0; i--)
		rs_swap(order, i, rs_next(r) % (i + 1));
}

struct rs_group {
	size_t start, length;
};

static void performance_shuffle(struct rs_prng *r,
				const struct passport_rs_field *fields,
				size_t n, size_t *order)
{
	struct rs_group *groups = calloc(n + 1, sizeof(*groups));
	size_t ng = 0, len = 0;
	uint64_t bytes = 0;

	if (!groups)
		abort();
	/* Consecutive groups of at least 64 bytes; the rest is the last. */
	for (size_t i = 0; i < n; i++) {
		if (!len) {
			groups[ng].start = i;
			bytes = 0;
		}
		/* GCC: (unsigned long)int_size_in_bytes(), so -1 is huge */
		bytes += fields[order[i]].size;
		len++;
		if (bytes >= 64) {
			groups[ng++].length = len;
			len = 0;
		}
	}
	if (len)
		groups[ng++].length = len;
	/*
	 * GCC: when every field is >= 64 bytes the plugin reads one group past
	 * its array (undefined behaviour); here that case simply has n groups.
	 */

	/* GCC: "FIXME: this group shuffle is currently a no-op" - the groups
	 * keep their fields, but the draws happen and the order in which the
	 * groups are shuffled below changes. */
	for (size_t i = ng - 1; i > 0; i--) {
		size_t j = rs_next(r) % (i + 1);
		struct rs_group t = groups[i];

		groups[i] = groups[j];
		groups[j] = t;
	}

	for (size_t g = 0; g < ng; g++) {
		size_t start = groups[g].start;

		for (size_t index = groups[g].length - 1; index > 0; index--) {
			size_t i = start + index, j;

			/* GCC: bitfields stay put; a bitfield target wastes a draw */
			if (fields[order[i]].bitfield)
				continue;
			j = rs_next(r) % (index + 1) + start;
			if (fields[order[j]].bitfield)
				continue;
			rs_swap(order, i, j);
		}
	}
	free(groups);
}

void passport_randstruct_shuffle(const uint64_t seed[4], const char *name,
				 bool performance,
				 const struct passport_rs_field *fields,
				 size_t n, size_t *order)
{
	uint32_t h = passport_randstruct_name_hash(name);
	struct rs_prng r = {
		seed[0] ^ h, seed[1] ^ h, seed[2] ^ h, seed[3] ^ h,
	};

	if (n == 0)
		return;
	for (int i = 0; i < 30; i++)
		rs_next(&r);
	if (performance)
		performance_shuffle(&r, fields, n, order);
	else
		full_shuffle(&r, n, order);
}
