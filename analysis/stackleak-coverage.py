#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stackleak-coverage.py - static stackleak check of a built kernel.

usage: stackleak-coverage.py [--track-min-size N] [--list FILE]
                             [--list-untracked FILE] BUILD_DIR
       stackleak-coverage.py --track-min-size N --objects OBJ...

On a Clang kernel (objects with .stack_sizes, from -fstack-size-section):
every function linked into BUILD_DIR/vmlinux whose final frame is at least
CONFIG_KSTACK_ERASE_TRACK_MIN_SIZE (6.1 and older build directories:
CONFIG_STACKLEAK_TRACK_MIN_SIZE) must call stackleak_track_stack (or its alias
__sanitizer_cov_stack_depth, the callee of Clang's own stack-depth tracking,
KSTACK_ERASE_SANCOV), outside the exclusions below.  The final frame is passport-finalize's (and GCC's
get_frame_size()) figure: the .stack_sizes value minus 8 bytes per
callee-saved register push in the prologue.

Where the numbers come from.  The linked vmlinux keeps .stack_sizes, but it
cannot be read by address alone: the entry of a weak definition that another
object overrides resolves to the strong definition's address (two entries,
two sizes, one address), and entries of some discarded or .exit.text
functions resolve to addresses inside other functions.  So the frames,
sections and call sites are read from the objects the linker put into
vmlinux (every member of vmlinux.a, and the members of the lib.a archives
that vmlinux pulled in: all their global symbols are defined in vmlinux),
relocations resolved as passport-finalize does; then vmlinux itself is
disassembled and its calls to stackleak_track_stack must be exactly the
objects' calls, function by function.

Exclusions, each derived from the build, never from a list of functions:
  section      the function's input section is one the pass (like the GCC
               plugin) skips: .init.text .devinit.text .cpuinit.text
               .meminit.text .noinstr.text .entry.text .head.text - code
               that runs before or outside the task stack or must not be
               instrumented
  opted-out    its object was compiled with -passport-stackleak-disable or
               -fno-sanitize-coverage=stack-depth (DISABLE_STACKLEAK_PLUGIN
               in its Makefile; in vmlinux: kernel/stackleak.c, the
               tracker's own file)
  no-pass      its object's Kbuild command has neither -passport-stackleak
               nor -fsanitize-coverage=stack-depth (e.g.
               an objcopy of another object); listed, as it is a hole if
               unintended
  tracker      stackleak_track_stack itself (and its alias)
  leaf         GCC's leaf rules: a static function declared inline (the
               source or one of its headers, from the .o.cmd deps or, for
               a loose object, the compiler's -MD file OBJ.d, says
               "inline" before the name) that makes no call, or a
               _paravirt_* function that makes no call
  no-frame     no .stack_sizes entry: assembly (.S objects, top-level asm
               in C files such as static-call trampolines) - not compiled
               code, nothing for the pass to do

On a GCC kernel (no .stack_sizes) it reports the counts only.
With --objects, the given relocatable objects are checked the same way
(no Kbuild command lines: no opted-out/no-pass exclusions, no vmlinux).

The rule (frames, exclusions, what counts as untracked) is kfacts.py's
stackleak_coverage(), which ./passport compare's report also applies
(bench/collect.py static): this program prints its verdict.

