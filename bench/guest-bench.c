/*
 * guest-bench.c: the in-guest cost benchmark of ./passport compare.
 *
 * Runs as /bench in the passport initramfs (qemu/init.c action "bench" forks
 * and execs it). It times system calls of different kernel stack depth:
 *
 *   getpid   shallowest syscall           uname    copies a struct out
 *   poll     poll() over 200 fds          select   select() over 200 fds
 *   procfs   openat+read+close of /proc/self/stat
 *   fork     fork() + waitpid() of a child that exits at once
 *
 * each as SAMPLES samples of BATCH calls (per-call time = sample / BATCH),
 * after one discarded warm-up batch, and prints min / median / max per call.
 * When the kernel has /proc/sys/kernel/stack_erasing (stackleak with
 * CONFIG_KSTACK_ERASE_RUNTIME_DISABLE, 6.1's STACKLEAK_RUNTIME_DISABLE) every op is measured with erasing on
 * (phase "on") and off (phase "off"), the two taking turns sample by sample
 * in this boot; otherwise once (phase "none"). With /proc/self/stack_depth (CONFIG_KSTACK_ERASE_METRICS) it records
 * how deep each op's erase went, and then times, in user space, memset and
 * the erase models of bench/erase-loops.c over that many bytes: the
 * physical limit of an erase of that depth.
 *
 * Time is CLOCK_MONOTONIC. Under QEMU -icount shift=0 (qemu/boot.sh --icount)
 * guest time counts instructions (1 ns each), so the numbers are
 * deterministic and only ratios between them mean anything.
 *
 * Options (kernel command line, read from /proc/cmdline):
 *   passport.bench_samples=N   samples per op (default per op, 5..1000)
 *   passport.bench_profile=OP  instead of the above: the profile window of
 *                              qemu/profile.sh. After one warm-up batch of
 *                              OP: "profile start", 2 s of sleep (the host
 *                              turns QEMU's execution log on), getppid(),
 *                              passport.bench_calls=N calls of OP (default
 *                              20), getppid(), "profile stop", 1 s of sleep
 *                              (the host turns the log off). The two
 *                              getppid() calls, which nothing else makes,
 *                              mark the window's ends in QEMU's log.
 * stack_erasing is only switched when the command line has passport.run=
 * (the passport guest); elsewhere, e.g. on a host, only phase "none" runs.
 *
 * Output, one line each (parsed by bench/report.py):
 *   passport: bench: info KEY=VALUE...
 *   passport: bench: result phase=P op=O samples=N batch=B min_ns=X median_ns=X max_ns=X
 *   passport: bench: depth phase=P op=O erase_depth=BYTES
 *   passport: bench: profile start op=O calls=N
 *   passport: bench: profile stop op=O calls=N
 *   passport: bench: done
 * Exit status 0 when every op ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "erase-loops.h"
#include "../qemu/say.h"

#define NFDS 200
#define MAX_SAMPLES 1000
#define STACK_BYTES 16384   /* x86-64 THREAD_SIZE: the deepest erase */

static int nfds, fds[NFDS], maxfd;
static int sample_override;
static int failures;

