#!/usr/bin/env python3
"""check-report.py: check a ./passport compare report against its raw data.

usage: bench/check-report.py RUN_DIR REPORT_DIR

Written separately from bench/report.py (its own parsing of the raw files),
so that a report number that did not come from the run's data is caught:

  - every section is there, every plot it links exists (PNG and SVG, not
    empty), no placeholder text (TODO, XXX, nan, None)
  - kernels table: status as in kernels.tsv; functions calling
    stackleak_track_stack and functions with an entry NOP as counted in
    static/NAME.tsv; benchmark boots as many as complete boot logs
  - per-fd tracking NOPs: each function's state (NOP, call, none) as in
    static/NAME.tsv, predicted cost = NOPs per fd x the boots' fds
  - per stackleak kernel: off / on ns per call and the erase cost equal the
    boot logs' medians (mean over boots)
  - cost pairs: each percentage recomputed from the logs
  - native table: min / median of every variant as in native.txt
  - boot time to "Run /init": every boot's printk mark
  - compile-time cost, recomputed from buildcost/*.tsv (either layout:
    with instruction counts, or the older CPU-time-only four columns):
    instruction sums with / without, their cost, the A/A (control vs
    without, of the sums and per object) and the per-object range; each
    count equal to the sum of its processes'; the ≤ 1 % verdict on
    instructions (in the table and the targets); CPU time's cost of
    medians and its A/A
  - every kernel whose status is "missing" is named under "Missing"
  - the verdict table has one row per GCC plugin, and so has the table of
    passport against upstream Clang's own options

Prints one line per failed check and "report check: N checks, N failed";
exit status 1 if any failed. Standard library only.
"""
import glob
import os
import re
import statistics
import sys

SECTIONS = ["## Method", "## Kernels", "## Stack erase cost", "## Erase vs memset", "## Cost of each feature",
            "## Boot time", "## Boot-to-boot agreement", "## Native", "## Instrumentation",
            "## Compile-time cost", "## Verdict: can passport", "## Verdict: passport instead of upstream",
            "## Targets", "## Missing from this run"]
OPS = ["getpid", "uname", "poll", "select", "procfs", "fork"]
PLUGINS = ["stackleak", "structleak", "latent_entropy", "randstruct"]


def static_fields(path):
    """static/NAME.tsv: {function: its fields}, the first line of each name."""
    res = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                k = line.rstrip("\n").split("\t")
                res.setdefault(k[0], k + ["0"] * (8 - len(k)))
    return res


