#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""real-config-report.py - the verdicts and report of the real-config layer
(scripts/real-config.sh): a passport kernel of a full config against the same
config built with plain Clang.

Reads, for each kernel directory (build/kernel/NAME): .config, vmlinux,
arch/x86/boot/bzImage, build-full.log and build-full.time (written by
scripts/kernel-build.sh for a from-scratch build), and OUT/ROLE.boot.log
(ROLE = passport or control, written by qemu/boot.sh). Writes OUT/report.md
(and prints it) and OUT/ROLE.kunit.tsv (suite, case, result per line).

Verdicts (each a PASS:/FAIL: line; exit 1 if any FAILs):
  build          both kernels built (a bzImage exists)
  warnings       the passport build has no warning line the control's
                 from-scratch build lacks (paths of the two build directories
                 made equal first); needs both build-full.log files
  boot           each kernel reached the end of passport's init
  kunit          the same KUnit cases ran, with the same result, as in the
                 control; in a suite that measures a passport feature
                 (stackinit measures structleak: it skips what the kernel's
                 stack initialisation cannot cover) results may differ, but
                 no case fails; no case fails in either kernel
  lkdtm          STACKLEAK_ERASING OK twice (stackleak on), XFAIL otherwise
  latent-entropy latent_entropy changes across fork() (latent-entropy on)
  kaslr          latent_entropy's runtime address differs from vmlinux's
  oops           no more BUG:/WARNING:/Oops lines than the control's boot
  modules        every module of the initramfs loads as the control's does
                 (loaded, or refused with the same error), and one loads
  stackleak-coverage, randstruct-probe
                 the static checks of analysis/ (stackleak: no frame at or
                 above the threshold without the call; randstruct: the
                 layouts of the probe's translation units equal those of
                 the GCC plugin on the same config and seed, --gcc-reference,
                 and some types are randomized)
"""

import argparse
import collections
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "analysis"))
import kelf  # noqa: E402
import kfacts  # noqa: E402

# Suites that measure a passport feature: their results follow the feature.
FEATURE_SUITES = {"stackinit": "structleak"}

TIMESTAMP = re.compile(r"^\[\s*[0-9]+\.[0-9]+\] ")
KTAP_SUBTEST = re.compile(r"^( *)# Subtest: (\S+)")
KTAP_RESULT = re.compile(r"^( *)(not ok|ok) [0-9]+ (?:- )?(\S+)(.*)$")
OOPS = re.compile(r"(BUG:|WARNING:|Oops|Kernel panic|general protection fault)")
LKDTM_OK = "lkdtm: OK: the rest of the thread stack is properly erased"
LKDTM_XFAIL = "lkdtm: XFAIL: stackleak is not enabled"
MODULE = re.compile(r"^passport: modules: /modules/(\S+\.ko): (.*)$")
LATENT = re.compile(r"passport: latent-entropy: latent_entropy at (0x[0-9a-f]+): "
                    r"before=(0x[0-9a-f]+) after [0-9]+ forks=(0x[0-9a-f]+): (\w+)")


def console_lines(path):
    """A serial log's lines without printk's timestamps."""
    with open(path, errors="replace") as f:
        return [TIMESTAMP.sub("", line.rstrip("\n")) for line in f]


def kunit_cases(lines):
    """{(suite, case): 'ok' | 'not ok' | 'skip'} of a KTAP log: a case is a
    result line one level below its suite's '# Subtest:' (a parameterised
    case's own line sums up its parameters)."""
    cases, suite, depth = collections.OrderedDict(), None, None
    for line in lines:
        m = KTAP_SUBTEST.match(line)
        if m and len(m.group(1)) == 4:
            suite, depth = m.group(2), 4
            continue
        m = KTAP_RESULT.match(line)
        if m and suite and len(m.group(1)) == depth:
            result = m.group(2)
            if result == "ok" and "# SKIP" in m.group(4):
                result = "skip"
            cases[(suite, m.group(3))] = result
        elif m and len(m.group(1)) == 0:
            suite = None
    return cases


