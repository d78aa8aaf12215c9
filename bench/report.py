#!/usr/bin/env python3
"""report.py: the report of ./passport compare, from one run's raw data.

usage: bench/report.py --run RUN_DIR --out OUT_DIR [--no-plots]

Reads only RUN_DIR (written by bench/compare.sh):
  meta.txt              date, commit, host, options
  kernels.tsv           NAME CC TREE FRAGMENTS STATUS (built|reused|missing: why)
  pairs.txt             cost pairs (bench/pairs.txt)
  boot/NAME.N.log       benchmark boots (bench/guest-bench.c lines)
  boot/NAME.verdict.log in-guest verdict boot (LKDTM, latent_entropy, stackinit)
  native.txt            bench/erase-native.c output
  static/NAME.tsv       per-function table (bench/collect.py static), .size
  buildcost/K.F.tsv     compile-time samples (bench/collect.py buildcost)
and writes OUT_DIR/index.md, OUT_DIR/*.png and *.svg (gnuplot), and
OUT_DIR/summary.txt, which it also prints. A missing input is named in the
report where its numbers would be; no number is invented.

Standard library only.
"""
import os
import re
import statistics
import subprocess
import sys

from report_read import read_run

OPS = ["getpid", "uname", "poll", "select", "procfs", "fork"]
OP_DESC = {
    "getpid": "getpid (shallow)", "uname": "uname", "poll": "poll, 200 fds (deep)",
    "select": "select, 200 fds (deep)", "procfs": "openat+read+close /proc/self/stat",
    "fork": "fork+wait",
}
# Ops that enter the kernel more than once per call: their erase cost is
# several erases, their depth only the last one's.
MULTI = {"procfs": "3 syscalls per call", "fork": "fork, wait and the child's exit per call"}
# Single-syscall ops, and the cost-parity tolerance on them.
SINGLE = ["getpid", "uname", "poll", "select"]
ERASES = ["erase-words", "erase-stosq", "erase-unrolled"]
COST_TOL = 1.25
TRACK_TOL_NS = 20.0
PAIR_TOL_PP = 1.0
USER_VARIANTS = ["memset", "memset-stosb", "erase-words", "erase-stosq", "erase-unrolled"]
SUFFIX_RE = re.compile(r"(\.(isra|constprop|part|cold|llvm|lto_priv)(\.\d+)?)+$")
TRACK_MIN = 100
# What the kernel calls out of line once per fd when the benchmark's poll and
# select walk their 200 /dev/null fds (fdget() -> __fdget -> __fget_light;
# /dev/null has no ->poll). A tracking NOP in these runs 200 times per call.
PER_FD = ["__fdget", "__fget_light"]


# Config symbols of each hardening feature (GCC plugin and passport pass).
FEATURE_SYMS = {
    "stackleak": re.compile(r"STACKLEAK"),
    "latent_entropy": re.compile(r"LATENT_ENTROPY"),
    "structleak": re.compile(r"STRUCTLEAK|INIT_STACK"),
    "randstruct": re.compile(r"RANDSTRUCT|RANDOMIZE_LAYOUT"),
    "all": re.compile(r"STACKLEAK|LATENT_ENTROPY|STRUCTLEAK|INIT_STACK|RANDSTRUCT|GCC_PLUGIN|LLVM_PASS"),
}


def features(cfg):
    """The hardening a .config turns on, in words."""
    if cfg is None:
        return "no .config"
    y = lambda s: cfg.get("CONFIG_" + s) == "y"
    f = []
    if y("GCC_PLUGIN_STACKLEAK"):
        f.append("stackleak (GCC)")
    if y("LLVM_PASS_STACKLEAK"):
        f.append("stackleak (passport)")
    for tool, pre in (("GCC", "GCC_PLUGIN_"), ("passport", "LLVM_PASS_")):
        if y(pre + "LATENT_ENTROPY"):
            f.append("latent_entropy (%s)" % tool)
        for mode in ("USER", "BYREF", "BYREF_ALL"):
            if y(pre + "STRUCTLEAK_" + mode):
                f.append("structleak %s (%s)" % (mode.lower().replace("_", "-"), tool))
    for mode in ("FULL", "PERFORMANCE"):
        if y("RANDSTRUCT_" + mode):
            f.append("randstruct %s (%s)" % (mode.lower(), "GCC" if y("GCC_PLUGIN_RANDSTRUCT") else "Clang/passport"))
    for mode in ("ALL_ZERO", "ALL_PATTERN"):
        if y("INIT_STACK_" + mode):
            f.append("init-stack %s" % mode.lower().replace("_", "-"))
    return ", ".join(f) or "none"


def config_diff(a, b, feature):
    """Symbols that differ between two .configs, outside the feature's own."""
    if a is None or b is None:
        return None
    skip = FEATURE_SYMS.get(feature, FEATURE_SYMS["all"])
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k) and not skip.search(k))


# ---- numbers ----------------------------------------------------------------

def value(boots, phase, op, stat="median"):
    """Mean over the boots of one boot's per-call statistic; None if absent."""
    xs = [b["results"][(phase, op)][stat] for b in boots if (phase, op) in b["results"]]
    return sum(xs) / len(xs) if xs else None


def per_boot(boots, phase, op, stat="median"):
    return [b["results"][(phase, op)][stat] for b in boots if (phase, op) in b["results"]]


def pct(a, b):
    return None if a is None or b is None or b == 0 else (a / b - 1.0) * 100.0


def fmt_ns(x):
    if x is None:
        return "–"
    return "%.0f" % x if x >= 100 else "%.1f" % x


def fmt_pct(x, digits=1):
    if x is None:
        return "–"
    return ("%+." + str(digits) + "f %%") % x


def base_phase(boots):
    """The phase of a kernel's own baseline: off if it has erasing, else none."""
    return "off" if any(("off", "getpid") in b["results"] for b in boots) else "none"


def full_phase(boots):
    return "on" if any(("on", "getpid") in b["results"] for b in boots) else "none"


def norm(name):
    return SUFFIX_RE.sub("", name)


# ---- report sections --------------------------------------------------------

