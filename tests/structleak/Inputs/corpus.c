/*
 * Differential corpus: every local declaration the GCC structleak plugin
 * (gcc-11) and passport might zero.  gcc-diff.py compares, per mode, the
 * FILE:LINE:COL of "will be forcibly initialized" on each side.  A line
 * marked `DIFF(mode[,mode]): reason` is an intended difference in those
 * modes; any other disagreement fails the test.
 */
#define __user __attribute__((user))
#include <string.h>

struct uptr { int len; char __user *buf; };
struct nested { long x; struct uptr inner; };
struct via_array { long x; struct uptr many[3]; };
union with_user { long x; struct uptr u; };
struct via_pointer { long x; struct uptr *p; };
struct plain { char c; long l; };
union un { int i; char b[12]; };
struct big { long a[8]; };

extern void sink(void *);
extern void *global_ptr;
extern struct big make_big(void);
extern struct plain make_plain(void);
extern long take(struct plain p);

long user_types(void)
{
	struct uptr a;
	struct nested b;
	struct via_array c;
	union with_user d;
	struct via_pointer e;
	struct uptr arr[2];
	a.len = b.x = c.x = d.x = e.x = arr[0].len = 1;
	return a.len + b.x + c.x + d.x + e.x + arr[1].len;
}

long escapes(int n)
{
	struct plain p;
	union un u;
	struct plain q;
	struct plain r;
	long l;
	char buf[32];
	void *ptr;
	struct plain many[3];
	int unused_addr;
	sink(&p);
	global_ptr = &u;
	struct plain *qp = &q;
	qp->c = 1;
	sink(&r.l);
	sink(&l);
	sink(buf);
	sink(&ptr);
	sink(many);
	return p.c + u.i + q.c + l + n + (&unused_addr == global_ptr);
}

long no_escape(struct plain *src)
{
	struct plain a, b;
	union un c;
	long x = 3;
	a = *src;
	b = a;
	c.i = 4;
	return b.l + x + c.i + take(a);
}

long initialisers(int n)
{
	struct plain zero = {};
	struct plain part = { .c = 1 };
	struct plain dyn = { .c = n, .l = n };
	struct big bz = {};
	struct big bconst = { { 1, 2, 3, 4, 5, 6, 7, 8 } }; // DIFF(byref,byref-all): GCC copies from .LC0 (not a CONSTRUCTOR); Clang's full-size memcpy writes every byte
	long sc = 5;
	char str[16] = "abc";
	int arr[4] = { 1 };
	sink(&zero); sink(&part); sink(&dyn); sink(&bz); sink(&bconst);
	sink(&sc); sink(str); sink(arr);
	if (n) {
		struct plain later = { .c = 2 }; // DIFF(byref,byref-all): GCC only checks the entry block for `= {...}`
		sink(&later);
	}
	return 0;
}

long returned(void)
{
	struct big b; /* sret: the address goes to make_big() on both sides */
	struct plain p;
	b = make_big();
	p = make_plain();
	return b.a[0] + p.l;
}

long builtin_copy(const struct plain *src)
{
	struct plain m; /* memcpy(&m, ...): not addressable for either */
	memcpy(&m, src, sizeof(m));
	return m.l;
}

long loops(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++) {
		struct plain p;
		sink(&p);
		s += p.c;
	}
	while (n--) {
		union un u;
		global_ptr = &u;
		s += u.i;
	}
	return s;
}

static inline long helper(void)
{
	struct plain h;
	sink(&h);
	return h.l;
}

long calls_helper(void) { return helper() + helper(); }

long jumps(int x)
{
	if (x)
		goto skip;
	struct plain p;
	p.c = 1;
skip:
	sink(&p);
	return p.c;
}

long user_and_escape(void)
{
	struct uptr v;
	sink(&v);
	return v.len;
}
