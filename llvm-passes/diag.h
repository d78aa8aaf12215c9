/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diag.h - the one-line error that stops the compiler, for the loader
 * (loader.c, which has no LLVM) and the passes (passport_fatal in
 * helpers.c) alike: "passport: error: [WHO: ]MESSAGE", exit status 1.
 */
#ifndef PASSPORT_DIAG_H
#define PASSPORT_DIAG_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static inline _Noreturn void passport_vdie(const char *who, const char *fmt, va_list ap)
{
	fputs("passport: error: ", stderr);
	if (who)
		fprintf(stderr, "%s: ", who);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
	/*
	 * The compiler is mid-pipeline, or inside dlopen: running its
	 * destructors could crash over the half-built state, so just stop.
	 */
	_Exit(1);
}

#endif
