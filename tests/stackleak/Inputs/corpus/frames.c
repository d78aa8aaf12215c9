/* Frames around the 100-byte threshold: arrays and structs of many sizes. */
#include "kernel.h"

#define ARRAY_FN(n) noinline int array_##n(const void *src) \
	{ char buf[n]; if (copy_from_user(buf, src, sizeof(buf))) return -14; consume(buf, sizeof(buf)); return buf[0]; }

ARRAY_FN(8) ARRAY_FN(32) ARRAY_FN(48) ARRAY_FN(64) ARRAY_FN(72) ARRAY_FN(80)
ARRAY_FN(88) ARRAY_FN(92) ARRAY_FN(96) ARRAY_FN(97) ARRAY_FN(100) ARRAY_FN(104)
ARRAY_FN(112) ARRAY_FN(120) ARRAY_FN(128) ARRAY_FN(192) ARRAY_FN(256) ARRAY_FN(1024)

struct stat_like { u64 dev, ino, mode, nlink, uid, gid, rdev, size, blksize, blocks, atime, mtime, ctime; };
struct small_pair { long a, b; };

noinline int fill_stat(void *ubuf, long ino)
{
	struct stat_like st;

	memset(&st, 0, sizeof(st));
	st.ino = ino;
	st.size = produce(ino);
	return copy_to_user(ubuf, &st, sizeof(st));
}

noinline long pair_sum(long x)
{
	struct small_pair p = { produce(x), produce(x + 1) };

	consume(&p, sizeof(p));
	return p.a + p.b;
}

noinline int two_buffers(const void *a, const void *b)
{
	char x[60], y[60];

	copy_from_user(x, a, sizeof(x));
	copy_from_user(y, b, sizeof(y));
	return memcmp(x, y, sizeof(x));
}

noinline int scoped_buffers(int which, const void *src)
{
	if (which) {
		char x[80];
		copy_from_user(x, src, sizeof(x));
		consume(x, sizeof(x));
	} else {
		char y[80];
		copy_from_user(y, src, sizeof(y));
		consume(y, sizeof(y));
	}
	return 0;
}
