/* Stand-in for <asm/stacktrace.h> (poison-search.c): nothing is needed. */
