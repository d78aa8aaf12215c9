/* SPDX-License-Identifier: GPL-2.0 */
/*
 * randstruct.h - the C half of randstruct (randstruct.c: options, seed file,
 * GCC's shuffle) as used by the C++ frontend half (randstruct-frontend.cpp, Clang's
 * AST).  The layouts are the kernel GCC plugin's (randomize_layout_plugin.c),
 * bit for bit, so a Clang-built object gets the same layouts as a GCC-built
 * kernel with the same seed: the randstruct differential tests and the boot
 * layer's probe compare them with the real plugin's.
 */
#ifndef PASSPORT_RANDSTRUCT_H
#define PASSPORT_RANDSTRUCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct passport_pass;

/* The pass table entry (PASSPORT_EP_FRONTEND, no run()). */
extern struct passport_pass passport_randstruct;

/*
 * Read the seed file PATH: 64 hex characters (an optional trailing newline),
 * as scripts/gen-randstruct-seed.sh writes it; seed[i] = hex digits
 * 16i..16i+15.  Anything else is fatal (one line, exit 1).
 */
void passport_randstruct_read_seed(const struct passport_pass *pass,
				   const char *path, uint64_t seed[4]);

/* The GCC plugin's struct-name hash (old dcache partial_name_hash, u32). */
uint32_t passport_randstruct_name_hash(const char *name);

/* What the shuffle needs to know about one field. */
struct passport_rs_field {
	/* bytes as GCC's int_size_in_bytes(TREE_TYPE(field)) sees them
	 * (performance mode's grouping); UINT64_MAX for "unknown" (-1) */
	uint64_t size;
	bool bitfield;	/* DECL_BIT_FIELD_TYPE: declared with a width */
};

/*
 * Shuffle ORDER[0..n-1] (indices into FIELDS, initially 0..n-1 in declaration
 * order; the caller leaves a flexible tail out of n) exactly as the GCC
 * plugin does for a struct called NAME ("anonymous" if it has no tag).
 */
void passport_randstruct_shuffle(const uint64_t seed[4], const char *name,
				 bool performance,
				 const struct passport_rs_field *fields,
				 size_t n, size_t *order);

#ifdef __cplusplus
}
#endif

#endif /* PASSPORT_RANDSTRUCT_H */
