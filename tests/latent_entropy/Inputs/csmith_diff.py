#!/usr/bin/env python3
"""csmith differential for latent_entropy: every function of each program
(and main) gets __attribute__((latent_entropy)) on its prototype; the
instrumented build must print exactly what the plain build prints.

  csmith_diff.py WORKDIR FIRST COUNT OPT CLANG FLAGS...

(csmith seeds FIRST .. FIRST+COUNT-1, small programs: 6 functions at most.)

Programs whose plain build does not finish within the timeout are skipped;
at least 3/4 must be compared.  Prints one summary line.
"""
import concurrent.futures
import os
import re
import subprocess
import sys

PROTO = re.compile(r"^(static [^;=]*\bfunc_\d+\(.*\);)$", re.M)
MAIN = re.compile(r"^(int main \(.*\))$", re.M)
INC = "/usr/include/csmith"
TIMEOUT = 5


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def one(workdir, seed, opt, clang, flags):
    base = os.path.join(workdir, "p%d" % seed)
    src, marked = base + ".c", base + "-le.c"
    r = run(["csmith", "--seed", str(seed), "--max-funcs", "6", "--max-block-depth", "3", "-o", src])
    if r.returncode:
        return ("error", "csmith --seed %d failed" % seed, 0)
    text = open(src).read()
    text, nproto = PROTO.subn(r"__attribute__((latent_entropy)) \1", text)
    text, nmain = MAIN.subn(r"__attribute__((latent_entropy)) \1", text)
    if not nproto or not nmain:
        return ("error", "seed %d: no prototypes to mark" % seed, 0)
    text = "volatile unsigned long latent_entropy __attribute__((latent_entropy));\n" + text
    open(marked, "w").write(text)
    common = ["-" + opt, "-w", "-I", INC]
    r = run([clang] + common + [src, "-o", base + ".plain"])
    if r.returncode:
        return ("error", "seed %d: plain build failed: %s" % (seed, r.stderr[-500:]), 0)
    r = run([clang] + flags + ["-mllvm", "-passport-latent-entropy-verbose"] + common +
            [marked, "-o", base + ".le"])
    if r.returncode:
        return ("error", "seed %d: instrumented build failed: %s" % (seed, r.stderr[-500:]), 0)
    ninstr = len(re.findall(r"passport: latent-entropy: instrument ", r.stderr))
    if not ninstr:
        return ("error", "seed %d: nothing instrumented" % seed, 0)
    try:
        plain = run([base + ".plain"], timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return ("skip", "", 0)
    try:
        le = run([base + ".le"], timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return ("mismatch", "seed %d: instrumented build timed out" % seed, ninstr)
    if (plain.returncode, plain.stdout) != (le.returncode, le.stdout):
        return ("mismatch", "seed %d: output differs" % seed, ninstr)
    for f in (base + ".plain", base + ".le"):
        os.unlink(f)
    return ("ok", "", ninstr)


def main():
    workdir, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    opt, clang, flags = sys.argv[4], sys.argv[5], sys.argv[6:]
    os.makedirs(workdir, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(lambda s: one(workdir, s, opt, clang, flags), range(first, first + count)))
    for status, msg, _ in results:
        if msg:
            print(msg)
    compared = sum(1 for s, _, _ in results if s in ("ok", "mismatch"))
    mismatches = sum(1 for s, _, _ in results if s == "mismatch")
    errors = sum(1 for s, _, _ in results if s == "error")
    functions = sum(n for _, _, n in results)
    print("csmith -%s: %d programs, %d compared, %d mismatches, %d errors, %d functions instrumented"
          % (opt, count, compared, mismatches, errors, functions))
    return 0 if compared * 4 >= count * 3 and not mismatches and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
