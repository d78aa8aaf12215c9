#!/usr/bin/env python3
"""stackleak differential: the kernel's GCC plugin vs clang + passport.

Compiles each corpus file with gcc + stackleak_plugin.so and with
`passport cc -- clang $(passport flags --stackleak=N)` at the same threshold,
then, per side, lists the functions that call stackleak_track_stack.

Asserts (exit 1 otherwise):
  - zero false negatives on the Clang side: every function whose final frame
    (.stack_sizes minus callee-saved pushes, read here independently of
    passport-finalize) is >= N, or that has a dynamic alloca, calls the
    tracker, unless passport said it is exempt (excluded section, leaf rule);
  - zero false positives: no tracked function below N without a dynamic alloca;
  - Jaccard(GCC set, Clang set) over the functions both compilers emit
    >= --min-jaccard.
"""
import argparse
import os
import re
import subprocess
import sys

KERNEL_FLAGS = ["-O2", "-mno-red-zone", "-fno-PIE", "-fno-stack-protector",
                "-mgeneral-regs-only", "-fno-asynchronous-unwind-tables"]


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode:
        sys.exit("command failed: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return r


def base(name):
    """GCC clones (foo.constprop.0, foo.isra.0) count as foo."""
    return name.split(".")[0]


def disassemble(obj):
    """{function: [mnemonics]}, {function: calls the tracker}, {function: section}."""
    out = run(["llvm-objdump", "-dr", "--no-show-raw-insn", obj]).stdout
    insns, tracked, section, fn, sec = {}, set(), {}, None, None
    for line in out.splitlines():
        m = re.match(r"^Disassembly of section (\S+):", line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn = m.group(1)
            insns[fn], section[fn] = [], sec
        elif fn and re.search(r"R_X86_64_(PLT32|PC32)\s+stackleak_track_stack", line):
            tracked.add(fn)
        elif fn and re.match(r"^\s+[0-9a-f]+:\s+\S", line):
            insns[fn].append(line.split(":", 1)[1].split()[0])
    return insns, tracked, section


def stack_sizes(obj):
    out = run(["llvm-readobj", "--stack-sizes", obj]).stdout
    return {m.group(1): int(m.group(2), 16)
            for m in re.finditer(r"Functions: \[(\S+)\]\s+Size: 0x([0-9A-Fa-f]+)", out)}


def pushes(mnemonics):
    n = 0
    for m in mnemonics:
        if m in ("endbr64",):
            continue
        if m in ("push", "pushq"):
            n += 1
        elif m in ("mov", "movq") and n:
            continue  # mov %rsp,%rbp between pushes
        else:
            break
    return n


def gcc_side(args, src, obj):
    plugin = ["-fplugin=" + args.gcc_plugin,
              "-fplugin-arg-stackleak_plugin-track-min-size=%d" % args.min_size,
              "-fplugin-arg-stackleak_plugin-arch=x86"]
    run([args.gcc] + KERNEL_FLAGS + plugin + ["-c", src, "-o", obj])
    insns, tracked, _ = disassemble(obj)
    return {base(f) for f in insns}, {base(f) for f in tracked}


def clang_side(args, src, obj):
    flags = run([args.passport, "flags", "--llvm", args.llvm,
                 "--stackleak=%d" % args.min_size, "--verbose"]).stdout.split()
    r = run([args.passport, "cc", "--", args.clang] + KERNEL_FLAGS + flags + ["-c", src, "-o", obj])
    exempt = {}
    for m in re.finditer(r"passport: stackleak: skip (\S+)\(\): (.*)", r.stderr):
        exempt[m.group(1)] = m.group(2)
    insns, tracked, _ = disassemble(obj)
    sizes = stack_sizes(obj)
    frames = {f: sizes[f] - 8 * pushes(insns[f]) for f in insns if f in sizes}
    return insns, tracked, frames, exempt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gcc", default="gcc-12")
    ap.add_argument("--gcc-plugin", required=True)
    ap.add_argument("--clang", required=True)
    ap.add_argument("--llvm", required=True)
    ap.add_argument("--passport", required=True)
    ap.add_argument("--min-size", type=int, default=100)
    ap.add_argument("--min-jaccard", type=float, default=0.0)
    ap.add_argument("--out", required=True)
    ap.add_argument("sources", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    g_funcs, g_tracked, c_funcs, c_tracked = set(), set(), set(), set()
    false_neg, false_pos, notes = [], [], []
    for src in args.sources:
        stem = os.path.splitext(os.path.basename(src))[0]
        gf, gt = gcc_side(args, src, os.path.join(args.out, stem + ".gcc.o"))
        insns, ct, frames, exempt = clang_side(args, src, os.path.join(args.out, stem + ".clang.o"))
        g_funcs |= gf
        g_tracked |= gt
        c_funcs |= set(insns)
        c_tracked |= ct
        for f in insns:
            dynamic = f not in frames
            frame = frames.get(f)
            needs = dynamic or frame >= args.min_size
            if needs and f not in ct and f not in exempt:
                false_neg.append("%s (frame %s)" % (f, "dynamic" if dynamic else frame))
            if not needs and f in ct:
                false_pos.append("%s (frame %d)" % (f, frame))
            if (f in ct) != (f in gt) and f in gf:
                notes.append("%-22s gcc %-9s clang %-9s clang frame %s%s" % (
                    f, "tracked" if f in gt else "-", "tracked" if f in ct else "-",
                    "dynamic" if dynamic else frame,
                    " (exempt: %s)" % exempt[f] if f in exempt else ""))

    common = g_funcs & c_funcs
    a, b = g_tracked & common, c_tracked & common
    jaccard = len(a & b) / len(a | b) if a | b else 1.0
    print("gcc tracked (%d): %s" % (len(g_tracked), " ".join(sorted(g_tracked))))
    print("clang tracked (%d): %s" % (len(c_tracked), " ".join(sorted(c_tracked))))
    print("functions emitted by both: %d; tracked by both %d, gcc only %d, clang only %d" % (
        len(common), len(a & b), len(a - b), len(b - a)))
    for n in notes:
        print("  differs: " + n)
    print("false negatives (clang frame >= %d, untracked): %d %s" % (
        args.min_size, len(false_neg), " ".join(false_neg)))
    print("false positives (clang frame < %d, tracked): %d %s" % (
        args.min_size, len(false_pos), " ".join(false_pos)))
    print("jaccard(gcc, clang) = %.2f" % jaccard)
    ok = not false_neg and not false_pos and jaccard >= args.min_jaccard
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