static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (say_line("passport: bench: ", fmt, ap))
		failures++;
	va_end(ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* ---- the ops: each runs its syscall(s) n times, returns 0 on success ---- */

static int op_getpid(int n)
{
	while (n--)
		syscall(SYS_getpid);   /* not glibc's getpid(): no caching */
	return 0;
}

static int op_uname(int n)
{
	struct utsname u;

	while (n--)
		if (uname(&u))
			return -1;
	return 0;
}

static int op_poll(int n)
{
	struct pollfd p[NFDS];
	int i;

	for (i = 0; i < nfds; i++) {
		p[i].fd = fds[i];
		p[i].events = POLLIN;
	}
	while (n--)
		if (poll(p, nfds, 0) < 0)
			return -1;
	return 0;
}

static int op_select(int n)
{
	while (n--) {
		struct timeval tv = { 0, 0 };
		fd_set r;
		int i;

		FD_ZERO(&r);
		for (i = 0; i < nfds; i++)
			FD_SET(fds[i], &r);
		if (select(maxfd + 1, &r, NULL, NULL, &tv) < 0)
			return -1;
	}
	return 0;
}

static int op_procfs(int n)
{
	char buf[1024];

	while (n--) {
		int fd = open("/proc/self/stat", O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
			return -1;
		close(fd);
	}
	return 0;
}

static int op_fork(int n)
{
	while (n--) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		if (p < 0 || waitpid(p, NULL, 0) != p)
			return -1;
	}
	return 0;
}

static const struct op {
	const char *name;
	int (*fn)(int n);
	int batch, samples;
} ops[] = {
	{ "getpid", op_getpid, 100, 51 },
	{ "uname", op_uname, 50, 51 },
	{ "poll", op_poll, 10, 51 },
	{ "select", op_select, 10, 51 },
	{ "procfs", op_procfs, 10, 51 },
	{ "fork", op_fork, 2, 51 },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

/* ---- statistics ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *phase, const char *op, double *t, int n, int batch)
{
	qsort(t, n, sizeof(*t), cmp_double);
	out("result phase=%s op=%s samples=%d batch=%d min_ns=%.1f median_ns=%.1f max_ns=%.1f",
	    phase, op, n, batch, t[0], t[n / 2], t[n - 1]);
}

static int samples_for(int dflt)
{
	int n = sample_override ? sample_override : dflt;

	return n < 5 ? 5 : n > MAX_SAMPLES ? MAX_SAMPLES : n;
}

/* ---- /proc helpers ------------------------------------------------------- */

static int write_sysctl(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, v, strlen(v)) == (ssize_t)strlen(v);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * The depth of the erase that ended the previous syscall: the "previous
 * stack depth" of /proc/self/stack_depth, read with one pread() right after
 * the op (an open() in between would be the previous syscall instead).
 */
static long erase_depth(int fd)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	const char *p;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "previous stack depth:");
	return p ? strtol(p + 21, NULL, 10) : -1;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Median of 11 readings of op's erase depth. */
static long op_erase_depth(const struct op *o, int fd)
{
	long d[11];
	int i;

	for (i = 0; i < 11; i++) {
		o->fn(1);
		d[i] = erase_depth(fd);
	}
	qsort(d, 11, sizeof(d[0]), cmp_long);
	return d[5];
}

/* What follows KEY on the kernel command line, or NULL. */
static const char *cmdline_find(const char *key)
{
	static char buf[4096];
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n;
	char *p;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	p = strstr(buf, key);
	return p ? p + strlen(key) : NULL;
}

static long cmdline_long(const char *key)
{
	const char *v = cmdline_find(key);

	return v ? strtol(v, NULL, 10) : 0;
}

static int cmdline_has(const char *key)
{
	return cmdline_find(key) != NULL;
}

static void info_file(const char *key, const char *path)
{
	char buf[128] = "absent";
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		close(fd);
	}
	out("info %s=%s", key, buf);
}

/* ---- phases ---------------------------------------------------------------- */

static void run_op(const char *phase, const struct op *o)
{
	double t[MAX_SAMPLES];
	int n = samples_for(o->samples), i;

	if (o->fn(o->batch)) {   /* warm-up, discarded */
		out("error op=%s: %s", o->name, strerror(errno));
		failures++;
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t t0 = now_ns();

		o->fn(o->batch);
		t[i] = (double)(now_ns() - t0) / o->batch;
	}
	report(phase, o->name, t, n, o->batch);
}

/*
 * With erasing switchable, on and off take turns sample by sample (and which
 * goes first alternates), so a slow drift of the guest's state over the run
 * (page allocator, pid numbers, ...) cannot masquerade as erase cost.
 */
static void run_op_on_off(const struct op *o, const char *erasing)
{
	static double t[2][MAX_SAMPLES];
	static const char *const phase[2] = { "on", "off" };
	int n = samples_for(o->samples), i, k;

	for (k = 0; k < 2; k++) {   /* warm-up in both modes, discarded */
		if (write_sysctl(erasing, k ? "0\n" : "1\n") || o->fn(o->batch)) {
			out("error op=%s: %s", o->name, strerror(errno));
			failures++;
			return;
		}
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < 2; k++) {
			int m = (i + k) % 2;
			uint64_t t0;

			if (write_sysctl(erasing, m ? "0\n" : "1\n"))
				failures++;
			t0 = now_ns();
			o->fn(o->batch);
			t[m][i] = (double)(now_ns() - t0) / o->batch;
		}
	}
	if (write_sysctl(erasing, "1\n"))
		failures++;
	for (k = 0; k < 2; k++)
		report(phase[k], o->name, t[k], n, o->batch);
}

static void run_all(const char *erasing, long *depths)
{
	int depth_fd = open("/proc/self/stack_depth", O_RDONLY);
	size_t i;

	for (i = 0; i < NOPS; i++) {
		if (erasing)
			run_op_on_off(&ops[i], erasing);
		else
			run_op("none", &ops[i]);
		/* erasing is on again here: the depth of an erasing exit */
		if (depth_fd >= 0 && erasing) {
			depths[i] = op_erase_depth(&ops[i], depth_fd);
			out("depth phase=on op=%s erase_depth=%ld", ops[i].name, depths[i]);
		}
	}
	if (depth_fd >= 0)
		close(depth_fd);
}

