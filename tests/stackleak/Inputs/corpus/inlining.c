/* Inlining changes which frames exist: helpers folded into callers. */
#include "kernel.h"

static __always_inline int parse_one(const char *s, long *out)
{
	char tmp[40];
	int i;

	for (i = 0; i < 39 && s[i]; i++)
		tmp[i] = s[i];
	tmp[i] = 0;
	*out = produce((long)tmp[0]);
	consume(tmp, sizeof(tmp));
	return i;
}

noinline int parse_three(const char *a, const char *b, const char *c)
{
	long x, y, z;

	return parse_one(a, &x) + parse_one(b, &y) + parse_one(c, &z) + (int)(x + y + z);
}

static int helper_small(int v)
{
	char t[24];

	t[0] = v;
	consume(t, sizeof(t));
	return t[0];
}

static int helper_big(int v)
{
	char t[150];

	t[0] = v;
	consume(t, sizeof(t));
	return t[0];
}

noinline int calls_helpers(int v) { return helper_small(v) + helper_big(v + 1); }

struct file_ops { int (*open)(void *); int (*read)(void *, char *, int); };

static int my_read(void *f, char *buf, int n)
{
	char scratch[128];

	consume(f, 8);
	memcpy(scratch, buf, n < 128 ? n : 128);
	consume(scratch, sizeof(scratch));
	return n;
}

static int my_open(void *f) { consume(f, 1); return 0; }

const struct file_ops my_ops = { .open = my_open, .read = my_read };

noinline int list_walk(struct list_head *head)
{
	int n = 0;

	for (struct list_head *p = head->next; p != head; p = p->next)
		n += produce((long)p) & 1;
	return n;
}