class Checker:
    def __init__(self, run, out):
        self.run, self.out = run, out
        with open(os.path.join(out, "index.md")) as f:
            self.text = f.read()
        self.n = self.failed = 0

    def check(self, ok, what):
        self.n += 1
        if not ok:
            self.failed += 1
            print("FAIL: " + what)

    def section(self, head):
        """Text from a heading (prefix match) to the next heading of its level or above."""
        level = head.split(" ")[0]
        i = self.text.find("\n" + head)
        if i < 0:
            return ""
        m = re.compile(r"\n#{1,%d} " % len(level)).search(self.text, i + 1)
        return self.text[i:m.start() if m else len(self.text)]

    @staticmethod
    def tables(text):
        """Markdown tables in text: lists of rows (lists of cells), header first."""
        res, cur = [], None
        for line in text.splitlines():
            if line.startswith("|"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if all(re.fullmatch(r"-+", c) for c in cells):
                    continue
                if cur is None:
                    cur = []
                    res.append(cur)
                cur.append(cells)
            else:
                cur = None
        return res


def medians(run, name):
    """{(phase, op): [median per boot]} from complete boot logs of a kernel."""
    res = {}
    for path in sorted(glob.glob(os.path.join(run, "boot", name + ".*.log"))):
        if not re.search(r"\.\d+\.log$", path):
            continue
        with open(path, errors="replace") as f:
            text = f.read()
        if "passport: bench: done" not in text:
            continue
        for m in re.finditer(r"passport: bench: result phase=(\S+) op=(\S+) .*?median_ns=([0-9.]+)", text):
            res.setdefault((m.group(1), m.group(2)), []).append(float(m.group(3)))
    return res


def mean(xs):
    return sum(xs) / len(xs)


def fmt_ns(x):
    return "%.0f" % x if x >= 100 else "%.1f" % x


def fmt_pct(x, digits):
    return ("%+." + str(digits) + "f %%") % x


def buildcost_data(path):
    """({(object, variant): instructions}, {(object, variant): the sum of its
    processes' instructions}, {(object, variant): [cpu s]}) of
    buildcost/K.F.tsv; a line of four fields is a CPU-time run (the layout
    before instruction counts), in the newer one "-" marks the measure a
    line does not have."""
    instr, parts, cpu = {}, {}, {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        if f[3] != "-":
            cpu.setdefault((f[0], f[1]), []).append(float(f[3]))
        if len(f) > 5 and f[4] != "-":
            instr[(f[0], f[1])] = int(f[4])
            parts[(f[0], f[1])] = sum(int(x.split("=")[1]) for x in f[5].split(","))
    return instr, parts, cpu


def check_buildcost(c, path, kernel, feature, row, target):
    """One row of the compile-time table (row: {column: cell}) and its
    target against buildcost/K.F.tsv."""
    instr, parts, cpu = buildcost_data(path)
    what = "buildcost %s %s" % (kernel, feature)
    for (obj, variant), n in instr.items():
        c.check(n == parts[(obj, variant)], "%s: %s %s: %d instructions, but its processes' add up to %d"
                % (what, obj, variant, n, parts[(obj, variant)]))
    objs = sorted({o for o, _ in instr})
    if objs:
        tot = {v: sum(instr[(o, v)] for o in objs) for v in ("with", "without", "control")}
        cost = (tot["with"] / tot["without"] - 1) * 100
        aa = (tot["control"] / tot["without"] - 1) * 100
        per = [(instr[(o, "with")] / instr[(o, "without")] - 1) * 100 for o in objs]
        per_aa = [(instr[(o, "control")] / instr[(o, "without")] - 1) * 100 for o in objs]
        want = ("{:,}".format(tot["with"]), "{:,}".format(tot["without"]), fmt_pct(cost, 4),
                "%s (per object %+.4f … %+.4f %%)" % (fmt_pct(aa, 4), min(per_aa), max(per_aa)),
                "%+.2f … %+.2f %%" % (min(per), max(per)))
        got = tuple(row.get(k) for k in ("Σ instructions with", "Σ instructions without", "cost (instructions)",
                                         "A/A (instructions)", "per-object range (instructions)"))
        c.check(got == want, "%s: report %s, data %s" % (what, got, want))
        noise = max(abs(x) for x in per_aa + [aa])
        verdict = "✗" if cost - noise > 1.0 else "✓" if cost + noise <= 1.0 else "–"
        c.check(row.get("≤ 1 %?", "").startswith(verdict), "%s: verdict %r, data says %s" % (what, row.get("≤ 1 %?"), verdict))
        c.check(target is not None and target[1].startswith(fmt_pct(cost, 4) + " instructions")
                and target[2].startswith(verdict),
                "%s: targets row %s, data %s instructions, %s" % (what, target, fmt_pct(cost, 4), verdict))
    else:
        c.check(row.get("cost (instructions)", "").startswith("–"), "%s: instruction cost without counts" % what)
    if cpu:
        med = {v: sum(statistics.median(x) for (o, w), x in cpu.items() if w == v) for v in ("with", "without", "control")}
        want = "%s (A/A ±%.2f %%" % (fmt_pct((med["with"] / med["without"] - 1) * 100, 2),
                                     abs((med["control"] / med["without"] - 1) * 100))
        got = row.get("CPU time: cost (Σ medians)", "")
        c.check(got.startswith(want), "%s: CPU time: report %s, data %s" % (what, got, want))


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    run, out = argv[1], argv[2]
    c = Checker(run, out)
    text = c.text

    # structure
    for s in SECTIONS:
        c.check(("\n" + s) in text, "section '%s' missing" % s)
    for bad in ("TODO", "XXX", "nan", "None", "NaN"):
        c.check(not re.search(r"\b%s\b" % bad, text), "placeholder text '%s' in the report" % bad)
    for img in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        for f in (img, img[:-4] + ".svg"):
            p = os.path.join(out, f)
            c.check(os.path.exists(p) and os.path.getsize(p) > 0, "plot %s missing or empty" % f)

    # kernels
    kernels = {}
    with open(os.path.join(run, "kernels.tsv")) as f:
        for line in f:
            k = line.rstrip("\n").split("\t")
            kernels[k[0]] = k[4]
    ktab = [t for t in Checker.tables(c.section("## Kernels")) if t[0][0] == "kernel"]
    c.check(len(ktab) == 1, "kernels table missing")
    rows = {r[0]: r for r in ktab[0][1:]} if ktab else {}
    head = ktab[0][0] if ktab else []
    for name, status in kernels.items():
        r = rows.get(name)
        c.check(r is not None, "kernel %s not in the kernels table" % name)
        if not r:
            continue
        c.check(r[head.index("status")] == status, "kernel %s: status %r, kernels.tsv says %r" % (name, r[head.index("status")], status))
        st = os.path.join(run, "static", name + ".tsv")
        if os.path.exists(st):
            fields = static_fields(st)
            for col, i in (("fns tracked (stackleak)", 3), ("fns with an entry NOP", 7)):
                n = sum(1 for f in fields.values() if f[i] == "1")
                got = r[head.index(col)]
                c.check(got == str(n), "kernel %s: %s %s in the report, %d in static/%s.tsv" % (name, got, col, n, name))
        nb = sum(1 for p in glob.glob(os.path.join(run, "boot", name + ".*.log"))
                 if re.search(r"\.\d+\.log$", p) and "passport: bench: done" in open(p, errors="replace").read())
        c.check(r[head.index("benchmark boots")] == str(nb), "kernel %s: boots %s, logs %d" % (name, r[head.index("benchmark boots")], nb))

    # erase tables, per kernel with on/off in its logs
    erase = c.section("## Stack erase cost")
    for name in kernels:
        m = medians(run, name)
        if ("on", "getpid") not in m:
            continue
        sub = c.section("### %s " % name) if ("### %s " % name) in erase else ""
        t = [t for t in Checker.tables(sub) if t[0][0] == "op"]
        c.check(bool(t), "no erase table for %s" % name)
        if not t:
            continue
        rows = {r[0]: r for r in t[0][1:]}
        for op in OPS:
            if ("on", op) not in m or ("off", op) not in m:
                continue
            on, off = mean(m[("on", op)]), mean(m[("off", op)])
            r = rows.get(op, [])
            c.check(len(r) > 3 and r[1] == fmt_ns(off) and r[2] == fmt_ns(on) and r[3] == fmt_pct((on / off - 1) * 100, 1),
                    "%s %s: report %s, logs off %s on %s cost %s" % (name, op, r[1:4], fmt_ns(off), fmt_ns(on),
                                                                    fmt_pct((on / off - 1) * 100, 1)))

    # cost pairs
    pairs = []
    if os.path.exists(os.path.join(run, "pairs.txt")):
        for line in open(os.path.join(run, "pairs.txt")):
            if line.strip() and not line.startswith("#"):
                pairs.append(line.split(None, 3))
    ptab = [t for t in Checker.tables(c.section("## Cost of each feature")) if t[0][0] == "feature" and "what" in t[0]]
    c.check(len(ptab) == 1, "cost pairs table missing")
    prow = ptab[0][1:] if ptab else []
    for feature, w, wo, *_ in pairs:
        rows = [r for r in prow if r[0] == feature and r[1] == w and r[2] == wo]
        c.check(bool(rows), "pair %s %s %s not in the table" % (feature, w, wo))
        mw, mo = medians(run, w), medians(run, wo)
        if not mw or not mo or kernels.get(w, "missing").startswith("missing") or kernels.get(wo, "missing").startswith("missing"):
            c.check(all(r[3].startswith("missing") for r in rows), "pair %s %s %s: kernel missing, but numbers given" % (feature, w, wo))
            continue
        has = lambda m, ph: ("%s" % ph, "getpid") in m
        for r in rows:
            if feature == "stackleak":
                ph_w = "off" if r[3].startswith("tracking") else "on"
                ph_o = "off" if has(mo, "off") else "none"
            else:
                ph_w = "on" if has(mw, "on") else "none"
                ph_o = "on" if has(mo, "on") else "none"
            for i, op in enumerate(OPS):
                want = fmt_pct((mean(mw[(ph_w, op)]) / mean(mo[(ph_o, op)]) - 1) * 100, 2)
                c.check(r[4 + i] == want, "pair %s %s/%s %s: report %s, logs %s" % (feature, w, wo, op, r[4 + i], want))

    # native
    native = {}
    if os.path.exists(os.path.join(run, "native.txt")):
        for line in open(os.path.join(run, "native.txt")):
            m = re.match(r"native: variant=(\S+) bytes=(\d+) .*min_ns=([0-9.]+) median_ns=([0-9.]+)", line)
            if m:
                native[(m.group(1), int(m.group(2)))] = (float(m.group(3)), float(m.group(4)))
    ntab = [t for t in Checker.tables(c.section("## Native")) if t[0][0] == "depth"]
    if native:
        c.check(len(ntab) == 1, "native table missing")
        rows = {r[0]: r for r in (ntab[0][1:] if ntab else [])}
        for i, v in enumerate(["memset", "memset-stosb", "erase-words", "erase-stosq", "erase-unrolled"]):
            for (var, b), (mn, md) in native.items():
                if var != v:
                    continue
                r = rows.get("%d KiB" % (b // 1024), [])
                want = "%.1f / %.1f" % (mn, md)
                c.check(len(r) > i + 1 and r[i + 1] == want, "native %s %d: report %s, native.txt %s" % (
                    v, b, r[i + 1] if len(r) > i + 1 else None, want))

    # boot time to Run /init, per boot, as in the logs
    btab = [t for t in Checker.tables(c.section("## Boot time")) if t[0][0] == "kernel"]
    rows = {r[0]: r for r in (btab[0][1:] if btab else [])}
    for name in kernels:
        marks = []
        for path in sorted(glob.glob(os.path.join(run, "boot", name + ".*.log"))):
            if not re.search(r"\.\d+\.log$", path):
                continue
            text = open(path, errors="replace").read()
            m = re.search(r"^\[\s*([0-9.]+)\] Run /init as init process", text, re.M)
            if m and "passport: bench: done" in text:
                marks.append("%.6f" % float(m.group(1)))
        if marks:
            got = rows.get(name, ["", ""])[1]
            c.check(got == " / ".join(marks), "boot time %s: report %r, logs %r" % (name, got, " / ".join(marks)))

    # per-fd tracking NOPs
    ntab = [t for t in Checker.tables(c.section("### Where the tracking cost goes")) if t[0][0] == "kernel"]
    fds = set()
    for path in glob.glob(os.path.join(run, "boot", "*.log")):
        fds |= set(re.findall(r"^passport: bench: info fds=(\d+)", open(path, errors="replace").read(), re.M))
    for r in (ntab[0][1:] if ntab else []):
        fields = static_fields(os.path.join(run, "static", r[0] + ".tsv"))
        if r[1] == "inlined":
            # no per-fd function out of line: the kernel's static table has
            # none of them (6.1's __fdget and __fget_light, 6.12's fdget)
            out_of_line = [fn for fn in ("__fdget", "__fget_light", "fdget") if fn in fields]
            c.check(not out_of_line, "per-fd %s: report 'inlined', static has %s" % (r[0], out_of_line))
        for item in [] if r[1] == "inlined" else r[1].split(", "):
            fn, state = item.split(" ")
            f = fields.get(fn)
            want = "NOP" if f and f[7] == "1" else "call" if f and f[3] == "1" else "none"
            c.check(state == want, "per-fd %s %s: report %s, static %s" % (r[0], fn, state, want))
        c.check(len(fds) == 1 and r[3] == str(int(r[2]) * int(min(fds))),
                "per-fd %s: predicted %s, not %s NOPs x fds %s" % (r[0], r[3], r[2], sorted(fds)))

    # compile-time cost: instruction sums, and sums of per-object CPU medians
    btab = [t for t in Checker.tables(c.section("## Compile-time cost")) if t[0][0] == "kernel"]
    rows = {(r[0], r[1]): r for r in (btab[0][1:] if btab else [])}
    head = btab[0][0] if btab else []
    ttab = [t for t in Checker.tables(c.section("## Targets")) if t[0][0] == "target"]
    targets = {r[0]: r for r in (ttab[0][1:] if ttab else [])}
    for path in glob.glob(os.path.join(run, "buildcost", "*.tsv")):
        kernel, _, feature = os.path.basename(path)[:-4].partition(".")
        r = rows.get((kernel, feature))
        c.check(r is not None, "buildcost %s %s not in the table" % (kernel, feature))
        if r:
            check_buildcost(c, path, kernel, feature, dict(zip(head, r)),
                            targets.get("compile time of %s on %s ≤ +1 %%" % (feature, kernel)))

    # missing kernels and verdicts
    miss = c.section("## Missing from this run")
    for name, status in kernels.items():
        if status.startswith("missing"):
            c.check(name in miss, "missing kernel %s not named under Missing" % name)
    vtab = [t for t in Checker.tables(c.section("## Verdict")) if t[0][0] == "GCC plugin"]
    c.check(bool(vtab) and [r[0] for r in vtab[0][1:]] == PLUGINS, "verdict table rows are not %s" % PLUGINS)
    utab = [t for t in Checker.tables(c.section("## Verdict: passport instead of upstream")) if t[0][0] == "GCC plugin"]
    c.check(bool(utab) and [r[0] for r in utab[0][1:]] == PLUGINS, "upstream verdict table rows are not %s" % PLUGINS)
    # randstruct layouts: each probed kernel's mismatched types, as the
    # probe's own summary line gives them, in the upstream table's row
    urow = next((r for r in utab[0][1:] if r[0] == "randstruct"), None) if utab else None
    for path in sorted(glob.glob(os.path.join(run, "static", "*.randstruct-probe.txt"))):
        name = os.path.basename(path)[:-len(".randstruct-probe.txt")]
        text = open(path, errors="replace").read()
        m = re.search(r"^(?:PASS|FAIL): randstruct-probe: \d+ TUs, .*: (\d+) mismatches(?: in (\d+) distinct types)?$",
                      text, re.M)
        if m and urow is not None and name in " ".join(urow):
            c.check("%s: %s of" % (name, m.group(2) or "0") in " ".join(urow),
                    "upstream randstruct row does not give %s's %s mismatched types" % (name, m.group(2) or "0"))
    # stackleak: each kernel's untracked large frames in the upstream row
    # are the count of its static table's untracked column
    srow = next((r for r in utab[0][1:] if r[0] == "stackleak"), None) if utab else None
    for name, n in re.findall(r"(\S+): (\d+) functions with a final frame", " ".join(srow or [])):
        path = os.path.join(run, "static", name + ".tsv")
        want = None
        if os.path.exists(path):
            with open(path) as f:
                want = sum(int(line.rstrip("\n").split("\t")[8]) for line in f if not line.startswith("#"))
        c.check(want == int(n), "upstream stackleak row gives %s %s untracked frames, its static table %s"
                % (name, n, want))
    if not os.listdir(os.path.join(run, "buildcost")):
        c.check("missing" in c.section("## Compile-time cost"), "no buildcost data, but the report does not say it is missing")

    print("report check: %d checks, %d failed" % (c.n, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
