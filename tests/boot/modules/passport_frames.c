// SPDX-License-Identifier: GPL-2.0
/*
 * passport_frames.c - the second object of the two-object probe module
 * (tests/boot/oot-modules.sh, cases named *_multi; the first object is
 * passport_probe.c).
 *
 * Under LTO_CLANG the objects are bitcode and the stackleak pass gives every
 * candidate function its call to stackleak_track_stack
 * (-passport-stackleak-prove-small=off), because LTO inlines across objects
 * after the pass.  passport-finalize then runs on the module's linked object
 * (series patch 0013, cmd_ld_multi_m), where the frames are final: it must
 * keep the call in pp_frames_large() (a 256-byte buffer, over
 * track-min-size 100) and drop it from pp_frames_small() (16 bytes).
 * Both are global and noinline, so that they survive the module's
 * relocatable LTO link as functions of their own.
 */
#include <linux/compiler.h>
#include <linux/string.h>

int pp_frames_small(const char *s);
int pp_frames_large(const char *s);

noinline int pp_frames_small(const char *s)
{
	char buf[16];

	return strscpy(buf, s, sizeof(buf));
}

noinline int pp_frames_large(const char *s)
{
	char buf[256];

	return strscpy(buf, s, sizeof(buf));
}
