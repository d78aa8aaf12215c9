/*
 * init.c: PID 1 of the passport QEMU initramfs.
 *
 * Mounts proc, sysfs, devtmpfs (/dev) and debugfs (/sys/kernel/debug), then
 * runs the actions named on the kernel command line as
 *
 *     passport.run=ACTION[,ACTION...]
 *
 * in order. Each action is framed on the console by
 *
 *     passport: begin ACTION
 *     passport: end ACTION rc=N
 *
 * (rc 0 = the action ran; the in-guest verdicts themselves are the kernel's
 * lines, e.g. LKDTM's "OK: ..."; the boot tests grep them). Finally it prints
 * "passport: done", syncs and reboots: QEMU runs with -no-reboot, so it
 * exits (tinyconfig has no ACPI, so a power-off would leave QEMU running).
 *
 * Actions:
 *   lkdtm-stackleak     LKDTM STACKLEAK_ERASING, then stack-heavy syscalls
 *                       (poll and select over many fds, a select asleep on
 *                       an empty pipe, uname, reads of
 *                       /proc files), then STACKLEAK_ERASING again
 *   lkdtm-warning       LKDTM WARNING: the kernel WARNs with a stack trace
 *                       (the unwinder's output, checked against the
 *                       instrumented functions; the kernel carries on)
 *   blocked-stacks      a child blocked in poll(), then one in select(), on
 *                       an empty pipe: print its kernel stack from
 *                       /proc/PID/stack (the unwinder walking a sleeping
 *                       task through do_sys_poll/do_select, whose large
 *                       frames carry the stackleak call)
 *   stack-depth         print /proc/self/stack_depth (KSTACK_ERASE_METRICS,
 *                       6.1: STACKLEAK_METRICS)
 *   latent-entropy      read the kernel's latent_entropy variable (address
 *                       from /proc/kallsyms, value through /proc/kcore)
 *                       before and after a batch of fork()s and print
 *                       whether it changed
 *   dmesg               print the whole kernel log buffer (the console only
 *                       shows messages up to its log level)
 *   stack-erasing-off   write 0 to /proc/sys/kernel/stack_erasing
 *   stack-erasing-on    write 1 to /proc/sys/kernel/stack_erasing
 *   modules             load every .ko file in /modules (a cpio appended to
 *                       the initramfs by tests/boot/oot-modules.sh) with
 *                       finit_module(), in name order, printing each result
 *                       (a refused module does not fail the action)
 *   bench               run /bench (bench/guest-bench.c, put into the
 *                       initramfs by qemu/mkinitramfs.sh) as a child and
 *                       wait for it: the cost benchmark of ./passport compare
 *
 * Build: gcc -static -Os -o init init.c (see qemu/mkinitramfs.sh).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "say.h"

#define MAX_FDS 200

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (say_line("passport: ", fmt, ap)) {
		/* nowhere to report it */
	}
	va_end(ap);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0) {
		say("error: open %s: %s", path, strerror(errno));
		return 1;
	}
	n = write(fd, s, strlen(s));
	if (n < 0) {
		say("error: write '%s' to %s: %s", s, path, strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

/* Read a whole (small, procfs) file into a NUL-terminated malloc'd buffer. */
static char *read_file(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (cap - n < 2) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Print a file line by line, each with a prefix. */
static int print_file(const char *path, const char *prefix)
{
	char *buf = read_file(path, NULL), *line, *save = NULL;

	if (!buf) {
		say("error: read %s: %s", path, strerror(errno));
		return 1;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		say("%s%s", prefix, line);
	free(buf);
	return 0;
}

static int lkdtm(const char *test)
{
	say("lkdtm: trigger %s", test);
	return write_file("/sys/kernel/debug/provoke-crash/DIRECT", test);
}

/* Syscalls with deep kernel stacks, to leave non-poison deep in the stack. */
static int stack_heavy_syscalls(void)
{
	struct pollfd pfd[MAX_FDS];
	int fds[MAX_FDS], nfd = 0, maxfd = -1, rc = 0, i;
	struct utsname u;
	struct timeval tv;
	fd_set rset;

	for (i = 0; i < MAX_FDS; i++) {
		fds[i] = open("/dev/null", O_RDONLY);
		if (fds[i] < 0) {
			say("error: open /dev/null #%d: %s", i, strerror(errno));
			rc = 1;
			break;
		}
		nfd++;
	}
	FD_ZERO(&rset);
	for (i = 0; i < nfd; i++) {
		pfd[i].fd = fds[i];
		pfd[i].events = POLLIN;
		if (fds[i] < FD_SETSIZE) {
			FD_SET(fds[i], &rset);
			if (fds[i] > maxfd)
				maxfd = fds[i];
		}
	}
	i = poll(pfd, nfd, 0);
	say("stack-heavy: poll over %d fds -> %d", nfd, i);
	tv.tv_sec = 0;
	tv.tv_usec = 0;
	i = select(maxfd + 1, &rset, NULL, NULL, &tv);
	say("stack-heavy: select over %d fds -> %d", nfd, i);
	for (i = 0; i < nfd; i++)
		close(fds[i]);
	/* The same select, asleep: do_select()'s frame (its poll table is on
	 * the stack) plus the scheduler's below it.  The calls above return at
	 * once and, on 6.12, reach no deeper than LKDTM's own trigger path. */
	if (pipe(fds) == 0) {
		FD_ZERO(&rset);
		FD_SET(fds[0], &rset);
		tv.tv_sec = 0;
		tv.tv_usec = 5000;
		i = select(fds[0] + 1, &rset, NULL, NULL, &tv);
		say("stack-heavy: select asleep 5 ms on an empty pipe -> %d", i);
		close(fds[0]);
		close(fds[1]);
	} else {
		rc = 1;
	}
	if (uname(&u) == 0)
		say("stack-heavy: uname %s %s", u.sysname, u.release);
	else
		rc = 1;
	for (i = 0; i < 3; i++) {
		static const char *const files[] = {
			"/proc/self/status", "/proc/meminfo", "/proc/self/maps",
		};
		size_t len = 0;
		char *b = read_file(files[i], &len);

		say("stack-heavy: read %s: %zu bytes", files[i], len);
		if (!b)
			rc = 1;
		free(b);
	}
	return rc;
}

static int act_lkdtm_stackleak(void)
{
	int rc = lkdtm("STACKLEAK_ERASING");

	rc |= stack_heavy_syscalls();
	rc |= lkdtm("STACKLEAK_ERASING");
	return rc;
}

static int act_lkdtm_warning(void)
{
	return lkdtm("WARNING");
}

/* Block in poll() or select() on the read end of an empty pipe, forever. */
static void block_in(const char *call, int fd)
{
	if (!strcmp(call, "poll")) {
		struct pollfd f = { .fd = fd, .events = POLLIN };

		poll(&f, 1, -1);
	} else {
		fd_set r;

		FD_ZERO(&r);
		FD_SET(fd, &r);
		select(fd + 1, &r, NULL, NULL, NULL);
	}
	_exit(0);
}

/* Whether task PID sleeps ("S" in /proc/PID/stat). */
static int sleeping(pid_t pid)
{
	char path[64], *stat, *end;
	int s;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	stat = read_file(path, NULL);
	end = stat ? strrchr(stat, ')') : NULL;
	s = end && end[1] == ' ' && end[2] == 'S';
	free(stat);
	return s;
}

/* The kernel stack of a child blocked in CALL, as "stack: CALL: LINE". */
static int blocked_stack(const char *call)
{
	char path[64], prefix[32];
	int p[2], rc, i;
	pid_t pid;

	if (pipe(p)) {
		say("error: pipe: %s", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		say("error: fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0)
		block_in(call, p[0]);
	for (i = 0; i < 300 && !sleeping(pid); i++)
		usleep(10000);
	usleep(20000);	/* asleep in the call itself, not on the way to it */
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	snprintf(prefix, sizeof(prefix), "stack: %s: ", call);
	rc = print_file(path, prefix);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
	return rc;
}

static int act_blocked_stacks(void)
{
	return blocked_stack("poll") | blocked_stack("select");
}

/* ---- latent_entropy through /proc/kallsyms + /proc/kcore ---------------- */

static int kallsyms_lookup(const char *name, uint64_t *addr)
{
	char *buf = read_file("/proc/kallsyms", NULL), *line, *save = NULL;
	int found = 0;

	if (!buf)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a;
		char type, sym[256];

		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name)) {
			*addr = a;
			found = 1;
			break;
		}
	}
	free(buf);
	return found ? 0 : -1;
}

static int kcore_read(uint64_t addr, void *out, size_t len)
{
	int fd = open("/proc/kcore", O_RDONLY), rc = -1;
	Elf64_Ehdr eh;
	int i;

	if (fd < 0) {
		say("latent-entropy: open /proc/kcore: %s", strerror(errno));
		return -1;
	}
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * eh.e_phentsize) != sizeof(ph))
			goto out;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr || addr + len > ph.p_vaddr + ph.p_memsz)
			continue;
		if (pread(fd, out, len, ph.p_offset + (addr - ph.p_vaddr)) == (ssize_t)len)
			rc = 0;
		break;
	}
out:
	close(fd);
	return rc;
}