Output: PASS:/FAIL:/INFO: lines; exit 1 on any FAIL, 2 on usage errors.
--list FILE writes the tracked functions, one "name object section frame"
line each; --list-untracked FILE the untracked ones (the FAIL-DETAIL lines'
functions) the same way.
"""

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kelf  # noqa: E402
import kfacts  # noqa: E402
from kfacts import TRACKER  # noqa: E402

from checks import report  # noqa: E402
import checks  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?")
    ap.add_argument("--track-min-size", type=int)
    ap.add_argument("--objects", nargs="+")
    ap.add_argument("--list")
    ap.add_argument("--list-untracked")
    ap.add_argument("--name")
    a = ap.parse_args()
    if bool(a.build) == bool(a.objects):
        ap.error("give BUILD_DIR or --objects")

    build = a.build
    cfg = kelf.read_config(build) if build else {}
    name = a.name or (os.path.basename(os.path.normpath(build)) if build else "objects")
    enabled = kfacts.stackleak_enabled(cfg)
    tms = a.track_min_size
    if tms is None and build:
        tms = kfacts.track_min_size(build)
    if tms is None and not (build and not enabled):
        ap.error("no CONFIG_KSTACK_ERASE_TRACK_MIN_SIZE (6.1: CONFIG_STACKLEAK_TRACK_MIN_SIZE): give --track-min-size")

    objs, vm = kfacts.linked_objects(build) if build else (a.objects, None)
    cov = kfacts.stackleak_coverage(objs, tms, build)
    rel = (lambda o: os.path.relpath(o, build)) if build else (lambda o: o)

    if build and not enabled:
        report(not cov.tracked, "stackleak-coverage: %s: stackleak off, %d functions call %s" % (
            name, len(cov.tracked), TRACKER))
        write_list(a.list, cov.tracked, rel)
        return checks.status()
    if len(cov.noframe) == len(cov.funcs):
        # GCC kernel (or a Clang build without -fstack-size-section).
        bysec = collections.Counter(f.section for f in cov.tracked)
        print("INFO: stackleak-coverage: %s: no .stack_sizes (GCC kernel?): frames unknown; "
              "%d functions call %s (%d calls; %s)" % (
                  name, len(cov.tracked), TRACKER, sum(f.calls for f in cov.tracked),
                  ", ".join("%s %d" % kv for kv in sorted(bysec.items())) or "none"))
        report(len(cov.tracked) > 0, "stackleak-coverage: %s: %d functions tracked (frames not "
               "checkable without .stack_sizes)" % (name, len(cov.tracked)))
        if vm is not None:
            check_linked(name, vm, cov.tracked)
        write_list(a.list, cov.tracked, rel)
        return checks.status()

    print("INFO: stackleak-coverage: %s: %d objects, %d functions, %d with a .stack_sizes frame, "
          "%d without (assembly: %s)" % (
              name, len(objs), len(cov.funcs), len(cov.funcs) - len(cov.noframe), len(cov.noframe),
              ", ".join(sorted({rel(f.obj) for f in cov.noframe}))[:400]))
    for why, fs in sorted(cov.excluded.items()):
        print("INFO: stackleak-coverage: %s: excluded (%s): %s" % (
            name, why, ", ".join("%s() frame %d" % (f.name, f.frame) for f in fs)))
    for f, call in cov.untracked:
        print("FAIL-DETAIL: %s: %s() in %s [%s]: frame %d (.stack_sizes %d - 8 x %d pushes) >= %d, "
              "no call to %s%s" % (name, f.name, rel(f.obj), f.section, f.frame, f.stack_size,
                                   f.pushes, tms, TRACKER,
                                   "; makes calls: " + call if call else "; leaf, not inline"))
    nexcl = sum(len(v) for v in cov.excluded.values())
    report(not cov.untracked,
           "stackleak-coverage: %s: %d of %d functions with final frame >= %d lack the call to %s "
           "(%d tracked, %d excluded: %s)" % (
               name, len(cov.untracked), len(cov.large), tms, TRACKER, len(cov.tracked), nexcl,
               ", ".join("%s %d" % (k.split(" (")[0], len(v)) for k, v in sorted(cov.excluded.items()))
               or "none"))
    small_tracked = [f for f in cov.tracked if f.frame is not None and f.frame < tms]
    if small_tracked:
        # Allowed (dynamic allocas keep the call), but visible.
        print("INFO: stackleak-coverage: %s: %d tracked functions have a frame < %d (calls after "
              "dynamic allocas): %s" % (name, len(small_tracked), tms,
                                         ", ".join(f.name for f in small_tracked[:20])))
    if vm is not None:
        check_linked(name, vm, cov.tracked)
    write_list(a.list, cov.tracked, rel)
    write_list(a.list_untracked, [f for f, _ in cov.untracked], rel)
    return checks.status()


def check_linked(name, vm, tracked):
    """vmlinux's calls to the tracker are exactly the objects' calls."""
    got = kfacts.tracker_callers(vm)
    want = collections.Counter()
    for f in tracked:
        want[f.name] += f.calls
    missing, extra = want - got, got - want
    report(not missing and not extra,
           "stackleak-linked: %s: vmlinux has %d calls to %s in %d functions, the objects %d "
           "in %d%s%s" % (name, sum(got.values()), TRACKER, len(got), sum(want.values()),
                          len(want),
                          "; missing in vmlinux: " + ", ".join(sorted(missing)) if missing else "",
                          "; only in vmlinux: " + ", ".join(sorted(extra)) if extra else ""))


def write_list(path, funcs, rel):
    """One "name object section frame" line per function."""
    if not path:
        return
    with open(path, "w") as out:
        for f in sorted(funcs, key=lambda f: (f.name, f.obj)):
            out.write("%s %s %s %s\n" % (f.name, rel(f.obj), f.section,
                                         "?" if f.stack_size is None else f.frame))


if __name__ == "__main__":
    sys.exit(main())
