#!/usr/bin/env python3
"""Differential structleak test: GCC's plugin against passport on one corpus.

usage: gcc-diff.py GCC PLUGIN.so CLANG 'PASSPORT_FLAGS_CMD' CORPUS.c

For each mode, the FILE:LINE:COL of every "will be forcibly initialized"
note on each side; an intended difference is a corpus line marked
`DIFF(modes): reason`.  Prints per-mode agreement (Jaccard, both/union) and
exits non-zero on any unexplained difference.
"""
import re
import shlex
import subprocess
import sys

gcc, plugin, clang, flags_cmd, corpus = sys.argv[1:6]
lines = open(corpus).read().splitlines()
note = re.compile(r"(\d+):(\d+): (?:note: |.*\(\): )\w+ variable .*will be forcibly initialized")


def zeroed(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("command failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return {(int(m.group(1)), int(m.group(2))) for m in note.finditer(r.stderr)}


def intended(line, mode):
    m = re.search(r"DIFF\(([\w,-]+)\)", lines[line - 1])
    return bool(m) and mode in m.group(1).split(",")


failed = False
for mode, garg in (("user", []), ("byref", ["-fplugin-arg-structleak_plugin-byref"]),
                   ("byref-all", ["-fplugin-arg-structleak_plugin-byref-all"])):
    g = zeroed([gcc, "-O2", "-c", corpus, "-o", "/dev/null", "-fplugin=" + plugin,
                "-fplugin-arg-structleak_plugin-verbose", "-fdiagnostics-column-unit=byte"] + garg)
    flags = subprocess.run(shlex.split(flags_cmd) + ["--structleak=" + mode, "--verbose"],
                           capture_output=True, text=True, check=True).stdout.split()
    p = zeroed([clang, "-O2", "-c", corpus, "-o", "/dev/null"] + flags)
    both, union = g & p, g | p
    print("%s: gcc %d passport %d both %d agreement %d/%d = %.2f" %
          (mode, len(g), len(p), len(both), len(both), len(union),
           len(both) / len(union) if union else 1.0))
    for side, only in (("gcc only", g - p), ("passport only", p - g)):
        for line, col in sorted(only):
            ok = intended(line, mode)
            print("  %s %d:%d %s%s" % (side, line, col, lines[line - 1].strip()[:60],
                                        "" if ok else "  <- UNEXPLAINED"))
            failed |= not ok
    for i, text in enumerate(lines, 1):
        if intended(i, mode) and not any(l == i for l, _ in union - both):
            print("  marked DIFF but both agree: line %d" % i)
            failed = True
sys.exit(1 if failed else 0)
