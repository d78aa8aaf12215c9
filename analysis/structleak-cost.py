#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""structleak-cost.py - what structleak adds to each function of some kernel
translation units, on one or more built kernels side by side.

usage: analysis/structleak-cost.py --build DIR [--build DIR ...] SRC.c ...
           [--functions F,F...] [--top N]

Each SRC (a path in the source tree, e.g. kernel/fork.c) is compiled twice
with each kernel's own command (its .o.cmd): as built, with structleak's
verbose output, and with structleak off (a GCC-plugin kernel: without
-fplugin=...structleak_plugin.so and its arguments; a passport kernel:
-mllvm -passport-structleak-disable). For every function of the object
(symbol sizes) it prints the code bytes with structleak, the growth over the
same function without it, the calls to memset it added (a large zeroing is
a call; under TCG -icount the kernel's `rep stosb` memset counts one
instruction per byte), and the variables the plugin or pass reported
zeroing in that function ("sites"; a site reported in a function that was
inlined counts in the source function, the growth in the caller).

Output: one row per function, largest growth first, one column group per
--build; then per build the totals of the listed rows. A function missing
from a build (inlined, renamed) shows "-".

--functions keeps only these functions (e.g. the fork path); --top N only
the first N rows. The objects are compiled in a temporary directory; the
kernel build directories are not written. Exit status 2 on a setup problem
(no .o.cmd, no structleak in the command, a compile that fails), with one
line saying which.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kelf  # noqa: E402
import kfacts  # noqa: E402


class SetupError(Exception):
    pass


GCC_PLUGIN = "structleak_plugin"
CLANG_NOTE = re.compile(r"^passport: structleak: [^:]+:\d+:\d+: (\S+)\(\): \S+ variable ")
GCC_IN_FUNCTION = re.compile(r"^[^:]+: In function '([^']+)':")
GCC_NOTE = re.compile(r"^[^:]+:\d+:\d+: note: \S+ variable will be forcibly initialized")


def toolchain(argv):
    if any(a.startswith("-passport-structleak") for a in argv):
        return "passport"
    if any(a.startswith("-fplugin=") and a.endswith(GCC_PLUGIN + ".so") for a in argv):
        return "gcc"
    return None


def variants(argv, kind):
    """(argv with structleak verbose, argv without structleak)."""
    if kind == "passport":
        return (argv + ["-mllvm", "-passport-structleak-verbose"],
                argv + ["-mllvm", "-passport-structleak-disable"])
    off = [a for a in argv if not (a.startswith("-fplugin=") and a.endswith(GCC_PLUGIN + ".so"))
           and not a.startswith("-fplugin-arg-" + GCC_PLUGIN + "-")]
    return argv + ["-fplugin-arg-%s-verbose" % GCC_PLUGIN], off


def compile_object(argv, source, build, out):
    p = subprocess.run(argv + ["-c", source, "-o", out], cwd=build, capture_output=True,
                       text=True, env=dict(os.environ, LC_ALL="C"))
    if p.returncode != 0:
        raise SetupError("%s: compiling %s failed: %s" % (build, source,
                         (p.stderr.strip().splitlines() or ["?"])[-1][:200]))
    return p.stderr


def sites_per_function(stderr, kind):
    sites, fn = collections.Counter(), None
    for line in stderr.splitlines():
        if kind == "passport":
            m = CLANG_NOTE.match(line)
            if m:
                sites[m.group(1)] += 1
            continue
        m = GCC_IN_FUNCTION.match(line)
        if m:
            fn = m.group(1)
        elif GCC_NOTE.match(line) and fn:
            sites[fn] += 1
    return sites


MEMSET = ("memset", "__memset")


def function_sizes(obj):
    return {f.name: f.end - f.start for f in kfacts.object_functions(obj)}


def measure(build, src, tmp):
    """{function: (bytes with, growth, memset calls added, sites)} of SRC in BUILD."""
    argv, source = kelf.compile_command(build, src)
    if argv is None:
        raise SetupError("%s: no .o.cmd for %s (not built in this kernel?)" % (build, src))
    kind = toolchain(argv)
    if not kind:
        raise SetupError("%s: the command of %s has no structleak (plugin or pass)" % (build, src))
    on_argv, off_argv = variants(argv, kind)
    base = os.path.join(tmp, "%d-%s" % (abs(hash(build)), src.replace("/", "_")[:-2]))
    notes = compile_object(on_argv, source, build, base + ".on.o")
    compile_object(off_argv, source, build, base + ".off.o")
    on, off = function_sizes(base + ".on.o"), function_sizes(base + ".off.o")
    mon, moff = kfacts.object_calls(base + ".on.o", MEMSET), kfacts.object_calls(base + ".off.o", MEMSET)
    sites = sites_per_function(notes, kind)
    both = lambda f: f in on and f in off
    return {f: (on.get(f), on[f] - off[f] if both(f) else None,
                mon.get(f, 0) - moff.get(f, 0) if both(f) else None, sites.get(f, 0))
            for f in set(on) | set(sites)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--build", action="append", required=True, help="a built kernel (repeatable)")
    ap.add_argument("--functions", help="only these functions (comma-separated)")
    ap.add_argument("--top", type=int, help="only the first N rows")
    ap.add_argument("src", nargs="+", help="translation units, e.g. kernel/fork.c")
    a = ap.parse_args()
    builds = [os.path.abspath(b) for b in a.build]
    rows = collections.defaultdict(dict)  # function -> build -> measure()'s tuple
    try:
        with tempfile.TemporaryDirectory(prefix="structleak-cost.") as tmp:
            for b in builds:
                for src in a.src:
                    for f, v in measure(b, src, tmp).items():
                        rows[f][b] = v
    except (SetupError, ValueError, OSError) as e:
        print("structleak-cost: error: %s" % e, file=sys.stderr)
        return 2
    names = sorted(rows, key=lambda f: (-max((v[1] or 0) for v in rows[f].values()), f))
    if a.functions:
        want = set(a.functions.split(","))
        names = [f for f in names if f in want]
    if a.top:
        names = names[:a.top]
    width = max([len(f) for f in names] + [8])
    print("%-*s" % (width, "function") + "".join("   %-32s" % os.path.basename(b) for b in builds))
    print("%-*s" % (width, "") + "     bytes  growth memset  sites" * len(builds))
    num = lambda x, sign="": "-" if x is None else ("%" + sign + "d") % x
    cell = lambda v: "%10s %7s %6s %6s" % (num(v[0]), num(v[1], "+"), num(v[2], "+"), v[3])
    for f in names:
        print("%-*s" % (width, f) + "".join(
            "   " + cell(rows[f].get(b, (None, None, None, 0))) for b in builds))
    totals = []
    for b in builds:
        vs = [rows[f][b] for f in names if b in rows[f]]
        totals.append(tuple(sum(v[i] or 0 for v in vs) for i in range(4)))
    print("%-*s" % (width, "total") + "".join("   " + cell(t) for t in totals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