/* User space, same depth: memset (glibc and rep stosb) and the erase models. */
static void run_user_limits(const long *depths)
{
	static uint64_t stack[STACK_BYTES / 8];
	uint64_t *high = stack + STACK_BYTES / 8;
	double t[MAX_SAMPLES];
	int n = samples_for(21), batch = 100;
	size_t i, v;

	for (i = 0; i < STACK_BYTES / 8; i++)
		stack[i] = ERASE_POISON;
	for (i = 0; i < NOPS; i++) {
		long d = depths[i] & ~7L;
		uint64_t *lowest;

		if (d <= 0 || d > STACK_BYTES)
			continue;
		lowest = high - d / 8;
		for (v = 0; v < 5; v++) {
			static const char *const names[] = { "memset", "memset-stosb", "erase-words", "erase-stosq",
							     "erase-unrolled" };
			char name[64];
			int s, k;

			for (s = 0; s < n; s++) {
				uint64_t t0 = now_ns();

				for (k = 0; k < batch; k++) {
					erase_variant(v, stack, lowest, high);
				}
				t[s] = (double)(now_ns() - t0) / batch;
			}
			/* the memsets overwrote the poison: restore it for the next op */
			for (k = 0; k < STACK_BYTES / 8; k++)
				stack[k] = ERASE_POISON;
			snprintf(name, sizeof(name), "%s@%s", names[v], ops[i].name);
			qsort(t, n, sizeof(*t), cmp_double);
			out("result phase=user op=%s samples=%d batch=%d min_ns=%.1f median_ns=%.1f max_ns=%.1f bytes=%ld",
			    name, n, batch, t[0], t[n / 2], t[n - 1], d);
		}
	}
}

static void open_fds(void)
{
	for (nfds = 0; nfds < NFDS; nfds++) {
		fds[nfds] = open("/dev/null", O_RDONLY);
		if (fds[nfds] < 0 || fds[nfds] >= FD_SETSIZE)
			break;
		if (fds[nfds] > maxfd)
			maxfd = fds[nfds];
	}
}

static const struct op *op_named(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < NOPS; i++)
		if (strlen(ops[i].name) == len && !strncmp(ops[i].name, name, len))
			return &ops[i];
	return NULL;
}

/* The profile window of passport.bench_profile=OP (see the header). */
static void run_profile(const char *spec)
{
	const struct op *o = op_named(spec, strcspn(spec, " \n"));
	long calls = cmdline_long("passport.bench_calls=");

	if (!o) {
		out("error: passport.bench_profile=%.*s: no such op", (int)strcspn(spec, " \n"), spec);
		failures++;
		return;
	}
	if (calls <= 0)
		calls = 20;
	if (o->fn(o->batch)) {   /* warm-up, outside the window */
		out("error op=%s: %s", o->name, strerror(errno));
		failures++;
		return;
	}
	out("profile start op=%s calls=%ld", o->name, calls);
	sleep(2);
	syscall(SYS_getppid);
	if (o->fn((int)calls))
		failures++;
	syscall(SYS_getppid);
	out("profile stop op=%s calls=%ld", o->name, calls);
	sleep(1);
}

int main(void)
{
	static const char erasing[] = "/proc/sys/kernel/stack_erasing";
	long depths[NOPS] = { 0 };
	/* Only in the passport guest (its command line has passport.run=): run
	 * anywhere else, e.g. by tests/report on a host, never touch a sysctl. */
	int in_guest = cmdline_has("passport.run=");
	int has_erasing = in_guest && access(erasing, W_OK) == 0;

	sample_override = (int)cmdline_long("passport.bench_samples=");
	open_fds();
	info_file("clocksource", "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	info_file("stack_erasing", erasing);
	info_file("randomize_va_space", "/proc/sys/kernel/randomize_va_space");
	out("info fds=%d ops=%zu in_guest=%d", nfds, NOPS, in_guest);
	if (in_guest && cmdline_find("passport.bench_profile=")) {
		run_profile(cmdline_find("passport.bench_profile="));
	} else if (has_erasing) {
		run_all(erasing, depths);
		run_user_limits(depths);
	} else {
		run_all(NULL, depths);
	}
	out("done failures=%d", failures);
	return failures != 0;
}