def normalized_warnings(build):
    """The warning lines of BUILD's from-scratch build, with the build and
    source directory names made neutral; None without a from-scratch log."""
    lines = kfacts.build_warnings(build)
    if lines is None:
        return None
    return [re.sub(r"\S*/build/kernel/src(-patched)?/", "SRC/", line.replace(build, "O"))
            for line in lines]


def read_kv(path):
    """KEY VALUE lines (build-full.time) as a dict; {} when missing."""
    kv = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.split(None, 1)
                if len(parts) == 2:
                    kv[parts[0]] = parts[1].strip()
    return kv


def image_sizes(build):
    """text/data/bss of vmlinux (`size`; bss_objects without the padding
    kfacts.bss_padding explains) and the bzImage's bytes."""
    sizes = {}
    bz = os.path.join(build, "arch/x86/boot/bzImage")
    if os.path.exists(bz):
        sizes["bzImage"] = os.path.getsize(bz)
    vm = os.path.join(build, "vmlinux")
    if os.path.exists(vm):
        out = subprocess.run(["size", vm], capture_output=True, text=True).stdout.split("\n")
        if len(out) > 1 and out[1].split():
            text, data, bss = out[1].split()[:3]
            sizes.update(text=int(text), data=int(data), bss=int(bss))
            sizes["bss_objects"] = int(bss) - kfacts.bss_padding(kelf.Elf(vm))
    return sizes


class Kernel:
    """One kernel of the comparison: its build directory and boot log."""

    def __init__(self, role, build, out, booted):
        self.role, self.build = role, build
        self.config = kelf.read_config(build) if os.path.exists(os.path.join(build, ".config")) else {}
        self.built = os.path.exists(os.path.join(build, "arch/x86/boot/bzImage"))
        self.log = os.path.join(out, role + ".boot.log")
        self.lines = console_lines(self.log) if booted and os.path.exists(self.log) else []
        self.booted = any(l.startswith("passport: done: 0 action(s) failed") for l in self.lines)
        self.cases = kunit_cases(self.lines)
        self.warnings = normalized_warnings(build)
        self.time = read_kv(os.path.join(build, "build-full.time"))
        self.sizes = image_sizes(build)
        self.instrumentation = read_kv(os.path.join(build, "instrumentation.txt"))
        self.oops = [l for l in self.lines if OOPS.search(l) and "lkdtm" not in l]
        self.modules = collections.OrderedDict(
            m.groups() for m in map(MODULE.match, self.lines) if m)
        self.latent = next((LATENT.search(l) for l in self.lines if LATENT.search(l)), None)

    def on(self, symbol):
        return self.config.get("CONFIG_" + symbol) == "y"

    def write_tsv(self, path):
        with open(path, "w") as f:
            for (suite, case), r in self.cases.items():
                f.write("%s\t%s\t%s\n" % (suite, case, r))

    def suite_counts(self):
        """{suite: Counter(result)}."""
        counts = collections.OrderedDict()
        for (suite, _), r in self.cases.items():
            counts.setdefault(suite, collections.Counter())[r] += 1
        return counts


class Verdicts:
    def __init__(self):
        self.rows = []

    def add(self, name, ok, detail):
        self.rows.append((name, bool(ok), detail))
        print("%s: %s (%s)" % ("PASS" if ok else "FAIL", name, detail))

    @property
    def failed(self):
        return sum(1 for _, ok, _ in self.rows if not ok)


def static_check(script, *args):
    """(ok, summary) of an analysis/ static check: its PASS/FAIL lines."""
    p = subprocess.run([sys.executable, os.path.join(REPO, "analysis", script)] + list(args),
                       capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith(("PASS:", "FAIL:", "INFO:"))]
    ok = p.returncode == 0 and not any(l.startswith("FAIL:") for l in lines) and lines
    return ok, "; ".join(l for l in lines if not l.startswith("INFO:")) or \
        "exit %d: %s" % (p.returncode, (p.stderr or p.stdout).strip().splitlines()[-1:])