static int act_latent_entropy(void)
{
	uint64_t addr = 0, before, after;
	int i;

	if (kallsyms_lookup("latent_entropy", &addr)) {
		say("latent-entropy: symbol latent_entropy not in /proc/kallsyms (plugin/pass off)");
		return 0;
	}
	if (!addr) {
		say("latent-entropy: /proc/kallsyms hides addresses (kptr_restrict)");
		return 1;
	}
	if (kcore_read(addr, &before, sizeof(before))) {
		say("latent-entropy: cannot read 0x%llx through /proc/kcore", (unsigned long long)addr);
		return 1;
	}
	for (i = 0; i < 32; i++) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		if (p > 0)
			waitpid(p, NULL, 0);
	}
	if (kcore_read(addr, &after, sizeof(after)))
		return 1;
	say("latent-entropy: latent_entropy at 0x%llx: before=0x%016llx after 32 forks=0x%016llx: %s",
	    (unsigned long long)addr, (unsigned long long)before, (unsigned long long)after,
	    before != after ? "changed" : "unchanged");
	return 0;
}

static int act_dmesg(void)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *line, *save = NULL;
	int n;

	if (size <= 0)
		size = 1 << 17;
	buf = malloc(size + 1);
	if (!buf)
		return 1;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		say("error: klogctl: %s", strerror(errno));
		free(buf);
		return 1;
	}
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		say("dmesg: %s", line);
	free(buf);
	return 0;
}