class Report:
    def __init__(self, run, out, plots):
        self.run, self.out, self.plots = run, out, plots
        r = read_run(run)
        self.meta, self.kernels, self.pairs, self.boots = r["meta"], r["kernels"], r["pairs"], r["boots"]
        self.static, self.native, self.buildcost = r["static"], r["native"], r["buildcost"]
        self.verdicts, self.configs, self.stale = r["verdicts"], r["configs"], r["stale"]
        self.md = []
        self.summary = []
        self.figures = []
        self.facts = {}

    def w(self, *lines):
        self.md.extend(lines)

    def missing(self, name):
        k = self.kernels.get(name)
        if k is None:
            return "%s: not in this run" % name
        if k["status"].startswith("missing"):
            return "%s: %s" % (name, k["status"])
        if not self.boots.get(name):
            return "%s: no successful benchmark boot (logs/%s.boot.log)" % (name, name)
        return None

    def table(self, head, rows):
        self.w("| " + " | ".join(head) + " |", "|" + "---|" * len(head))
        for r in rows:
            self.w("| " + " | ".join(str(c) for c in r) + " |")
        self.w("")

    # -- header and kernels --
    def header(self):
        m = self.meta
        self.w("# passport compare: GCC plugins vs passport (Clang/LLVM)", "",
               "Generated by `./passport compare` from the raw data of one run (`%s`); every number "
               "below comes from that run." % os.path.relpath(self.run, os.path.dirname(self.out) or "."), "",
               "- date: %s, commit %s" % (m.get("date", "?"), m.get("commit", "?")),
               "- host: %s (%s cores); %s" % (m.get("host_cpu", "?"), m.get("host_cores", "?"), m.get("qemu", "?")),
               "- options: %s" % m.get("options", "?"), "")

    def method(self):
        self.w("## Method", "",
               "- **In-guest** (`bench/guest-bench.c`, `/bench` in the initramfs): each kernel boots under QEMU TCG with "
               "`-icount shift=0` (`qemu/boot.sh --icount`, `tsc_early_khz=1000000`) and `norandmaps`. Guest time then "
               "counts instructions (1 ns each): deterministic and independent of host load, but it models "
               "instructions only, not caches, memory latency or branch prediction, and QEMU counts every iteration "
               "of `rep stos` as an instruction, so string-instruction costs read as upper bounds. Only ratios mean "
               "anything.",
               "- Each op is timed as samples of a batch of calls (per-call time = sample / batch) after a discarded "
               "warm-up batch; tables give the median per call, with min–max over the samples, and the mean of the "
               "per-boot medians when there are several boots (boot-to-boot agreement is in its own table).",
               "- **Erase cost**: the same boot with `/proc/sys/kernel/stack_erasing` 1 (*on*) and 0 (*off*), taking turns "
               "sample by sample (so drift of the guest's state over the run cannot pose as erase cost); *off* still "
               "runs the tracking calls and the erase entry stub. **Tracking cost**: *off* against a kernel without "
               "stackleak that differs by nothing else (`bench/pairs.txt`). **Erase depth**: `/proc/self/stack_depth` "
               "(`previous stack depth`, STACKLEAK_METRICS) read with one `pread` right after the op; the in-guest "
               "memset of that many bytes is the physical limit of an erase of that depth.",
               "- **Native**: `bench/erase-native.c` on the host, the erase model of `bench/erase-loops.c` (written for "
               "passport: find the used region, write the poison word up to the top; compiled without SSE like kernel "
               "code) against memset of the same bytes, L1-resident, min and median of many samples; the variants "
               "take turns so host load hits them alike.",
               "- **Static**: `objdump -d vmlinux` per function (calls to `stackleak_track_stack`, references to "
               "`latent_entropy`, prologue `sub $N,%rsp`), `size vmlinux`. Function names are matched across compilers "
               "after dropping `.isra.N`/`.constprop.N`/`.part.N`/`.cold` suffixes.",
               "- **Compile time**: `bench/collect.py buildcost` re-runs a sample of a kernel's own recorded compile "
               "commands (`.o.cmd`, ccache removed) with and without the feature's plugin flags, alternating, and "
               "compares CPU time (user+sys of the compiler, from `wait4`); passport's post-codegen step "
               "(`passport-finalize`) counts as *with*. Ratio = Σ per-object median(with) / Σ median(without); a "
               "third, identical *without* (A/A control) measures the run's noise floor. CPU time, not instruction "
               "counts: `perf stat` has no counters on these hosts and callgrind slows a kernel compile ~100×.",
               "")

    def kernels_section(self):
        self.w("## Kernels", "")
        rows = []
        for name, k in self.kernels.items():
            st = self.static.get(name)
            nboots = len(self.boots.get(name, []))
            tracked = sum(f["tracked"] for f in st["fns"].values()) if st else None
            latent = sum(f["latent"] for f in st["fns"].values()) if st else None
            nops = sum(f["nop"] for f in st["fns"].values()) if st else None
            feat = features(self.configs.get(name))
            if self.stale.get(name):
                feat = "⚠ %s (from a .config newer than the booted bzImage: %s)" % (feat, self.stale[name])
            rows.append([name, k["cc"], k["tree"], k["frags"], k["status"], feat,
                         st["text"] if st else "–", tracked if st else "–", nops if st else "–",
                         latent if st else "–", nboots])
        self.table(["kernel", "compiler", "tree (kernels.txt)", "fragments (kernels.txt)", "status",
                    "hardening in the booted .config", "text bytes", "fns tracked (stackleak)",
                    "fns with an entry NOP", "fns touching latent_entropy", "benchmark boots"], rows)
        self.w("With `--reuse` a kernel is booted as it was built; the hardening column is read from its .config, "
               "so a kernel built before its kernels.txt line changed shows what it really has. *Entry NOP*: a "
               "5-byte `nopl` before the function's first jump, call or return, which is what `passport-finalize` "
               "leaves where it removed a tracking call from a function whose final frame is under the threshold "
               "(GCC's plugin deletes the call instead, so on GCC kernels the column counts NOPs of other origin).", "")

    # -- stackleak erase cost --
    def stackleak_kernels(self):
        return [k for k in self.kernels if any(("on", "getpid") in b["results"] for b in self.boots.get(k, []))]

    def erase_section(self):
        self.w("## Stack erase cost (stackleak), same boot, erasing on vs off", "")
        ks = self.stackleak_kernels()
        if not ks:
            self.w("No kernel with `/proc/sys/kernel/stack_erasing` booted in this run.", "")
            return
        for name in ks:
            bs = self.boots[name]
            self.w("### %s (%s)" % (name, self.kernels[name]["cc"]), "")
            rows = []
            for op in OPS:
                on, off = value(bs, "on", op), value(bs, "off", op)
                d = [b["depth"].get(op) for b in bs if op in b["depth"]]
                rows.append([op, fmt_ns(off), fmt_ns(on), fmt_pct(pct(on, off)),
                             "%s–%s" % (fmt_ns(value(bs, "on", op, "min")), fmt_ns(value(bs, "on", op, "max"))),
                             d[0] if d else "–"])
                self.facts[(name, "erase", op)] = pct(on, off)
            self.table(["op", "off ns/call", "on ns/call", "erase cost (on/off)", "on min–max", "erase depth bytes"], rows)
        # side by side
        self.w("### Erase cost side by side", "",
               "Relative (on/off) and absolute (on − off, ns = instructions per call). The relative figure divides by "
               "each kernel's own syscall cost, which differs between compilers; the absolute one compares the erase "
               "work itself.", "")
        rows = []
        for op in OPS:
            row = [OP_DESC[op]]
            for k in ks:
                on, off = value(self.boots[k], "on", op), value(self.boots[k], "off", op)
                self.facts[(k, "erase_ns", op)] = on - off if on is not None and off is not None else None
                row.append("%s (%s ns)" % (fmt_pct(self.facts.get((k, "erase", op))), fmt_ns(self.facts[(k, "erase_ns", op)])))
            rows.append(row)
        self.table(["op"] + ks, rows)
        self.plot_bars("erase-cost", "stack erase cost per syscall (on vs off, same boot)", "erase cost, %",
                       ks, [[self.facts.get((k, "erase", op)) for k in ks] for op in OPS])
        self.w("![erase cost](erase-cost.png) ([SVG](erase-cost.svg))", "")

    def erase_vs_memset(self):
        self.w("## Erase vs memset in the guest (the physical limit)", "",
               "Kernel erase cost per call = on − off (ns, i.e. instructions). User space in the same guest: glibc "
               "memset, `rep stosb`, and the erase models of `bench/erase-loops.c` over the erase depth of that op.", "")
        ks = self.stackleak_kernels()
        if not ks:
            self.w("No stackleak kernel in this run.", "")
            return
        for name in ks:
            bs = self.boots[name]
            rows = []
            for op in OPS:
                on, off = value(bs, "on", op), value(bs, "off", op)
                cost = on - off if on is not None and off is not None else None
                us = {v: value(bs, "user", "%s@%s" % (v, op)) for v in USER_VARIANTS}
                d = [b["depth"].get(op) for b in bs if op in b["depth"]]
                ratio = cost / us["memset"] if cost is not None and us["memset"] else None
                if op not in MULTI:
                    self.facts[(name, "erase/memset", op)] = ratio
                rows.append([op, d[0] if d else "–", fmt_ns(cost)] + [fmt_ns(us[v]) for v in USER_VARIANTS] +
                            ["n/a (%s)" % MULTI[op] if op in MULTI else "%.1f×" % ratio if ratio is not None else "–"])
            self.w("### %s" % name, "")
            self.table(["op", "depth bytes", "kernel erase ns", "memset ns", "rep stosb ns", "erase-words ns",
                        "erase-stosq ns", "erase-unrolled ns", "kernel erase / memset"], rows)

    # -- tracking and total cost from pairs --
    def pairs_section(self):
        self.w("## Cost of each feature: kernels that differ by one feature", "",
               "Median ns/call of WITH against WITHOUT (`bench/pairs.txt`). For stackleak, *tracking* is WITH with "
               "erasing off and *total* is WITH with erasing on; otherwise WITH runs with erasing on when it has "
               "stackleak, and so does WITHOUT.", "")
        rows = []
        for p in self.pairs:
            why = self.missing(p["with"]) or self.missing(p["without"])
            if why:
                rows.append([p["feature"], p["with"], p["without"], "missing: " + why] + [""] * (len(OPS) + 1))
                continue
            bw, bo = self.boots[p["with"]], self.boots[p["without"]]
            ow = full_phase(bo)
            variants = [("tracking (erase off)", base_phase(bw)), ("total (erase on)", full_phase(bw))] \
                if p["feature"] == "stackleak" else [("with vs without", full_phase(bw))]
            for label, ph in variants:
                cells = []
                for op in OPS:
                    x = pct(value(bw, ph, op), value(bo, ow if p["feature"] != "stackleak" else base_phase(bo), op))
                    self.facts[(p["feature"], p["with"], label, op)] = x
                    cells.append(fmt_pct(x, 2))
                ri = pct(mean_or_none([b["run_init"] for b in bw]), mean_or_none([b["run_init"] for b in bo]))
                self.facts[(p["feature"], p["with"], label, "boot")] = ri
                rows.append([p["feature"], p["with"], p["without"], label] + cells + [fmt_pct(ri, 2)])
        self.table(["feature", "with", "without", "what"] + OPS + ["boot to Run /init"], rows)
        series = [(p, label) for p in self.pairs for label in ("tracking (erase off)", "total (erase on)", "with vs without")
                  if (p["feature"], p["with"], label, "getpid") in self.facts]
        if series:
            names = ["%s:%s%s" % (p["feature"], p["with"], "" if p["feature"] != "stackleak" else
                                  (":tracking" if label.startswith("tracking") else ":total")) for p, label in series]
            self.plot_bars("feature-cost", "cost of one feature: kernel with vs without (median per call)", "cost, %",
                           names, [[self.facts.get((p["feature"], p["with"], label, op)) for p, label in series] for op in OPS])
            self.w("![feature cost](feature-cost.png) ([SVG](feature-cost.svg))", "")
        self.w("Pair check: configuration symbols that differ between WITH and WITHOUT besides the feature's own "
               "(a non-empty list means the pair measures more than the feature):", "")
        rows = []
        for p in self.pairs:
            d = config_diff(self.configs.get(p["with"]), self.configs.get(p["without"]), p["feature"])
            self.facts[("pairdiff", p["feature"], p["with"])] = d
            stale = [k for k in (p["with"], p["without"]) if self.stale.get(k)]
            rows.append([p["feature"], p["with"], p["without"],
                         ("⚠ unreliable: the .config of %s is newer than its bzImage; " % ", ".join(stale) if stale else "") +
                         ("no .config" if d is None else ("none" if not d else "%d: %s" % (
                             len(d), ", ".join(x.replace("CONFIG_", "") for x in d[:8]) + (" …" if len(d) > 8 else ""))))])
        self.table(["feature", "with", "without", "other differing symbols"], rows)

    def boot_time_section(self):
        self.w("## Boot time to `Run /init` (printk time under icount)", "")
        rows = []
        for name in self.kernels:
            bs = self.boots.get(name, [])
            ts = [b["run_init"] for b in bs if b["run_init"] is not None]
            rows.append([name, " / ".join("%.6f" % t for t in ts) if ts else (self.missing(name) or "no mark")])
        self.table(["kernel", "seconds (per boot)"], rows)

    def reproducibility(self):
        self.w("## Boot-to-boot agreement", "",
               "Largest difference between two boots of the same kernel in the erase cost (percentage points) and in "
               "any median (relative). " + (
                   "Each boot had a different command line (%s), so the boots are repetitions, not replays." %
                   self.meta["boot_variation"] if "boot_variation" in self.meta else
                   "**The boots of this run had identical inputs, which QEMU -icount replays bit for bit: agreement "
                   "here shows determinism, not the spread.** Across runs (initramfs rebuilt with other timestamps) "
                   "the multi-syscall ops procfs and fork can move by several percentage points while the single syscalls "
                   "do not; "
                   "newer runs vary the command line per boot."), "")
        rows = []
        for name, bs in self.boots.items():
            if len(bs) < 2:
                rows.append([name, "one boot only", "–"])
                continue
            pp, rel = [], []
            for op in OPS:
                e = [pct(b["results"].get(("on", op), {}).get("median"), b["results"].get(("off", op), {}).get("median"))
                     for b in bs]
                e = [x for x in e if x is not None]
                if len(e) >= 2:
                    pp.append(max(e) - min(e))
                for ph in ("on", "off", "none"):
                    m = per_boot(bs, ph, op)
                    if len(m) >= 2 and min(m) > 0:
                        rel.append((max(m) / min(m) - 1) * 100)
            rows.append([name, "%.2f pp" % max(pp) if pp else "–", "%.2f %%" % max(rel) if rel else "–"])
        self.table(["kernel", "erase cost, max spread", "medians, max spread"], rows)

    # -- native --
    def native_section(self):
        self.w("## Native: erase loop vs memset (host)", "")
        n = self.native
        if not n:
            self.w("missing: no native.txt in this run.", "")
            return
        sizes = sorted({b for (_, b) in n})
        rows = []
        for b in sizes:
            row = ["%d KiB" % (b // 1024)]
            for v in USER_VARIANTS:
                x = n.get((v, b))
                row.append("%.1f / %.1f" % (x["min"], x["median"]) if x else "–")
            for v in ERASES:
                x = n.get((v, b))
                cell = []
                for ref in ("memset", "memset-stosb"):
                    r = n.get((ref, b))
                    if x and r:
                        self.facts[("native", v, ref, b)] = (x["min"] / r["min"], x["median"] / r["median"])
                        cell.append("%.2f×" % self.facts[("native", v, ref, b)][0])
                    else:
                        cell.append("–")
                row.append(" / ".join(cell))
            rows.append(row)
        self.table(["depth"] + ["%s min/med ns" % v for v in USER_VARIANTS] +
                   ["%s ÷ memset / ÷ rep stosb (min)" % v for v in ERASES], rows)
        worst = {}
        for v in ERASES:
            for ref in ("memset", "memset-stosb"):
                xs = [self.facts[("native", v, ref, b)] for b in sizes if ("native", v, ref, b) in self.facts]
                worst[(v, ref)] = (max(x[0] for x in xs), max(x[1] for x in xs)) if xs else None
        def say(v, ref):
            w = worst[(v, ref)]
            return "–" if w is None else "%.2f× (min) / %.2f× (median)" % w
        def meets(v, ref):
            w = worst[(v, ref)]
            return w is not None and w[0] <= 1.5
        self.w("Target: erase within 1.5× of memset over 1–16 KiB, judged on the minima (the median carries the "
               "host's load; both are shown). Worst case over the sizes:", "",
               "- kernel-shape word loop (`erase-words`): %s glibc memset, %s `rep stosb` → %s" % (
                   say("erase-words", "memset"), say("erase-words", "memset-stosb"),
                   "meets the target" if meets("erase-words", "memset") else "misses the target"),
               "- `rep stosq` erase (`erase-stosq`): %s glibc memset, %s `rep stosb` (the kernel's own memset) → %s" % (
                   say("erase-stosq", "memset"), say("erase-stosq", "memset-stosb"),
                   "meets it against glibc memset" if meets("erase-stosq", "memset") else
                   "meets it against the kernel's memset (`rep stosb`), not against glibc's vector memset at small sizes"
                   if meets("erase-stosq", "memset-stosb") else "misses it"),
               "- four stores per iteration (`erase-unrolled`): %s glibc memset, %s `rep stosb` → %s" % (
                   say("erase-unrolled", "memset"), say("erase-unrolled", "memset-stosb"),
                   "meets it against glibc memset" if meets("erase-unrolled", "memset") else
                   "meets it against the kernel's memset (`rep stosb`)" if meets("erase-unrolled", "memset-stosb")
                   else "misses it"),
               "", "glibc's memset uses vector stores that kernel code cannot (no SSE/AVX in the kernel), so against "
               "it an 8-byte-store erase is bound to lose at small sizes; `rep stosb` is what the kernel's own memset "
               "does.", "")
        if all(worst.values()):
            self.summary.append("native erase/memset, worst over 1-16 KiB (min-based): word loop %.1fx glibc memset, "
                                "%.1fx rep stosb; rep stosq %.2fx rep stosb; unrolled %.2fx rep stosb (target 1.5x)" % (
                                    worst[("erase-words", "memset")][0], worst[("erase-words", "memset-stosb")][0],
                                    worst[("erase-stosq", "memset-stosb")][0], worst[("erase-unrolled", "memset-stosb")][0]))
        self.plot_lines("native", "native erase vs memset (median ns per call)", sizes,
                        {v: [n[(v, b)]["median"] if (v, b) in n else None for b in sizes] for v in USER_VARIANTS})
        self.w("![native](native.png) ([SVG](native.svg))", "")

    # -- static --
    def static_section(self):
        self.w("## Instrumentation: GCC plugin vs passport, per function", "")
        gcc = [k for k in self.kernels if self.kernels[k]["cc"].startswith("gcc") and self.static.get(k)
               and any(f["tracked"] for f in self.static[k]["fns"].values())]
        clang = [k for k in self.kernels if self.kernels[k]["cc"].startswith("clang") and self.static.get(k)]
        ref = "gcc12" if "gcc12" in gcc else (gcc[0] if gcc else None)
        if not ref or not clang:
            self.w("missing: needs a GCC stackleak kernel and a Clang kernel with vmlinux in this run.", "")
            return
        for feature, key in (("stackleak", "tracked"), ("latent_entropy", "latent")):
            self.w("### %s: %s vs each Clang kernel" % (feature, ref), "")
            rows, details = [], []
            for c in clang:
                a, b = self.static[ref]["fns"], self.static[c]["fns"]
                sa = {norm(n) for n, f in a.items() if f[key]}
                sb = {norm(n) for n, f in b.items() if f[key]}
                if not sb:
                    rows.append([c, len(sa), 0, "–", "–", "–", "passport %s is not in this kernel" % feature])
                    continue
                jac = len(sa & sb) / len(sa | sb)
                self.facts[("jaccard", feature, c)] = jac
                ra = reasons(sa - sb, a, b, key)
                rb = reasons(sb - sa, b, a, key)
                self.facts[("untracked-present", feature, c)] = ra["counts"].get("other side: present, not instrumented", 0)
                # the coverage rule: analysis/kfacts.py, as the boot layer's
                self.facts[("untracked-large", feature, c)] = sum(f["untracked"] for f in b.values())
                rows.append([c, len(sa), len(sb), len(sa & sb), "%.2f" % jac,
                             "%d GCC-only, %d Clang-only" % (len(sa - sb), len(sb - sa)),
                             "; ".join(["GCC-only, %s: %d" % kv_ for kv_ in ra["counts"].items()] +
                                       ["Clang-only, %s: %d" % kv_ for kv_ in rb["counts"].items()]) or "–"])
                details.append((c, ra, rb))
            self.table(["Clang kernel", "%s fns (%s)" % (ref, feature), "Clang fns", "both", "Jaccard",
                        "only one side", "reasons"], rows)
            for c, ra, rb in details:
                self.w("Top examples, %s vs %s (frame = final frame: .stack_sizes minus callee-saved pushes; "
                       "? = unknown, no .stack_sizes):" % (ref, c), "")
                ex = [["GCC-only", e["name"], e["section"], e["frame"], e["other"], e["reason"]] for e in ra["examples"]] + \
                     [["Clang-only", e["name"], e["section"], e["frame"], e["other"], e["reason"]] for e in rb["examples"]]
                self.table(["side", "function", "section", "frame here", "frame in other", "reason"], ex)
        self.w("### Functions touching latent_entropy, per section", "")
        rows = []
        for k in self.kernels:
            st = self.static.get(k)
            if not st:
                continue
            per = {}
            for f in st["fns"].values():
                if f["latent"]:
                    per[f["section"]] = per.get(f["section"], 0) + 1
            if per:
                rows.append([k, sum(per.values()), ", ".join("%s %d" % kv_ for kv_ in sorted(per.items(), key=lambda x: -x[1]))])
        if rows:
            self.table(["kernel", "functions", "by section"], rows)
        else:
            self.w("No kernel of this run has functions touching latent_entropy.", "")
        self.w("### Text size", "")
        rows = []
        for p in self.pairs:
            sw, so = self.static.get(p["with"]), self.static.get(p["without"])
            if sw and so:
                rows.append([p["feature"], p["with"], p["without"], sw["text"], so["text"],
                             "%+d" % (sw["text"] - so["text"]), fmt_pct(pct(sw["text"], so["text"]), 2)])
            else:
                rows.append([p["feature"], p["with"], p["without"], "–", "–", "–",
                             "missing: " + ", ".join(k for k in (p["with"], p["without"]) if not self.static.get(k))])
        if self.static.get(ref):
            for c in clang:
                rows.append(["GCC vs Clang", c, ref, self.static[c]["text"], self.static[ref]["text"],
                             "%+d" % (self.static[c]["text"] - self.static[ref]["text"]),
                             fmt_pct(pct(self.static[c]["text"], self.static[ref]["text"]), 2)])
        self.table(["feature", "kernel", "baseline", "text", "baseline text", "delta bytes", "delta"], rows)

    # -- compile time --
    def buildcost_section(self):
        self.w("## Compile-time cost of the plugins", "")
        if not self.buildcost:
            self.w("missing: the compile-time measurement did not run (`--no-buildcost` or it failed; "
                   "logs/buildcost.log).", "")
            return
        rows = []
        for (kernel, feature), d in sorted(self.buildcost.items()):
            objs = d["objects"].values()
            total = {v: sum(statistics.median(o[v]) for o in objs) if all(o[v] for o in objs) else None
                     for v in ("with", "without", "control")}
            sw, so, sc = total["with"], total["without"], total["control"]
            mw = sum(min(o["with"]) for o in objs)
            mo = sum(min(o["without"]) for o in objs)
            per = [statistics.median(o["with"]) / statistics.median(o["without"]) - 1 for o in objs]
            reps = max(len(o["with"]) for o in objs)
            cost = (sw / so - 1) * 100
            noise = abs(sc / so - 1) * 100 if sc else None
            if noise is not None:
                # one A/A comparison underestimates; where medians and minima
                # disagree by more, that disagreement is the noise
                noise = max(noise, abs(cost - (mw / mo - 1) * 100))
            self.facts[("buildcost", kernel, feature)] = cost
            self.facts[("buildcost-noise", kernel, feature)] = noise
            if noise is None:
                judged = "– (no control in this run)"
            elif cost < -noise:
                judged = "– not resolved: a saving larger than the A/A noise means the host drifted"
            elif cost - noise > 1.0:
                judged = "✗ above 1 %% by %.2f pp beyond the noise" % (cost - noise - 1.0)
            elif cost + noise <= 1.0:
                judged = "✓"
            else:
                judged = "– not resolved: 1 % lies within cost ± noise"
            rows.append([kernel, feature, len(d["objects"]), reps, "%.2f" % sw, "%.2f" % so,
                         fmt_pct(cost, 2), fmt_pct((mw / mo - 1) * 100, 2),
                         "±%.2f %%" % (abs(sc / so - 1) * 100) if sc else "–",
                         "%+.1f … %+.1f %%" % (min(per) * 100, max(per) * 100), judged])
        self.table(["kernel", "feature", "objects", "reps", "Σ median with (CPU s)", "Σ median without",
                    "cost (medians)", "cost (minima)", "noise (A/A)", "per-object range", "≤ 1 %?"], rows)
        self.w("Target ≤ 1 %. *Noise (A/A)*: the same Σ-of-medians comparison between *without* and a second, "
               "identical *without* (*control*) run in turn with the others; a cost is judged only where it is "
               "farther from 1 % than that noise or than the gap between the medians' and the minima's cost, "
               "whichever is larger. A host shared with kernel builds spreads single compiles by several per "
               "cent; the per-object range shows how far one object's estimate can be trusted.", "")

    # -- verdicts --
    def stackleak_verdict(self, clang):
        """(coverage, in-guest, cost): each (state, evidence); state ✓, ✗ or –."""
        sl = [c for c in clang if self.static.get(c) and any(f["tracked"] for f in self.static[c]["fns"].values())]
        if not sl:
            none = ("–", "no Clang kernel with passport stackleak in this run")
            return none, none, none
        cov = [(c, self.facts.get(("untracked-large", "stackleak", c)), self.facts.get(("jaccard", "stackleak", c)))
               for c in sl]
        if any(u is None for _, u, _ in cov):
            coverage = ("–", "no GCC stackleak kernel to compare with")
        else:
            coverage = ("✓" if all(u == 0 for _, u, _ in cov) else "✗",
                        "; ".join("%s: %d functions with a final frame ≥ %d left untracked (Jaccard with GCC %.2f)"
                                  % (c, u, TRACK_MIN, j) for c, u, j in cov))
        ev, ok = [], True
        for c in sl:
            v = self.verdicts.get(c)
            onoff = c in self.stackleak_kernels()
            if not v:
                ev.append("%s: no verdict boot" % c)
                ok = None if ok else ok
                continue
            good = v["lkdtm_ok"] == 2 and v["lkdtm_fail"] == 0 and onoff
            ok = ok and good if ok is not None else ok
            ev.append("%s: LKDTM STACKLEAK_ERASING OK %d/2, FAIL %d; stack_erasing on/off %s" % (
                c, v["lkdtm_ok"], v["lkdtm_fail"], "measured" if onoff else "missing"))
        tests = ("✓" if ok else "✗" if ok is False else "–", "; ".join(ev))
        g = "gcc12" if "gcc12" in self.stackleak_kernels() else None
        if not g:
            return coverage, tests, ("–", "no GCC stackleak kernel booted in this run")
        ev, ok = [], True
        for c in sl:
            if c not in self.stackleak_kernels():
                continue
            r = [(op, self.facts.get((c, "erase_ns", op)), self.facts.get((g, "erase_ns", op))) for op in SINGLE]
            r = [(op, a / b) for op, a, b in r if a is not None and b]
            ok = ok and all(x <= COST_TOL for _, x in r)
            ev.append("%s erase work ÷ GCC's: %s" % (c, ", ".join("%s %.2f×" % (op, x) for op, x in r)))
        # tracking cost: passport's (erase off vs its no-stackleak twin) against GCC's
        tracking, track = [], self.tracking_ns()
        for p in self.pairs:
            if p["feature"] == "stackleak":
                t = [self.facts.get(("stackleak", p["with"], "tracking (erase off)", op)) for op in SINGLE]
                if p["with"] not in track:
                    tracking.append("%s tracking: missing (%s)" % (p["with"], self.missing(p["with"]) or self.missing(p["without"])))
                else:
                    tracking.append("%s tracking: %s" % (p["with"], ", ".join(
                        "%s %s (%s ns)" % (op, fmt_pct(x, 2), fmt_ns(n)) for op, x, n in zip(SINGLE, t, track[p["with"]]))))
                    if (p["with"], "nop_ns") in self.facts:
                        tracking.append("%s: %s of it are the tracking NOPs of the per-fd path (see *Where the "
                                        "tracking cost goes*)" % (p["with"], self.facts[(p["with"], "nop_ns")]))
        gt = track.get(g)
        ct = [track[c] for c in sl if c in track]
        if gt is None or not ct:
            tstate = None
        else:
            # absolute: Clang's syscalls are cheaper, so equal work reads as a
            # larger percentage there
            tstate = all(x <= max(y, 1.0) * COST_TOL + TRACK_TOL_NS for t in ct for x, y in zip(t, gt))
        if not ev:
            state = "–"
        elif not ok or tstate is False:
            state = "✗"
        else:
            state = "✓" if tstate else "–"
        cost = (state, "; ".join(ev + tracking))
        return coverage, tests, cost

    def tracking_ns(self, phase=base_phase):
        """{kernel: [instructions per call its stackleak adds, per SINGLE op]}:
        WITH in PHASE (default erase off: tracking only; full_phase: tracking
        and erase) against its no-stackleak twin (bench/pairs.txt)."""
        track = {}
        for p in self.pairs:
            if p["feature"] != "stackleak" or self.missing(p["with"]) or self.missing(p["without"]):
                continue
            bw, bo = self.boots[p["with"]], self.boots[p["without"]]
            ns = [value(bw, phase(bw), op) for op in SINGLE], [value(bo, base_phase(bo), op) for op in SINGLE]
            if None not in ns[0] + ns[1]:
                track[p["with"]] = [a - b for a, b in zip(*ns)]
        return track

    def tracking_nops_section(self):
        """Where passport's extra tracking cost on poll/select goes: the NOPs
        passport-finalize leaves in the functions called once per fd, each one
        an instruction under -icount."""
        self.w("### Where the tracking cost goes: NOPs on the per-fd path", "")
        track = self.tracking_ns()
        gcc = [k for k in track if self.kernels[k]["cc"].startswith("gcc")]
        clang = [k for k in track if self.kernels[k]["cc"].startswith("clang")]
        if not gcc or not clang or any(not self.static.get(k) for k in gcc + clang):
            self.w("missing: needs a GCC and a Clang stackleak pair with boots and static data in this run.", "")
            return
        g = gcc[0]
        fds = [int(b["info"]["fds"]) for k in gcc + clang for b in self.boots[k] if "fds" in b["info"]]
        if not fds or len(set(fds)) != 1:
            self.w("missing: the boots do not agree on the number of fds polled (%s)." % sorted(set(fds)), "")
            return
        fds = fds[0]
        self.w("poll and select walk %d fds; per fd the kernel calls %s out of line. Each entry NOP "
               "`passport-finalize` left in them is one more instruction per fd, which `-icount` counts like any "
               "other (on hardware a 5-byte NOP decodes and retires without executing; this model cannot say "
               "how much of it remains). *Predicted*: (entry NOPs and tracking calls on the per-fd path, Clang "
               "minus %s) × %d fds; *measured*: the Clang kernel's tracking cost minus %s's, per call." % (
                   fds, " and ".join("`%s`" % f for f in PER_FD), g, fds, g), "")
        rows = []
        gs = self.static[g]["fns"]
        gnop = sum(gs[f]["nop"] + gs[f]["tracked"] for f in PER_FD if f in gs)
        for c in clang:
            cs = self.static[c]["fns"]
            have = [f for f in PER_FD if f in cs]
            n = sum(cs[f]["nop"] + cs[f]["tracked"] for f in have)
            pred = (n - gnop) * fds
            meas = {op: track[c][SINGLE.index(op)] - track[g][SINGLE.index(op)] for op in ("poll", "select")}
            self.facts[(c, "nop_ns")] = "%d ns per call (%d NOPs × %d fds)" % (pred, n - gnop, fds)
            rows.append([c, ", ".join("%s %s" % (f, "NOP" if cs[f]["nop"] else "call" if cs[f]["tracked"] else "none")
                                      for f in have) or "inlined", n - gnop, pred,
                         fmt_ns(meas["poll"]), fmt_ns(meas["select"]),
                         fmt_ns(meas["poll"] - pred), fmt_ns(meas["select"] - pred)])
        self.table(["kernel", "per-fd functions", "NOPs per fd (vs %s)" % g, "predicted ns/call",
                    "measured poll", "measured select", "poll rest", "select rest"], rows)

    def targets_section(self):
        """The issue's three targets, each met or missed and by how much."""
        self.w("## Targets", "")
        rows = []
        # 1. stackleak overhead (tracking + erase, vs the no-stackleak twin), Clang against GCC, per call
        total = self.tracking_ns(full_phase)
        gcc = [k for k in total if self.kernels[k]["cc"].startswith("gcc")]
        clang = [k for k in total if self.kernels[k]["cc"].startswith("clang")]
        if gcc and clang:
            g = gcc[0]
            for c in clang:
                over = [(op, x - y) for op, x, y in zip(SINGLE, total[c], total[g]) if x > y]
                nops = self.facts.get((c, "nop_ns"))
                rows.append(["stackleak overhead of %s ≤ %s's (instructions per call, tracking + erase)" % (c, g),
                             ", ".join("%s %s / %s" % (op, fmt_ns(x), fmt_ns(y)) for op, x, y in zip(SINGLE, total[c], total[g])),
                             "✓ met" if not over else "✗ missed by " + ", ".join("%s %s" % (op, fmt_ns(d)) for op, d in over)
                             + ("; the per-fd path's entry NOPs are %s" % nops if nops else "")])
        else:
            rows.append(["stackleak overhead, Clang ≤ GCC", "–", "– not measurable: needs a GCC and a Clang stackleak pair"])
        # 2. erase within 1.5x of memset of the same bytes: in the guest and natively
        for k in self.stackleak_kernels():
            r = [(op, self.facts.get((k, "erase/memset", op))) for op in SINGLE]
            r = [(op, x) for op, x in r if x is not None]
            if r:
                worst = max(x for _, x in r)
                rows.append(["%s erase ≤ 1.5× guest memset of the same depth" % k,
                             ", ".join("%s %.1f×" % (op, x) for op, x in r),
                             "✓ met" if worst <= 1.5 else "✗ missed by %.1f× (worst %.1f×)" % (worst / 1.5, worst)])
        for v in ERASES:
            xs = [x[0] for k, x in self.facts.items() if k[:3] == ("native", v, "memset")]
            if xs:
                rows.append(["native %s ≤ 1.5× glibc memset (minima, 1–16 KiB)" % v, "worst %.2f×" % max(xs),
                             "✓ met" if max(xs) <= 1.5 else "✗ missed by %.1f×" % (max(xs) / 1.5)])
        # 3. passes add ≤ 1 % to build time
        for (kernel, feature), _ in sorted(self.buildcost.items()):
            x, noise = self.facts[("buildcost", kernel, feature)], self.facts.get(("buildcost-noise", kernel, feature))
            rows.append(["compile time of %s on %s ≤ +1 %%" % (feature, kernel),
                         "%s (noise ±%s)" % (fmt_pct(x, 2), "%.2f %%" % noise if noise is not None else "?"),
                         "– not resolved: a saving larger than the A/A noise" if noise is not None and x < -noise else
                         "✓ met" if noise is not None and x + noise <= 1.0 else
                         "✗ missed by %.2f pp" % (x - 1.0) if noise is not None and x - noise > 1.0 else
                         "– not resolved within the noise"])
        if not self.buildcost:
            rows.append(["compile time ≤ +1 %", "–", "– not measured in this run"])
        self.table(["target", "measured", "verdict"], rows)
        self.w("Where the time goes: *Where the tracking cost goes* sets the entry NOPs of the per-fd path beside "
               "the stackleak overhead difference; *Native* times the erase's 8-byte store loop (and the search for "
               "the used region) against vector and `rep stos` stores of the same bytes.", "")

    def pair_cost(self, feature, compiler):
        """(fork %, boot %, label) of the feature's pair on GCC or Clang, or a reason string."""
        for p in self.pairs:
            k = self.kernels.get(p["with"])
            cc = k["cc"] if k else p["with"]   # a kernel not in the run: its name says the compiler
            if p["feature"] != feature or not cc.startswith(compiler):
                continue
            x = self.facts.get((feature, p["with"], "with vs without", "fork"))
            if x is None:
                return "%s: missing (%s)" % (p["label"], self.missing(p["with"]) or self.missing(p["without"]))
            return (x, self.facts.get((feature, p["with"], "with vs without", "boot")), p["label"])
        return "no %s pair for %s in this run" % (compiler.upper(), feature)

    def other_verdict(self, feature, clang):
        """(coverage, in-guest, cost) for structleak, latent_entropy, randstruct."""
        have = [c for c in clang if feature.replace("_", " ") in features(self.configs.get(c)).replace("_", " ")]
        why = "no Clang kernel in this run has passport %s in its .config" % feature
        if not have:
            g = self.pair_cost(feature, "gcc")
            ref = "GCC reference cost: " + (g if isinstance(g, str) else "%s: fork %s, boot %s" % (
                g[2], fmt_pct(g[0], 2), fmt_pct(g[1], 2)))
            return ("–", why), ("–", why), ("–", why + "; " + ref)
        # coverage
        if feature == "latent_entropy":
            ev, ok = [], True
            for c in have:
                u = self.facts.get(("untracked-present", feature, c))
                if u is None:
                    ev.append("%s: no GCC latent_entropy kernel to compare with" % c)
                    ok = None
                    continue
                ok = ok and u == 0 if ok is not None else ok
                ev.append("%s: %d GCC-instrumented functions present but not instrumented (Jaccard %.2f)" % (
                    c, u, self.facts.get(("jaccard", feature, c), 0)))
            coverage = ("✓" if ok else "✗" if ok is False else "–", "; ".join(ev))
        elif feature == "structleak":
            coverage = ("–", "zeroing leaves no call to count in vmlinux; the per-variable agreement is the lit "
                             "differential test's (not part of this run)")
        else:
            coverage = ("–", "layout identity is checked by the boot tests (randstruct offsets), not by compare")
        # in-guest
        ev, ok = [], None
        for c in have:
            v = self.verdicts.get(c)
            if not v:
                ev.append("%s: no verdict boot" % c)
            elif feature == "latent_entropy":
                good = v["latent"] == "changed"
                ok = good if ok is None else ok and good
                ev.append("%s: latent_entropy across 32 forks: %s" % (c, v["latent"]))
            elif feature == "structleak" and v["stackinit"]:
                ref = self.verdicts.get("gcc11-structleak")
                good = v["stackinit"][1] == 0 and ref is not None and ref["stackinit"] == v["stackinit"]
                ok = good if ok is None else ok and good
                ev.append("%s: stackinit pass/fail/skip %d/%d/%d, auto-init %s (gcc11-structleak: %s)" % (
                    (c,) + v["stackinit"] + (v["autoinit"], "%d/%d/%d" % ref["stackinit"] if ref and ref["stackinit"] else "missing")))
        tests = ("✓" if ok else "✗" if ok is False else "–", "; ".join(ev) or "no in-guest check for %s in compare" % feature)
        # cost: Clang's one-feature pair against GCC's, fork and boot
        g, c = self.pair_cost(feature, "gcc"), self.pair_cost(feature, "clang")
        if isinstance(g, str) or isinstance(c, str):
            cost = ("–", "; ".join(x if isinstance(x, str) else "%s: fork %s, boot %s" % (x[2], fmt_pct(x[0], 2), fmt_pct(x[1], 2))
                                   for x in (g, c)))
        else:
            good = c[0] <= g[0] + PAIR_TOL_PP and (c[1] is None or g[1] is None or c[1] <= g[1] + PAIR_TOL_PP)
            cost = ("✓" if good else "✗", "%s: fork %s, boot %s; %s: fork %s, boot %s" % (
                g[2], fmt_pct(g[0], 2), fmt_pct(g[1], 2), c[2], fmt_pct(c[0], 2), fmt_pct(c[1], 2)))
        return coverage, tests, cost

    def verdict_section(self):
        self.w("## Verdict: can passport replace each GCC plugin?", "",
               "Criteria, each judged on this run only: **coverage** – no function of the Clang kernel "
               "whose final frame (.stack_sizes minus callee-saved pushes) is ≥ %d bytes lacks the tracking call, "
               "outside the exclusions GCC's plugin also makes (analysis/kfacts.py, the rule of the boot layer's "
               "stackleak-coverage check; the Jaccard index with GCC's instrumented set is shown, not judged: the "
               "compilers inline differently); **in-guest** – the kernel's own test passes on every Clang kernel "
               "with the feature (LKDTM STACKLEAK_ERASING OK twice, erasing switchable); **cost** – passport's erase "
               "work per single syscall (on − off) is at most %.2f× the GCC kernel's, and its tracking cost (erase off vs the same kernel without stackleak, in instructions per call) at most %.2f× GCC's + %.0f; for the other plugins, the same comparisons where this run has the data (latent_entropy: every GCC-instrumented function that exists in the Clang kernel instrumented, latent_entropy changing across fork, cost of the Clang one-feature pair on fork and boot at most %.1f pp above GCC's; structleak: KUnit stackinit results equal to the GCC structleak kernel's). ✓ met, ✗ not met, – not "
               "measurable in this run (the reason is given). Replaceable = all three ✓." % (TRACK_MIN, COST_TOL, COST_TOL, TRACK_TOL_NS, PAIR_TOL_PP), "")
        clang = [k for k in self.kernels if self.kernels[k]["cc"].startswith("clang") and not self.missing(k)]
        rows = []
        parts = self.stackleak_verdict(clang)
        rows.append(["stackleak"] + [verdict(parts)] + ["%s %s" % x for x in parts])
        for feature in ("structleak", "latent_entropy", "randstruct"):
            parts = self.other_verdict(feature, clang)
            rows.append([feature, verdict(parts)] + ["%s %s" % x for x in parts])
        self.table(["GCC plugin", "replaceable?", "coverage", "in-guest", "cost"], rows)
        for r in rows:
            self.summary.append("verdict %s: %s" % (r[0], r[1]))

    # -- plots --
    def plot_bars(self, name, title, ylabel, series, data):
        if not self.plots:
            return
        dat = os.path.join(self.out, name + ".dat")
        with open(dat, "w") as f:
            f.write("op " + " ".join(series) + "\n")
            for op, row in zip(OPS, data):
                f.write(op + " " + " ".join("%.3f" % x if x is not None else "NaN" for x in row) + "\n")
        cols = ", ".join("'%s' using %d:xtic(1) title columnheader(%d)" % (name + ".dat", i + 2, i + 2)
                         for i in range(len(series)))
        self.gnuplot(name, "set style data histograms\nset style histogram clustered gap 1\n"
                           "set style fill solid 0.8 border -1\nset ylabel '%s'\nset title '%s'\n"
                           "set key top right\nset grid ytics\nplot %s\n" % (ylabel, title, cols))

    def plot_lines(self, name, title, sizes, series):
        if not self.plots:
            return
        dat = os.path.join(self.out, name + ".dat")
        names = list(series)
        with open(dat, "w") as f:
            f.write("bytes " + " ".join(names) + "\n")
            for i, b in enumerate(sizes):
                f.write("%d " % b + " ".join("%.3f" % series[v][i] if series[v][i] is not None else "NaN"
                                             for v in names) + "\n")
        cols = ", ".join("'%s' using 1:%d with linespoints title columnheader(%d)" % (name + ".dat", i + 2, i + 2)
                         for i in range(len(names)))
        self.gnuplot(name, "set logscale xy 2\nset xlabel 'bytes'\nset ylabel 'ns per call (median)'\n"
                           "set title '%s'\nset key top left\nset grid\nplot %s\n" % (title, cols))

    def gnuplot(self, name, body):
        for term, ext in (("pngcairo size 900,520" if has_cairo() else "png size 900,520", "png"),
                          ("svg size 900,520", "svg")):
            script = "set terminal %s noenhanced\nset output '%s.%s'\n%s" % (term, name, ext, body)
            r = subprocess.run(["gnuplot"], input=script, text=True, cwd=self.out, capture_output=True)
            if r.returncode != 0:
                sys.exit("report: gnuplot failed for %s.%s: %s" % (name, ext, r.stderr.strip()))
        self.figures.append(name)

    def write(self):
        os.makedirs(self.out, exist_ok=True)
        self.header()
        self.method()
        self.kernels_section()
        self.erase_section()
        self.erase_vs_memset()
        self.pairs_section()
        self.tracking_nops_section()
        self.boot_time_section()
        self.reproducibility()
        self.native_section()
        self.static_section()
        self.buildcost_section()
        self.verdict_section()
        self.targets_section()
        missing = [self.missing(k) for k in self.kernels if self.missing(k)]
        self.w("## Missing from this run", "")
        self.w(*(["- " + m for m in missing] or ["- nothing: every kernel of this run built and booted"]))
        absent = sorted({k for p in self.pairs for k in (p["with"], p["without"]) if k not in self.kernels})
        if absent:
            self.w("- not in this run (`--kernels`), though bench/pairs.txt names them: " + ", ".join(absent))
        self.w("")
        with open(os.path.join(self.out, "index.md"), "w") as f:
            f.write("\n".join(self.md) + "\n")
        for k in self.stackleak_kernels():
            self.summary.insert(0, "%s erase cost: %s" % (k, ", ".join(
                "%s %s" % (op, fmt_pct(self.facts.get((k, "erase", op)))) for op in OPS)))
        for p in self.pairs:
            for label in ("tracking (erase off)", "total (erase on)", "with vs without"):
                if (p["feature"], p["with"], label, "getpid") in self.facts:
                    self.summary.append("%s %s vs %s, %s: %s; boot %s" % (
                        p["feature"], p["with"], p["without"], label, ", ".join(
                            "%s %s" % (op, fmt_pct(self.facts[(p["feature"], p["with"], label, op)], 2)) for op in OPS),
                        fmt_pct(self.facts.get((p["feature"], p["with"], label, "boot")), 2)))
        for (kernel, feature), _ in sorted(self.buildcost.items()):
            self.summary.append("compile-time cost %s %s: %s" % (kernel, feature,
                                                                 fmt_pct(self.facts[("buildcost", kernel, feature)], 2)))
        if missing:
            self.summary.append("missing: " + "; ".join(missing))
        with open(os.path.join(self.out, "summary.txt"), "w") as f:
            f.write("\n".join(self.summary) + "\n")
        print("\n".join(self.summary))


def verdict(parts):
    states = [p[0] for p in parts]
    if all(x == "✓" for x in states):
        return "yes"
    if "✗" in states:
        return "no (see ✗)"
    return "not shown by this run"


def mean_or_none(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def frame_text(f):
    return "?" if f["frame"] < 0 else f["frame"]


def reasons(only, here, other, key):
    """Why functions instrumented on one side are not on the other."""
    onorm = {}
    for n, f in other.items():
        onorm.setdefault(norm(n), f)
    hnorm = {}
    for n, f in here.items():
        if f[key]:
            hnorm.setdefault(norm(n), f)
    counts, examples = {}, []
    for n in only:
        f, o = hnorm[n], onorm.get(n)
        if o is None:
            r = "other side: function absent (inlined or not emitted)"
        elif key == "tracked" and o["frame"] < 0:
            r = "other side: frame unknown (no .stack_sizes)"
        elif key == "tracked" and o["frame"] < TRACK_MIN:
            r = "other side: frame < %d" % TRACK_MIN
        elif key == "tracked" and o["untracked"]:
            r = "other side: untracked although its final frame is ≥ %d bytes" % TRACK_MIN
        elif key == "tracked":
            r = "other side: frame ≥ %d, not instrumented, excluded (section, opt-out or leaf)" % TRACK_MIN
        else:
            r = "other side: present, not instrumented"
        counts[r] = counts.get(r, 0) + 1
        examples.append({"name": n, "section": f["section"], "frame": frame_text(f),
                         "other": frame_text(o) if o else "–", "reason": r, "order": f["frame"]})
    examples.sort(key=lambda e: (-e["order"], e["name"]))
    counts = dict(sorted(counts.items(), key=lambda kv_: -kv_[1]))
    return {"counts": counts, "examples": examples[:8]}


_cairo = None


def has_cairo():
    global _cairo
    if _cairo is None:
        r = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
        _cairo = "pngcairo" in (r.stdout + r.stderr)
    return _cairo


def main(argv):
    run = out = None
    plots = True
    i = 1
    while i < len(argv):
        if argv[i] == "--run" and i + 1 < len(argv):
            run = argv[i + 1]; i += 2
        elif argv[i] == "--out" and i + 1 < len(argv):
            out = argv[i + 1]; i += 2
        elif argv[i] == "--no-plots":
            plots = False; i += 1
        else:
            sys.exit(__doc__)
    if not run or not out:
        sys.exit(__doc__)
    if not os.path.exists(os.path.join(run, "kernels.tsv")):
        sys.exit("report: %s/kernels.tsv not found (not a compare run)" % run)
    Report(os.path.abspath(run), os.path.abspath(out), plots).write()


if __name__ == "__main__":
    main(sys.argv)