def kunit_diff(p, c):
    """Cases whose result differs, split into (feature-suite, other)."""
    feature, other = [], []
    for key in sorted(set(p.cases) | set(c.cases)):
        rp, rc = p.cases.get(key, "missing"), c.cases.get(key, "missing")
        if rp != rc:
            (feature if key[0] in FEATURE_SUITES else other).append((key, rp, rc))
    return feature, other


def judge(p, c, features, verdicts):
    v = verdicts.add
    v("build", p.built and (c is None or c.built),
      "passport %s%s" % ("built" if p.built else "missing bzImage",
                         "" if c is None else ", control " + ("built" if c.built else "missing bzImage")))
    if c is not None:
        if p.warnings is None or c.warnings is None:
            v("warnings", False, "no from-scratch build log (build-full.log) of %s: rebuild it from scratch"
              % " and ".join(k.role for k in (p, c) if k.warnings is None))
        else:
            extra = list((collections.Counter(p.warnings) - collections.Counter(c.warnings)).elements())
            v("warnings", not extra, "passport %d, control %d warning lines; %d only in passport%s"
              % (len(p.warnings), len(c.warnings), len(extra), (": " + extra[0]) if extra else ""))
    elif p.warnings is not None:
        v("warnings", not any("stack_sizes" in w or "passport" in w.lower() for w in p.warnings),
          "%d warning lines, none about .stack_sizes or passport" % len(p.warnings))
    if not p.lines and (c is None or not c.lines):
        return  # --no-boot: the static checks only
    for k in (p,) if c is None else (p, c):
        v("boot " + k.role, k.booted, "%s: %s" % (os.path.basename(k.log),
          "init finished, 0 actions failed" if k.booted else "did not reach 'passport: done: 0 action(s) failed'"))
    failing = [("%s %s.%s" % (k.role, s, n)) for k in ((p,) if c is None else (p, c))
               for (s, n), r in k.cases.items() if r == "not ok"]
    if c is not None:
        feature, other = kunit_diff(p, c)
        v("kunit", p.cases and not other and not failing,
          "%d cases in %d suites; %d differ from the control outside feature suites%s; %d differ in %s; %d failing%s"
          % (len(p.cases), len(p.suite_counts()), len(other),
             (" (first: %s.%s %s vs %s)" % (other[0][0] + other[0][1:])) if other else "",
             len(feature), "/".join(FEATURE_SUITES), len(failing),
             (": " + ", ".join(failing[:3])) if failing else ""))
    else:
        v("kunit", p.cases and not failing, "%d cases, %d failing" % (len(p.cases), len(failing)))
    n_ok = sum(LKDTM_OK in l for l in p.lines)
    n_x = sum(LKDTM_XFAIL in l for l in p.lines)
    if "stackleak" in features:
        v("lkdtm", n_ok == 2 and n_x == 0, "STACKLEAK_ERASING: %d OK, %d XFAIL" % (n_ok, n_x))
    else:
        v("lkdtm", n_ok == 0 and n_x >= 1, "stackleak off: %d OK, %d XFAIL (not enabled)" % (n_ok, n_x))
    if "latent-entropy" in features:
        m = p.latent
        v("latent-entropy", m and m.group(4) == "changed",
          "before %s, after forks %s: %s" % m.group(2, 3, 4) if m else "no latent-entropy line")
    m = p.latent
    if m and os.path.exists(os.path.join(p.build, "vmlinux")):
        sym = next((y for y in kelf.Elf(os.path.join(p.build, "vmlinux")).symbols
                    if y.name == "latent_entropy"), None)
        link = "0x%x" % sym.value if sym else "?"
        v("kaslr", p.on("RANDOMIZE_BASE") and sym and m.group(1) != link,
          "latent_entropy linked at %s, runs at %s" % (link, m.group(1)))
    if c is not None and (p.modules or c.modules):
        differ = [m for m in sorted(set(p.modules) | set(c.modules)) if p.modules.get(m) != c.modules.get(m)]
        v("modules", p.modules and not differ and "loaded" in p.modules.values(),
          "%d modules, %d loaded in passport, %d in control; %d differ%s" % (
              len(p.modules), list(p.modules.values()).count("loaded"),
              list(c.modules.values()).count("loaded"), len(differ),
              (": %s %s vs %s" % (differ[0], p.modules.get(differ[0]), c.modules.get(differ[0]))) if differ else ""))
    elif p.modules:
        v("modules", "loaded" in p.modules.values(), "%d modules, %d loaded" % (
            len(p.modules), list(p.modules.values()).count("loaded")))
    if c is not None:
        v("oops", len(p.oops) <= len(c.oops), "BUG/WARNING/Oops lines: passport %d, control %d%s"
          % (len(p.oops), len(c.oops), (": " + p.oops[0]) if p.oops else ""))


