/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latent_entropy.h - what the latent_entropy pass (latent_entropy.c) shares
 * with its Clang half (latent_entropy-frontend.cpp): the pass table entry
 * and the translation unit's stream of compile-time random numbers.
 */
#ifndef PASSPORT_LATENT_ENTROPY_H
#define PASSPORT_LATENT_ENTROPY_H

#include <stdint.h>

#include "passport.h"

/* The string the frontend annotates __latent_entropy functions with. */
#define PASSPORT_LATENT_ENTROPY_ANNOTATION "passport.latent_entropy"

extern struct passport_pass passport_latent_entropy;

/*
 * The next number of this process's (= this translation unit's) stream,
 * GCC's get_random_const(): with -passport-latent-entropy-seed=S, GCC's
 * xorshift64 stream for -frandom-seed=S (S parsed as GCC does: a whole
 * strtoul(S, 0) number, else crc32 of the string); without it, 64-bit words
 * from /dev/urandom.  The frontend draws variable initialisers first, the
 * pass then draws for functions, as in GCC.  A bad seed is a fatal error.
 */
uint64_t passport_latent_entropy_draw(void);

#endif /* PASSPORT_LATENT_ENTROPY_H */