static int act_stack_depth(void)
{
	return print_file("/proc/self/stack_depth", "stack_depth: ");
}

static int act_stack_erasing_off(void)
{
	return write_file("/proc/sys/kernel/stack_erasing", "0\n");
}

static int act_stack_erasing_on(void)
{
	return write_file("/proc/sys/kernel/stack_erasing", "1\n");
}

/* A separate static binary, so init stays small and the benchmark can be
 * changed without touching the boot tests' actions. */
static int act_bench(void)
{
	char *const argv[] = { "/bench", NULL };
	int status;
	pid_t p = fork();

	if (p == 0) {
		execv(argv[0], argv);
		say("error: exec /bench: %s", strerror(errno));
		_exit(127);
	}
	if (p < 0 || waitpid(p, &status, 0) != p) {
		say("error: bench: fork/wait: %s", strerror(errno));
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int load_module(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	if (fd < 0) {
		say("modules: %s: open: %s", path, strerror(errno));
		return 1;
	}
	rc = (int)syscall(SYS_finit_module, fd, "", 0);
	if (rc != 0)
		say("modules: %s: finit_module: %s", path, strerror(errno));
	else
		say("modules: %s: loaded", path);
	close(fd);
	return rc != 0;
}

static int name_order(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int only_ko(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 3 && !strcmp(d->d_name + n - 3, ".ko");
}

static int act_modules(void)
{
	struct dirent **names;
	char path[300];
	int n = scandir("/modules", &names, only_ko, name_order);
	int failed = 0;

	if (n < 0) {
		say("modules: no /modules directory in the initramfs");
		return 1;
	}
	if (n == 0)
		say("modules: /modules has no .ko file");
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/modules/%s", names[i]->d_name);
		failed += load_module(path);
		free(names[i]);
	}
	free(names);
	/* a module the kernel refuses is a result (the tests expect some), not
	 * a failed action: only an empty or missing /modules is */
	say("modules: %d loaded, %d refused", n - failed, failed);
	return n == 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} actions[] = {
	{ "lkdtm-stackleak", act_lkdtm_stackleak },
	{ "lkdtm-warning", act_lkdtm_warning },
	{ "blocked-stacks", act_blocked_stacks },
	{ "stack-depth", act_stack_depth },
	{ "latent-entropy", act_latent_entropy },
	{ "dmesg", act_dmesg },
	{ "stack-erasing-off", act_stack_erasing_off },
	{ "stack-erasing-on", act_stack_erasing_on },
	{ "bench", act_bench },
	{ "modules", act_modules },
};

static void do_mount(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		say("warning: mount %s on %s: %s", type, dir, strerror(errno));
}

/* The value of passport.run= on the kernel command line, or NULL. */
static char *cmdline_actions(void)
{
	char *cmd = read_file("/proc/cmdline", NULL), *tok, *save = NULL, *res = NULL;

	if (!cmd)
		return NULL;
	for (tok = strtok_r(cmd, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
		if (!strncmp(tok, "passport.run=", 13))
			res = tok + 13;   /* the last one wins, as for kernel parameters */
	return res ? strdup(res) : NULL;
}

int main(void)
{
	char *run, *act, *save = NULL;
	int failed = 0;

	/* The kernel opens /dev/console for us only if the initramfs has it. */
	if (fcntl(1, F_GETFD) < 0) {
		mkdir("/dev", 0755);
		if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) == 0) {
			int fd = open("/dev/console", O_RDWR);

			if (fd >= 0) {
				dup2(fd, 0);
				dup2(fd, 1);
				dup2(fd, 2);
				if (fd > 2)
					close(fd);
			}
		}
	}
	do_mount("proc", "/proc", "proc");
	do_mount("sysfs", "/sys", "sysfs");
	do_mount("devtmpfs", "/dev", "devtmpfs");
	do_mount("debugfs", "/sys/kernel/debug", "debugfs");

	run = cmdline_actions();
	say("init: actions: %s", run ? run : "(none: pass passport.run=a,b,c)");
	for (act = run ? strtok_r(run, ",", &save) : NULL; act; act = strtok_r(NULL, ",", &save)) {
		size_t i;
		int rc = 127;

		say("begin %s", act);
		for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
			if (!strcmp(actions[i].name, act))
				break;
		if (i < sizeof(actions) / sizeof(actions[0]))
			rc = actions[i].fn();
		else
			say("error: unknown action '%s'", act);
		say("end %s rc=%d", act, rc);
		failed += rc != 0;
	}
	say("done: %d action(s) failed", failed);
	sync();
	reboot(RB_AUTOBOOT);
	say("error: reboot: %s", strerror(errno));
	return 1;   /* PID 1 exiting panics; with panic=-1 that reboots too */
}
