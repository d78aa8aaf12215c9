// SPDX-License-Identifier: GPL-2.0
/*
 * passes.c - the table of passport's passes, in the order they are
 * scheduled at a shared extension point.
 */
#include "passport.h"

extern struct passport_pass passport_stackleak;
extern struct passport_pass passport_latent_entropy;
extern struct passport_pass passport_randstruct;
extern struct passport_pass passport_structleak;

struct passport_pass *const passport_passes[] = {
	&passport_stackleak,
	&passport_latent_entropy,
	&passport_randstruct,
	&passport_structleak,
	NULL,
};