def static_checks(p, features, gcc_ref, verdicts):
    if "stackleak" in features:
        ok, detail = static_check("stackleak-coverage.py", p.build)
        verdicts.add("stackleak-coverage", ok, detail)
    if "randstruct" in features:
        if gcc_ref:
            ok, detail = static_check("randstruct-probe.py", "--baseline-none", gcc_ref, p.build)
        else:
            ok, detail = False, "no GCC reference build (--gcc-reference) to compare with"
        verdicts.add("randstruct-probe", ok, detail)


def cache_share(k):
    """The share of a from-scratch build's compiles that ccache served."""
    hits, misses = int(k.time.get("ccache_hits", 0)), int(k.time.get("ccache_misses", 0))
    return hits / (hits + misses) if hits + misses else 0.0


def side_by_side(p, c, slack=300):
    """Whether the two from-scratch builds started together (within SLACK
    seconds: the passport kernel's preparation takes longer), so that both
    ran under the same machine load. Times from separate runs differ by a
    fifth on this kind of machine, more than what they would measure."""
    try:
        return abs(int(p.time["started"]) - int(c.time["started"])) <= slack
    except (KeyError, ValueError):
        return False


def pct(a, b):
    return "%+.1f %%" % (100.0 * (a - b) / b) if b else "n/a"


