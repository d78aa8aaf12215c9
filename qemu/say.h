/*
 * say.h - print one line on the guest console with a single write(2), so
 * that it does not interleave with kernel messages.  Shared by qemu/init.c
 * and bench/guest-bench.c (both static binaries of the test initramfs).
 */
#ifndef PASSPORT_SAY_H
#define PASSPORT_SAY_H

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* PREFIX, then FMT with AP, then a newline (truncated to 1 KiB); -1 when
 * the write failed. */
static inline int say_line(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "%s", prefix);

	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	return write(1, buf, n) < 0 ? -1 : 0;
}

#endif
