// SPDX-License-Identifier: GPL-2.0
/*
 * passport_probe.c - an out-of-tree module for the passport boot tests.
 *
 * Loaded into a test kernel (qemu/init.c, action insmod=passport_probe),
 * it prints which compiler built it and then proves, at run time, that
 * its layouts of randomized kernel structs (randstruct) are the kernel's,
 * by handing data across the module/kernel boundary in both directions:
 *
 *   task_struct  the module writes current->comm through its own layout;
 *                the kernel reads it back with __get_task_comm().  It also
 *                compares current->pid with the kernel's __task_pid_nr_ns().
 *   file_operations  the module registers a debugfs file with its own
 *                fops; the kernel's VFS calls ->open/->read_iter through the
 *                kernel's layout when the module reads the file back with
 *                filp_open() + kernel_read().  A layout mismatch calls the
 *                wrong member (or none) and the text does not come back.
 *
 * Each check prints "CHECK: ok|FAIL ...", then a final
 * "randstruct layouts agree with the kernel" or
 * "randstruct layouts DIFFER from the kernel"; the module
 * stays loaded (the guest loads it once per boot).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uio.h>

#define PROBE_TEXT "passport-probe: read through the kernel's file_operations\n"

/* kernel_read() wants ->read_iter (and no ->read).  The text goes through
 * a 128-byte buffer on the stack: a frame over track-min-size (100) outside
 * .init.text, which stackleak tracks with either compiler, so a module built
 * with the passes has a real tracking call (oot-modules.sh checks it). */
static ssize_t probe_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	char buf[128];
	size_t len = sizeof(PROBE_TEXT) - 1, n;

	if (iocb->ki_pos >= len)
		return 0;
	memcpy(buf, PROBE_TEXT, len);
	n = copy_to_iter(buf + iocb->ki_pos, len - iocb->ki_pos, to);
	iocb->ki_pos += n;
	return n;
}

static const struct file_operations probe_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read_iter = probe_read_iter,
	.llseek = default_llseek,
};

static bool check_task_struct(void)
{
	char saved[TASK_COMM_LEN], seen[TASK_COMM_LEN];
	pid_t kernel_pid = __task_pid_nr_ns(current, PIDTYPE_PID, NULL);
	bool ok;

	memcpy(saved, current->comm, sizeof(saved));
	strscpy(current->comm, "pp-probe", sizeof(current->comm));
	__get_task_comm(seen, sizeof(seen), current);
	memcpy(current->comm, saved, sizeof(saved));

	ok = !strcmp(seen, "pp-probe") && current->pid == kernel_pid;
	pr_info("task_struct: %s (comm written by the module, read by the kernel: \"%s\"; pid %d, kernel says %d; offsetof comm %zu, pid %zu)\n",
		ok ? "ok" : "FAIL", seen, current->pid, kernel_pid,
		offsetof(struct task_struct, comm), offsetof(struct task_struct, pid));
	return ok;
}

static bool check_file_operations(void)
{
	struct dentry *d;
	struct file *f;
	char buf[sizeof(PROBE_TEXT)] = "";
	loff_t pos = 0;
	ssize_t n = -1;
	bool ok;

	/* _unsafe: no read proxy; debugfs's open installs these fops in the file */
	d = debugfs_create_file_unsafe(KBUILD_MODNAME, 0444, NULL, NULL, &probe_fops);
	if (IS_ERR(d)) {
		pr_info("file_operations: FAIL (debugfs_create_file: %ld)\n", PTR_ERR(d));
		return false;
	}
	f = filp_open("/sys/kernel/debug/" KBUILD_MODNAME, O_RDONLY, 0);
	if (!IS_ERR(f)) {
		n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
		filp_close(f, NULL);
	}
	debugfs_remove(d);

	ok = n == sizeof(PROBE_TEXT) - 1 && !strcmp(buf, PROBE_TEXT);
	pr_info("file_operations: %s (kernel_read returned %zd; offsetof open %zu, read_iter %zu)\n",
		ok ? "ok" : "FAIL", n, offsetof(struct file_operations, open),
		offsetof(struct file_operations, read_iter));
	return ok;
}

/*
 * Twin structs (the idea of upstream's later randstruct KUnit test): the
 * same members, one randomized, one not.  With randstruct on, some members
 * must move; this shows the module's compiler really randomized.
 */
#define TWIN_MEMBERS int a; long b; char c; void *d; short e; unsigned long f; int g; char *h;
struct twin_plain { TWIN_MEMBERS } __no_randomize_layout;
struct twin_random { TWIN_MEMBERS } __randomize_layout;

#define TWIN_MOVED(m) (offsetof(struct twin_plain, m) != offsetof(struct twin_random, m))

static void report_twins(void)
{
	int moved = TWIN_MOVED(a) + TWIN_MOVED(b) + TWIN_MOVED(c) + TWIN_MOVED(d) +
		    TWIN_MOVED(e) + TWIN_MOVED(f) + TWIN_MOVED(g) + TWIN_MOVED(h);

	pr_info("randstruct twins: %d of 8 members moved\n", moved);
}

static int __init probe_init(void)
{
	bool ok;

	pr_info("built by %s\n", __VERSION__);
	report_twins();
	ok = check_task_struct() && check_file_operations();
	pr_info("randstruct layouts %s the kernel\n",
		ok ? "agree with" : "DIFFER from");
	return 0;
}

module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("passport: out-of-tree module probe of randstruct layouts");