def markdown(p, c, features, config_name, verdicts):
    out = ["# Real-config report: %s, passport features %s" % (config_name, features), ""]
    out.append("Passport kernel: `%s` (patched tree); control: %s. The config plus "
               "`qemu/configs/real-tests.config`; Clang %s (CONFIG_CLANG_VERSION)." % (
                   os.path.basename(p.build),
                   "`%s` (unpatched tree, plain Clang)" % os.path.basename(c.build) if c else "none (--no-control)",
                   p.config.get("CONFIG_CLANG_VERSION", "?")))
    out += ["", "## Verdicts", "", "| verdict | result | detail |", "|---|---|---|"]
    for name, ok, detail in verdicts.rows:
        out.append("| %s | %s | %s |" % (name, "PASS" if ok else "**FAIL**", detail.replace("|", "/")))
    out += ["", "%d passed, %d failed" % (len(verdicts.rows) - verdicts.failed, verdicts.failed), ""]
    kernels = [p] if c is None else [p, c]
    out += ["## Build", "", "| | " + " | ".join(k.role for k in kernels) + (" | passport vs control |" if c else " |"),
            "|---" * (len(kernels) + 1 + (1 if c else 0)) + "|"]

    def row(label, values, ratio=None):
        out.append("| %s | %s |%s" % (label, " | ".join(values), (" %s |" % ratio) if c else ""))

    row("warning lines (from-scratch build)",
        ["n/a" if k.warnings is None else str(len(k.warnings)) for k in kernels],
        "" if c is None or p.warnings is None or c.warnings is None else "%+d" % (len(p.warnings) - len(c.warnings)))
    for key, label in (("seconds", "build wall time, s (make -jN, from scratch)"),
                       ("cpu_seconds", "build CPU time, s (user+sys of make and its children)"),
                       ("ccache_hits", "ccache hits of that build")):
        vals = [k.time.get(key, "n/a") for k in kernels]
        r = ""
        if c and key in ("seconds", "cpu_seconds") and all(x.isdigit() for x in vals):
            r = pct(int(vals[0]), int(vals[1]))
            if any(cache_share(k) > 0.05 for k in kernels):
                r += " (not comparable: ccache served >5 % of a build)"
            elif any(k.time.get("interrupted_runs", "0") != "0" for k in kernels):
                r += " (not comparable: a build was interrupted and resumed)"
            elif not side_by_side(p, c):
                r += " (not comparable: the two builds did not run side by side)"
        row(label, vals, r)
    for key in ("text", "data", "bss", "bss_objects", "bzImage"):
        vals = [k.sizes.get(key) for k in kernels]
        row({"bss": "bss bytes (`size`: with the padding up to .brk's 2 MiB alignment)",
             "bss_objects": "bss bytes up to its last object"}.get(key, key + " bytes"), [str(x) if x is not None else "n/a" for x in vals],
            pct(vals[0], vals[1]) if c and None not in vals else "")
    keys = [x for x in p.instrumentation if not x.startswith("#")]
    if keys:
        out += ["", "## Instrumentation (vmlinux, analysis/instrumentation-detail.py --counts)", "",
                "| count | " + " | ".join(k.role for k in kernels) + " |", "|---" * (len(kernels) + 1) + "|"]
        for x in keys:
            out.append("| %s | %s |" % (x, " | ".join(k.instrumentation.get(x, "0") for k in kernels)))
    if any(k.cases for k in kernels):
        out += ["", "## KUnit per suite", "",
                "ok / not ok / skip per suite; cases that differ from the control are listed below.", "",
                "| suite | " + " | ".join(k.role for k in kernels) + " |", "|---" * (len(kernels) + 1) + "|"]
        suites = list(p.suite_counts())
        if c:
            suites += [s for s in c.suite_counts() if s not in suites]
        counts = [k.suite_counts() for k in kernels]
        for s in suites:
            out.append("| %s | %s |" % (s, " | ".join(
                "%d / %d / %d" % (cn[s]["ok"], cn[s]["not ok"], cn[s]["skip"]) if s in cn else "—"
                for cn in counts)))
        tot = ["%d / %d / %d" % tuple(sum(x[s][r] for s in x) for r in ("ok", "not ok", "skip")) for x in counts]
        out.append("| **all %s** | %s |" % (len(suites), " | ".join(tot)))
        if c:
            feature, other = kunit_diff(p, c)
            if feature or other:
                out += ["", "Cases whose result differs (passport vs control):", ""]
                for (s, n), rp, rc in feature + other:
                    why = (" — %s measures %s" % (s, FEATURE_SUITES[s])) if s in FEATURE_SUITES else ""
                    out.append("- %s.%s: %s vs %s%s" % (s, n, rp, rc, why))
    if any(k.oops for k in kernels):
        out += ["", "## BUG/WARNING lines in the boot logs", ""]
        for k in kernels:
            out += ["- %s: `%s`" % (k.role, l) for l in k.oops[:10]]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--passport", required=True, help="the passport kernel's build directory")
    ap.add_argument("--control", help="the control kernel's build directory")
    ap.add_argument("--features", required=True, help="the passport features, comma-separated")
    ap.add_argument("--config-name", default="?", help="the config's name, for the title")
    ap.add_argument("--out", required=True, help="report directory (holds the boot logs)")
    ap.add_argument("--gcc-reference", help="a gcc-12 build of the same config with the GCC randstruct "
                    "plugin (the probe's translation units compiled): randstruct's oracle")
    ap.add_argument("--no-boot", action="store_true", help="there are no boot logs")
    a = ap.parse_args()
    features = a.features.split(",")
    p = Kernel("passport", a.passport, a.out, not a.no_boot)
    c = Kernel("control", a.control, a.out, not a.no_boot) if a.control else None
    verdicts = Verdicts()
    judge(p, c, features, verdicts)
    if p.built:
        static_checks(p, features, a.gcc_reference, verdicts)
    for k in (p, c):
        if k is not None and k.cases:
            k.write_tsv(os.path.join(a.out, k.role + ".kunit.tsv"))
    text = markdown(p, c, a.features, a.config_name, verdicts)
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write(text)
    print("\n" + text)
    print("%d passed, %d failed" % (len(verdicts.rows) - verdicts.failed, verdicts.failed))
    return 1 if verdicts.failed else 0


if __name__ == "__main__":
    sys.exit(main())
