#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""exec-profile.py - guest instructions per kernel function, from QEMU's log
of one profile window (qemu/profile.sh), and the difference of two profiles.

usage: analysis/exec-profile.py read --vmlinux VMLINUX --calls N LOG > PROFILE.tsv
       analysis/exec-profile.py diff A.tsv B.tsv [--top N] [--min N]

read: LOG is QEMU's -D file with in_asm (every translation block, from the
start of the boot) and, around the window, exec and nochain (every
execution of a block). The window runs from the first execution of the
block at __x64_sys_getppid to the next one: the benchmark's two getppid()
calls around its N calls of one op (bench/guest-bench.c,
passport.bench_profile=). Each block execution counts the instructions of
its latest translation, as QEMU's -icount does (a `rep` string instruction
is a block per iteration, so it counts once per iteration). The block is
charged to the function of vmlinux containing its first instruction (user
space: "[user]"; kernel code outside any function symbol: "[kernel:SECTION]").
The kernel must run where vmlinux says (nokaslr). Output: a header of "#"
lines (instructions and blocks per call in all) and one line per function,
"FUNCTION<TAB>INSTRUCTIONS_PER_CALL<TAB>BLOCKS_PER_CALL", largest first.

diff: per function, B minus A in instructions per call, largest change
first, then the total; --min hides rows that changed by less than N.
"""

import argparse
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kelf  # noqa: E402
import kfacts  # noqa: E402

MARK = "__x64_sys_getppid"
TRACE = re.compile(r"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/")
INSN = re.compile(r"^0x([0-9a-f]+):")


class Names:
    """Address -> the name a profile row uses."""

    def __init__(self, vm):
        self.vm = vm
        self.first, self.index = kfacts.image_functions(vm)
        self.cache = {}

    def __call__(self, pc):
        n = self.cache.get(pc)
        if n is None:
            if pc < 1 << 63:
                n = "[user]"
            else:
                y = self.index.at(pc)
                if y:
                    n = self.first[y.value]
                else:
                    s = self.vm.section_at(pc)
                    n = "[kernel:%s]" % (s.name if s else "?")
            self.cache[pc] = n
        return n


def read_log(path, mark):
    """(Counter function-less {pc: instructions}, {pc: executions}, blocks
    without a translation) of the window of LOG."""
    size, insns, execs = {}, collections.Counter(), collections.Counter()
    state, block_pc, block_n, unknown = "before", None, 0, 0
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("IN:"):
                block_pc, block_n = None, 0
                continue
            m = INSN.match(line)
            if m:
                if block_pc is None:
                    block_pc = int(m.group(1), 16)
                block_n += 1
                continue
            if block_pc is not None and not line.strip():
                size[block_pc] = block_n
                block_pc = None
                continue
            m = TRACE.match(line)
            if not m:
                continue
            pc = int(m.group(1), 16)
            if pc == mark:
                if state == "before":
                    state = "in"
                    continue
                if state == "in":
                    state = "after"
                    break
            if state != "in":
                continue
            n = size.get(pc)
            if n is None:
                unknown += 1
                n = 1
            insns[pc] += n
            execs[pc] += 1
    if state != "after":
        raise ValueError("%s: no complete window (two executions of %s at 0x%x; found %s)"
                         % (path, MARK, mark, state))
    return insns, execs, unknown


def cmd_read(a):
    vm = kelf.Elf(a.vmlinux)
    mark = next((y.value for y in vm.functions() if y.name == MARK), None)
    if mark is None:
        raise ValueError("%s: no symbol %s" % (a.vmlinux, MARK))
    insns, execs, unknown = read_log(a.log, mark)
    name = Names(vm)
    per_fn, blocks_fn = collections.Counter(), collections.Counter()
    for pc, n in insns.items():
        per_fn[name(pc)] += n
        blocks_fn[name(pc)] += execs[pc]
    total = sum(insns.values())
    print("# exec-profile: %s, window %s..%s, %d calls" % (os.path.basename(a.log), MARK, MARK, a.calls))
    print("# instructions per call: %.1f; blocks per call: %.1f; blocks without a translation: %d"
          % (total / a.calls, sum(execs.values()) / a.calls, unknown))
    for fn, n in sorted(per_fn.items(), key=lambda kv: (-kv[1], kv[0])):
        print("%s\t%.1f\t%.1f" % (fn, n / a.calls, blocks_fn[fn] / a.calls))


def load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fn, n, _ = line.rstrip("\n").split("\t")
            rows[fn] = float(n)
    return rows


def cmd_diff(a):
    ra, rb = load(a.a), load(a.b)
    delta = {fn: rb.get(fn, 0.0) - ra.get(fn, 0.0) for fn in set(ra) | set(rb)}
    names = sorted(delta, key=lambda fn: (-abs(delta[fn]), fn))
    names = [fn for fn in names if abs(delta[fn]) >= a.min]
    if a.top:
        names = names[:a.top]
    w = max([len(fn) for fn in names] + [8])
    print("%-*s %12s %12s %10s" % (w, "function", os.path.basename(a.a)[:12], os.path.basename(a.b)[:12], "B-A"))
    for fn in names:
        print("%-*s %12.1f %12.1f %+10.1f" % (w, fn, ra.get(fn, 0.0), rb.get(fn, 0.0), delta[fn]))
    print("%-*s %12.1f %12.1f %+10.1f" % (w, "total (all functions)", sum(ra.values()),
                                          sum(rb.values()), sum(rb.values()) - sum(ra.values())))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("read", help="a profile from a QEMU log")
    r.add_argument("--vmlinux", required=True)
    r.add_argument("--calls", type=int, required=True)
    r.add_argument("log")
    d = sub.add_parser("diff", help="B minus A, per function")
    d.add_argument("a")
    d.add_argument("b")
    d.add_argument("--top", type=int)
    d.add_argument("--min", type=float, default=0.0)
    a = ap.parse_args()
    try:
        (cmd_read if a.cmd == "read" else cmd_diff)(a)
    except (OSError, ValueError) as e:
        print("exec-profile: error: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
