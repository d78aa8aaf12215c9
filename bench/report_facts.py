"""report_facts.py: stage 2 of the compare report, every number and judgement.

analyse(run) -> facts. run is report_read.read_run()'s plain data; facts is
a dict of plain data, complete: bench/report.py renders it (markdown,
gnuplot, summary.txt) and computes nothing more.

  run         the run directory          meta   meta.txt
  roles       {gcc_stackleak, gcc_structleak}: the GCC reference kernels,
              from kernels.tsv's compilers and fragments (kernel_roles)
  missing     {name: why or None}, every kernel of kernels.tsv and pairs.txt
  kernels     {name: {kernels.tsv fields, features, stale, text, tracked,
              nops, latent, boots}}
  stackleak   [name]: the kernels whose boots switch erasing on and off
  erase       {name: {op: {on off pct min max ns depth user memset_ratio}}}
  pairs       [{pair why variants[{label ops{op: %} boot}] configdiff stale}]
  nops        {missing} or {gcc fds rows[{kernel fns nops pred meas rest}]}
  boot_times  {name: [seconds to Run /init]}
  agreement   [{kernel boots pp rel}]
  native      None or {sizes times ratio worst meets}
  static      {missing} or {ref clang compare latent_sections text_sizes}
  buildcost   [{kernel feature objects instr cpu basis judged target}]:
              instr {with without control cost aa aa_min aa_max noise per_min
              per_max} or None
              (instruction counts, sums over the sample), cpu {reps with
              without cost cost_min aa per_min per_max noise} or None (CPU
              time, sums of per-object medians); the ≤ 1 % target is judged
              on instructions (basis), on CPU time only where a run has no
              instruction counts
  verdicts    [{feature replaceable parts[(state, evidence)] x3}]
  upstream    [{feature option coverage cost answer}]: passport against
              upstream Clang's own option (pairs.txt FEATURE:upstream)
  checker     {name: [(feature, symbol, wanted, result)] or None}: what
              kernel-hardening-checker's rules for the four features say
              about the kernel's .config (analysis/kfacts.py)
  targets     [(target, measured, verdict)]
  absent      pair kernels that are not in the run

A judgement is a state (✓ met, ✗ not met, – not measurable in this run)
with its evidence in plain text; numbers in evidence are written as the
tables write them (fmt_ns, fmt_pct), so the two read alike. No markdown
here (one exception: stackleak's cost evidence points at a report section
by its *title*), no files. Standard library only (and analysis/kfacts.py's rules).
"""
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
import kelf  # noqa: E402
import kfacts  # noqa: E402

OPS = ["getpid", "uname", "poll", "select", "procfs", "fork"]
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
# select walk their 200 /dev/null fds (/dev/null has no ->poll): on 6.1
# fdget() is inline and calls __fdget -> __fget_light; on 6.12 fdget() is a
# function of fs/file.c (GCC keeps __fget_light out of line behind it, Clang
# inlines it). A tracking NOP in these runs 200 times per call.
PER_FD = ["__fdget", "__fget_light", "fdget"]
# The labels of a pair's comparisons: stackleak's two, every other feature's one.
TRACKING, TOTAL, WITH_VS_WITHOUT = "tracking (erase off)", "total (erase on)", "with vs without"

# Config symbols of each hardening feature (GCC plugin and passport pass).
FEATURE_SYMS = {
    "stackleak": re.compile(r"STACKLEAK|KSTACK_ERASE"),
    "latent_entropy": re.compile(r"LATENT_ENTROPY"),
    "structleak": re.compile(r"STRUCTLEAK|INIT_STACK"),
    "randstruct": re.compile(r"RANDSTRUCT|RANDOMIZE_LAYOUT"),
    "all": re.compile(r"STACKLEAK|KSTACK_ERASE|LATENT_ENTROPY|STRUCTLEAK|INIT_STACK|RANDSTRUCT|GCC_PLUGIN|LLVM_PASS"),
}


# ---- numbers ----------------------------------------------------------------

def value(boots, phase, op, stat="median"):
    """Mean over the boots of one boot's per-call statistic; None if absent."""
    xs = [b["results"][(phase, op)][stat] for b in boots if (phase, op) in b["results"]]
    return sum(xs) / len(xs) if xs else None


def per_boot(boots, phase, op, stat="median"):
    return [b["results"][(phase, op)][stat] for b in boots if (phase, op) in b["results"]]


def pct(a, b):
    return None if a is None or b is None or b == 0 else (a / b - 1.0) * 100.0


def mean_or_none(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


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


def frame_text(f):
    return "?" if f["frame"] < 0 else f["frame"]


# ---- kernels ----------------------------------------------------------------

def is_gcc(run, name):
    return run["kernels"][name]["cc"].startswith("gcc")


def is_clang(run, name):
    return run["kernels"][name]["cc"].startswith("clang")


def count(run, name, key):
    """Functions of the kernel's vmlinux with KEY set (tracked, latent, nop); None without static data."""
    st = run["static"].get(name)
    return sum(f[key] for f in st["fns"].values()) if st else None


def missing_reason(run, name):
    """Why a kernel has no numbers in this run, or None if it has them."""
    k = run["kernels"].get(name)
    if k is None:
        return "%s: not in this run" % name
    if k["status"].startswith("missing"):
        return "%s: %s" % (name, k["status"])
    if not run["boots"].get(name):
        return "%s: no successful benchmark boot (logs/%s.boot.log)" % (name, name)
    return None


def stackleak_kernels(run):
    """Kernels whose boots measured erasing on and off (stack_erasing exists)."""
    return [k for k in run["kernels"] if any(("on", "getpid") in b["results"] for b in run["boots"].get(k, []))]


def fragments(run, name):
    return run["kernels"][name]["frags"].split(",")


# The GCC stackleak reference, which the Clang kernels' stackleak is judged
# against (per-function comparison, erase work, tracking cost): of the GCC
# kernels whose vmlinux has tracking calls, the one with the kernel's
# plugins as they come, i.e. fragment gcc-plugins without gcc-structleak
# (that one is the structleak reference, built with another GCC) and
# without a bench/configs/ fragment (a cost twin of bench/kernels.txt that
# takes a plugin out). A run without such a kernel (the report test's
# corpus kernels have no kernel fragments) falls back to the first GCC
# kernel with tracking calls.
def gcc_stackleak_ref(run):
    tracked = [k for k in run["kernels"] if is_gcc(run, k) and count(run, k, "tracked")]
    plain = [k for k in tracked if "gcc-plugins" in fragments(run, k) and not any(
        f == "gcc-structleak" or f.startswith("bench/configs/") for f in fragments(run, k))]
    return (plain + tracked + [None])[0]


# The GCC structleak reference, whose KUnit stackinit results the Clang
# kernels' must equal (as qemu/kernels.txt's stackinit-as= asks): the
# first GCC kernel built with the gcc-structleak fragment.
def gcc_structleak_ref(run):
    return next((k for k in run["kernels"] if is_gcc(run, k) and "gcc-structleak" in fragments(run, k)), None)


# Whether a (Clang) kernel carries a feature: stackleak by the tracking
# calls in its vmlinux (those of passport, not of Clang's own tracking), the
# others by its booted .config, not by kernels.tsv's fragments: a kernel
# reused from an older kernels.txt line has what its .config says.
def carries(run, name, feature):
    if feature == "stackleak":
        return bool(count(run, name, "tracked")) and not sancov_stackleak(run, name)
    return feature.replace("_", " ") in features(run["configs"].get(name)).replace("_", " ")


def sancov_stackleak(run, name):
    """Whether the kernel's tracking calls are Clang's own (series patch 0012,
    KSTACK_ERASE_SANCOV: -fsanitize-coverage=stack-depth), not passport's."""
    cfg = run["configs"].get(name)
    return bool(cfg) and cfg.get("CONFIG_KSTACK_ERASE_SANCOV") == "y"


def kernel_roles(run):
    """The GCC kernels the Clang kernels are judged against, from kernels.tsv."""
    return {"gcc_stackleak": gcc_stackleak_ref(run), "gcc_structleak": gcc_structleak_ref(run)}


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
    if y("KSTACK_ERASE_SANCOV"):
        f.append("stack depth tracking (Clang -fsanitize-coverage=stack-depth)")
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
    # "is not set" and absent (a hidden symbol) are the same n
    n = kelf.NOT_SET
    return sorted(k for k in set(a) | set(b) if a.get(k, n) != b.get(k, n) and not skip.search(k))


def kernel_table(run):
    res = {}
    for name, k in run["kernels"].items():
        res[name] = dict(k, features=features(run["configs"].get(name)), stale=run["stale"].get(name),
                         text=run["static"][name]["text"] if run["static"].get(name) else None,
                         tracked=count(run, name, "tracked"), nops=count(run, name, "nop"),
                         latent=count(run, name, "latent"), boots=len(run["boots"].get(name, [])))
    return res


# ---- in-guest costs ---------------------------------------------------------

def erase_costs(run, ks):
    """Per stackleak kernel and op: erasing on vs off in the same boot, and
    the guest's user-space stores over that op's erase depth."""
    res = {}
    for k in ks:
        bs, per = run["boots"][k], {}
        for op in OPS:
            on, off = value(bs, "on", op), value(bs, "off", op)
            d = [b["depth"].get(op) for b in bs if op in b["depth"]]
            ns = on - off if on is not None and off is not None else None
            user = {v: value(bs, "user", "%s@%s" % (v, op)) for v in USER_VARIANTS}
            per[op] = {"on": on, "off": off, "pct": pct(on, off), "ns": ns, "depth": d[0] if d else None,
                       "min": value(bs, "on", op, "min"), "max": value(bs, "on", op, "max"), "user": user,
                       # a multi-syscall op erases several times per call: no ratio to one memset
                       "memset_ratio": None if op in MULTI else
                       ns / user["memset"] if ns is not None and user["memset"] else None}
        res[k] = per
    return res


def pair_costs(run):
    """Per pair of bench/pairs.txt: WITH against WITHOUT, per op and boot time,
    and the .config symbols they differ by besides the feature's."""
    res = []
    for p in run["pairs"]:
        r = {"pair": p, "variants": [],
             "why": missing_reason(run, p["with"]) or missing_reason(run, p["without"]),
             "configdiff": config_diff(run["configs"].get(p["with"]), run["configs"].get(p["without"]), p["base"]),
             "stale": [k for k in (p["with"], p["without"]) if run["stale"].get(k)]}
        res.append(r)
        if r["why"]:
            continue
        bw, bo = run["boots"][p["with"]], run["boots"][p["without"]]
        ow = full_phase(bo)
        variants = [(TRACKING, base_phase(bw)), (TOTAL, full_phase(bw))] \
            if p["base"] == "stackleak" else [(WITH_VS_WITHOUT, full_phase(bw))]
        for label, ph in variants:
            ops = {op: pct(value(bw, ph, op), value(bo, ow if p["base"] != "stackleak" else base_phase(bo), op))
                   for op in OPS}
            boot = pct(mean_or_none([b["run_init"] for b in bw]), mean_or_none([b["run_init"] for b in bo]))
            r["variants"].append({"label": label, "ops": ops, "boot": boot})
    return res


def pair_variant(pairs, feature, kernel, label):
    """The comparison LABEL of the pair (FEATURE, WITH=KERNEL), or None."""
    for r in pairs:
        if r["pair"]["feature"] == feature and r["pair"]["with"] == kernel:
            for v in r["variants"]:
                if v["label"] == label:
                    return v
    return None


def tracking_ns(run, phase=base_phase, features=("stackleak",)):
    """{kernel: [instructions per call its stackleak adds, per SINGLE op]}:
    WITH in PHASE (default erase off: tracking only; full_phase: tracking
    and erase) against its no-stackleak twin (bench/pairs.txt), for the
    pairs of FEATURES (default the plugin's and passport's; add
    "stackleak:upstream" for Clang's own tracking)."""
    track = {}
    for p in run["pairs"]:
        if p["feature"] not in features or missing_reason(run, p["with"]) or missing_reason(run, p["without"]):
            continue
        bw, bo = run["boots"][p["with"]], run["boots"][p["without"]]
        ns = [value(bw, phase(bw), op) for op in SINGLE], [value(bo, base_phase(bo), op) for op in SINGLE]
        if None not in ns[0] + ns[1]:
            track[p["with"]] = [a - b for a, b in zip(*ns)]
    return track


def per_fd_nops(run, track):
    """Where passport's extra tracking cost on poll/select goes: the NOPs
    passport-finalize leaves in the functions called once per fd, each one
    an instruction under -icount; predicted against measured."""
    gcc = [k for k in track if is_gcc(run, k)]
    clang = [k for k in track if is_clang(run, k)]
    if not gcc or not clang or any(not run["static"].get(k) for k in gcc + clang):
        return {"missing": "needs a GCC and a Clang stackleak pair with boots and static data in this run."}
    g = gcc[0]
    fds = [int(b["info"]["fds"]) for k in gcc + clang for b in run["boots"][k] if "fds" in b["info"]]
    if not fds or len(set(fds)) != 1:
        return {"missing": "the boots do not agree on the number of fds polled (%s)." % sorted(set(fds))}
    fds = fds[0]
    gs = run["static"][g]["fns"]
    gnop = sum(gs[f]["nop"] + gs[f]["tracked"] for f in PER_FD if f in gs)
    rows = []
    for c in clang:
        cs = run["static"][c]["fns"]
        have = [f for f in PER_FD if f in cs]
        n = sum(cs[f]["nop"] + cs[f]["tracked"] for f in have)
        pred = (n - gnop) * fds
        meas = {op: track[c][SINGLE.index(op)] - track[g][SINGLE.index(op)] for op in ("poll", "select")}
        rows.append({"kernel": c, "nops": n - gnop, "pred": pred, "meas": meas,
                     "rest": {op: x - pred for op, x in meas.items()},
                     "fns": [(f, "NOP" if cs[f]["nop"] else "call" if cs[f]["tracked"] else "none") for f in have]})
    return {"gcc": g, "fds": fds, "rows": rows}


def nop_text(nops, kernel):
    """The per-fd NOPs' predicted cost, for evidence; None if not measured."""
    for r in nops.get("rows", []):
        if r["kernel"] == kernel:
            return "%d ns per call (%d NOPs × %d fds)" % (r["pred"], r["nops"], nops["fds"])
    return None


def boot_agreement(run):
    """Largest spread between boots of one kernel: erase cost (pp), any median (%)."""
    res = []
    for name, bs in run["boots"].items():
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
        res.append({"kernel": name, "boots": len(bs), "pp": max(pp) if pp else None, "rel": max(rel) if rel else None})
    return res


# ---- native, static, compile time -------------------------------------------

def native_ratios(run):
    """Erase loops against memset on the host; the target is 1.5×, on the minima."""
    n = run["native"]
    if not n:
        return None
    sizes = sorted({b for (_, b) in n})
    ratio = {}
    for b in sizes:
        for v in ERASES:
            for ref in ("memset", "memset-stosb"):
                x, r = n.get((v, b)), n.get((ref, b))
                if x and r:
                    ratio[(v, ref, b)] = (x["min"] / r["min"], x["median"] / r["median"])
    worst = {}
    for v in ERASES:
        for ref in ("memset", "memset-stosb"):
            xs = [ratio[(v, ref, b)] for b in sizes if (v, ref, b) in ratio]
            worst[(v, ref)] = (max(x[0] for x in xs), max(x[1] for x in xs)) if xs else None
    return {"sizes": sizes, "times": n, "ratio": ratio, "worst": worst,
            "meets": {k: w is not None and w[0] <= 1.5 for k, w in worst.items()}}


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


def static_compare(run, ref):
    """GCC reference REF against each Clang kernel, function by function
    (names matched without compiler suffixes): stackleak and latent_entropy."""
    clang = [k for k in run["kernels"] if is_clang(run, k) and run["static"].get(k)]
    if not ref or not clang:
        return {"missing": "needs a GCC stackleak kernel and a Clang kernel with vmlinux in this run."}
    compare = {}
    for feature, key in (("stackleak", "tracked"), ("latent_entropy", "latent")):
        rows = compare[feature] = []
        for c in clang:
            a, b = run["static"][ref]["fns"], run["static"][c]["fns"]
            sa = {norm(n) for n, f in a.items() if f[key]}
            sb = {norm(n) for n, f in b.items() if f[key]}
            if not sb:
                rows.append({"kernel": c, "ref_n": len(sa), "absent": True})
                continue
            ra = reasons(sa - sb, a, b, key)
            rows.append({"kernel": c, "ref_n": len(sa), "n": len(sb), "both": len(sa & sb), "absent": False,
                         "jaccard": len(sa & sb) / len(sa | sb), "only_ref": len(sa - sb), "only_clang": len(sb - sa),
                         "reasons_ref": ra, "reasons_clang": reasons(sb - sa, b, a, key),
                         "untracked_present": ra["counts"].get("other side: present, not instrumented", 0),
                         # the coverage rule: analysis/kfacts.py, as the boot layer's
                         "untracked_large": sum(f["untracked"] for f in b.values())})
    latent = []
    for k in run["kernels"]:
        st = run["static"].get(k)
        if not st:
            continue
        per = {}
        for f in st["fns"].values():
            if f["latent"]:
                per[f["section"]] = per.get(f["section"], 0) + 1
        if per:
            latent.append((k, sum(per.values()), sorted(per.items(), key=lambda x: -x[1])))
    sizes = []
    for p in run["pairs"]:
        sizes.append(text_delta(run, p["feature"], p["with"], p["without"]))
    for c in clang:
        sizes.append(text_delta(run, "GCC vs Clang", c, ref))
    return {"ref": ref, "clang": clang, "compare": compare, "latent_sections": latent, "text_sizes": sizes}


def text_delta(run, what, kernel, base):
    sk, sb = run["static"].get(kernel), run["static"].get(base)
    if not (sk and sb):
        return {"what": what, "kernel": kernel, "base": base,
                "missing": [k for k in (kernel, base) if not run["static"].get(k)]}
    return {"what": what, "kernel": kernel, "base": base, "missing": None, "text": sk["text"],
            "base_text": sb["text"], "delta": sk["text"] - sb["text"], "pct": pct(sk["text"], sb["text"])}


def static_row(static, feature, kernel):
    """The Clang kernel's comparison with the GCC reference, if it has the feature."""
    for r in static.get("compare", {}).get(feature, []):
        if r["kernel"] == kernel and not r["absent"]:
            return r
    return None


def instruction_cost(counts):
    """Instruction counts with vs without the feature, summed over the
    objects; None if the run has none. aa: control vs without, signed, of
    the sums (aa_min, aa_max: of single objects, whose noise can cancel in
    the sums); noise: the largest of their magnitudes."""
    objs = [c for c in counts.values() if "with" in c and "without" in c]
    if not objs:
        return None
    w, o = sum(c["with"] for c in objs), sum(c["without"] for c in objs)
    per = [pct(c["with"], c["without"]) for c in objs]
    res = {"with": w, "without": o, "control": None, "cost": pct(w, o), "aa": None, "aa_min": None,
           "aa_max": None, "noise": None, "per_min": min(per), "per_max": max(per)}
    if all("control" in c for c in objs):
        aa = [pct(c["control"], c["without"]) for c in objs]
        res.update(control=sum(c["control"] for c in objs), aa_min=min(aa), aa_max=max(aa))
        res["aa"] = pct(res["control"], o)
        res["noise"] = max(abs(x) for x in aa + [res["aa"]])
    return res


def cpu_cost(objects):
    """CPU time with vs without: sums of per-object medians (and minima);
    None if the run has no CPU-time repetitions."""
    objs = [o for o in objects.values() if o["with"] and o["without"]]
    if not objs:
        return None
    total = {v: sum(statistics.median(o[v]) for o in objs) if all(o[v] for o in objs) else None
             for v in ("with", "without", "control")}
    sw, so, sc = total["with"], total["without"], total["control"]
    cost = pct(sw, so)
    cost_min = pct(sum(min(o["with"]) for o in objs), sum(min(o["without"]) for o in objs))
    per = [pct(statistics.median(o["with"]), statistics.median(o["without"])) for o in objs]
    aa = abs(pct(sc, so)) if sc else None
    # one A/A comparison underestimates; where medians and minima disagree
    # by more, that disagreement is the noise
    noise = max(aa, abs(cost - cost_min)) if aa is not None else None
    return {"reps": max(len(o["with"]) for o in objs), "with": sw, "without": so, "cost": cost,
            "cost_min": cost_min, "aa": aa, "per_min": min(per), "per_max": max(per), "noise": noise}


def judge_compile_time(cost, noise, basis):
    """(judged, target): the ≤ 1 % target for cost ± noise (in %), in the
    compile-time table's words and the targets table's."""
    if noise is None:
        return "– (no control in this run)", "– not resolved: no control in this run"
    if basis == "CPU time" and cost < -noise:
        # instructions can fall with a feature; CPU time falling by more
        # than its noise only says that the host drifted
        return ("– not resolved: a saving larger than the A/A noise means the host drifted",
                "– not resolved: a saving larger than the A/A noise")
    if cost - noise > 1.0:
        return ("✗ above 1 %% by %.2f pp beyond the noise" % (cost - noise - 1.0),
                "✗ missed by %.2f pp" % (cost - 1.0))
    if cost + noise <= 1.0:
        return "✓", "✓ met"
    return "– not resolved: 1 % lies within cost ± noise", "– not resolved within the noise"


def build_costs(run):
    """Compile-time cost with vs without the feature's flags, per (kernel,
    feature): instruction counts (judged) and CPU time (secondary)."""
    res = []
    for (kernel, feature), d in sorted(run["buildcost"].items()):
        instr, cpu = instruction_cost(d["instructions"]), cpu_cost(d["objects"])
        if instr:
            basis, cost, noise = "instructions", instr["cost"], instr["noise"]
        elif cpu:
            basis, cost, noise = "CPU time", cpu["cost"], cpu["noise"]
        else:
            continue
        judged, target = judge_compile_time(cost, noise, basis)
        if basis == "CPU time":
            judged += " (on CPU time: no instruction counts in this run)"
        res.append({"kernel": kernel, "feature": feature,
                    "objects": len(set(d["objects"]) | set(d["instructions"])), "instr": instr, "cpu": cpu,
                    "basis": basis, "cost": cost, "noise": noise, "judged": judged, "target": target})
    return res


# ---- verdicts ---------------------------------------------------------------

def state(ok):
    return "✓" if ok else "✗" if ok is False else "–"


def replaceable(parts):
    states = [p[0] for p in parts]
    if all(x == "✓" for x in states):
        return "yes"
    if "✗" in states:
        return "no (see ✗)"
    return "not shown by this run"


def tracking_within(mine, ref):
    """Whether per-op tracking instructions MINE are at most REF's within
    the tolerance (absolute: Clang's syscalls are cheaper, so equal work
    reads as a larger percentage there)."""
    return all(x <= max(y, 1.0) * COST_TOL + TRACK_TOL_NS for x, y in zip(mine, ref))


def stackleak_verdict(run, roles, clang, erase, pairs, track, static, nops):
    """(coverage, in-guest, cost): each (state, evidence); state ✓, ✗ or –."""
    sl = [c for c in clang if carries(run, c, "stackleak")]
    if not sl:
        none = ("–", "no Clang kernel with passport stackleak in this run")
        return none, none, none
    cov = [(c, static_row(static, "stackleak", c)) for c in sl]
    if any(r is None for _, r in cov):
        coverage = ("–", "no GCC stackleak kernel to compare with")
    else:
        coverage = ("✓" if all(r["untracked_large"] == 0 for _, r in cov) else "✗",
                    "; ".join("%s: %d functions with a final frame ≥ %d left untracked (Jaccard with GCC %.2f)"
                              % (c, r["untracked_large"], TRACK_MIN, r["jaccard"]) for c, r in cov))
    ev, ok = [], True
    for c in sl:
        v = run["verdicts"].get(c)
        onoff = c in erase
        if not v:
            ev.append("%s: no verdict boot" % c)
            ok = None if ok else ok
            continue
        good = v["lkdtm_ok"] == 2 and v["lkdtm_fail"] == 0 and onoff
        ok = ok and good if ok is not None else ok
        ev.append("%s: LKDTM STACKLEAK_ERASING OK %d/2, FAIL %d; stack_erasing on/off %s" % (
            c, v["lkdtm_ok"], v["lkdtm_fail"], "measured" if onoff else "missing"))
    tests = (state(ok), "; ".join(ev))
    # GCC's erase work needs its on/off boots, not only its vmlinux
    g = roles["gcc_stackleak"] if roles["gcc_stackleak"] in erase else None
    if not g:
        return coverage, tests, ("–", "no GCC stackleak kernel booted in this run")
    ev, ok = [], True
    for c in sl:
        if c not in erase:
            continue
        r = [(op, erase[c][op]["ns"], erase[g][op]["ns"]) for op in SINGLE]
        r = [(op, a / b) for op, a, b in r if a is not None and b]
        ok = ok and all(x <= COST_TOL for _, x in r)
        ev.append("%s erase work ÷ GCC's: %s" % (c, ", ".join("%s %.2f×" % (op, x) for op, x in r)))
    # tracking cost: passport's (erase off vs its no-stackleak twin) against GCC's
    tracking = []
    for p in run["pairs"]:
        if p["feature"] != "stackleak":
            continue
        if p["with"] not in track:
            tracking.append("%s tracking: missing (%s)" % (
                p["with"], missing_reason(run, p["with"]) or missing_reason(run, p["without"])))
            continue
        t = pair_variant(pairs, "stackleak", p["with"], TRACKING)["ops"]
        tracking.append("%s tracking: %s" % (p["with"], ", ".join(
            "%s %s (%s ns)" % (op, fmt_pct(t[op], 2), fmt_ns(n)) for op, n in zip(SINGLE, track[p["with"]]))))
        if nop_text(nops, p["with"]):
            tracking.append("%s: %s of it are the tracking NOPs of the per-fd path (see *Where the "
                            "tracking cost goes*)" % (p["with"], nop_text(nops, p["with"])))
    gt = track.get(g)
    ct = [track[c] for c in sl if c in track]
    if gt is None or not ct:
        tstate = None
    else:
        tstate = all(tracking_within(t, gt) for t in ct)
    if not ev:
        st = "–"
    elif not ok or tstate is False:
        st = "✗"
    else:
        st = "✓" if tstate else "–"
    return coverage, tests, (st, "; ".join(ev + tracking))


def pair_cc(run, p):
    """The compiler of a pair's WITH kernel; for a kernel not in the run
    its name, which says the compiler (gcc12, clang19-initzero)."""
    k = run["kernels"].get(p["with"])
    return k["cc"] if k else p["with"]


def pair_cost(run, pairs, feature, compiler):
    """(fork %, boot %, label) of the feature's pair on GCC or Clang, or a
    reason string. FEATURE is a pairs.txt feature: "structleak" is GCC's
    plugin or passport, "structleak:upstream" upstream Clang's option."""
    for p in run["pairs"]:
        if p["feature"] != feature or not pair_cc(run, p).startswith(compiler):
            continue
        v = pair_variant(pairs, feature, p["with"], WITH_VS_WITHOUT)
        x = v["ops"]["fork"] if v else None
        if x is None:
            return "%s: missing (%s)" % (p["label"], missing_reason(run, p["with"]) or missing_reason(run, p["without"]))
        return (x, v["boot"], p["label"])
    return "no %s pair for %s in this run" % (compiler.upper(), feature)


def cost_text(c):
    return c if isinstance(c, str) else "%s: fork %s, boot %s" % (c[2], fmt_pct(c[0], 2), fmt_pct(c[1], 2))


def other_verdict(run, roles, feature, clang, pairs, static):
    """(coverage, in-guest, cost) for structleak, latent_entropy, randstruct."""
    have = [c for c in clang if carries(run, c, feature)]
    why = "no Clang kernel in this run has passport %s in its .config" % feature
    if not have:
        ref = "GCC reference cost: " + cost_text(pair_cost(run, pairs, feature, "gcc"))
        return ("–", why), ("–", why), ("–", why + "; " + ref)
    # coverage
    if feature == "latent_entropy":
        ev, ok = [], True
        for c in have:
            r = static_row(static, feature, c)
            if r is None:
                ev.append("%s: no GCC latent_entropy kernel to compare with" % c)
                ok = None
                continue
            u = r["untracked_present"]
            ok = ok and u == 0 if ok is not None else ok
            ev.append("%s: %d GCC-instrumented functions present but not instrumented (Jaccard %.2f)" % (
                c, u, r["jaccard"]))
        coverage = (state(ok), "; ".join(ev))
    elif feature == "structleak":
        coverage = ("–", "zeroing leaves no call to count in vmlinux; the per-variable agreement is the lit "
                         "differential test's (not part of this run)")
    else:
        coverage = ("–", "layout identity is checked by the boot tests (randstruct offsets), not by compare")
    # in-guest
    ev, ok = [], None
    for c in have:
        v = run["verdicts"].get(c)
        if not v:
            ev.append("%s: no verdict boot" % c)
        elif feature == "latent_entropy":
            good = v["latent"] == "changed"
            ok = good if ok is None else ok and good
            ev.append("%s: latent_entropy across 32 forks: %s" % (c, v["latent"]))
        elif feature == "structleak" and v["stackinit"]:
            name = roles["gcc_structleak"] or "GCC structleak reference"
            ref = run["verdicts"].get(roles["gcc_structleak"])
            good = v["stackinit"][1] == 0 and ref is not None and ref["stackinit"] == v["stackinit"]
            ok = good if ok is None else ok and good
            ev.append("%s: stackinit pass/fail/skip %d/%d/%d, auto-init %s (%s: %s)" % (
                (c,) + v["stackinit"] + (v["autoinit"], name,
                                         "%d/%d/%d" % ref["stackinit"] if ref and ref["stackinit"] else "missing")))
    tests = (state(ok), "; ".join(ev) or "no in-guest check for %s in compare" % feature)
    # cost: Clang's one-feature pair against GCC's, fork and boot
    g, c = pair_cost(run, pairs, feature, "gcc"), pair_cost(run, pairs, feature, "clang")
    if isinstance(g, str) or isinstance(c, str):
        cost = ("–", "; ".join(cost_text(x) for x in (g, c)))
    else:
        good = c[0] <= g[0] + PAIR_TOL_PP and (c[1] is None or g[1] is None or c[1] <= g[1] + PAIR_TOL_PP)
        cost = ("✓" if good else "✗", "%s; %s" % (cost_text(g), cost_text(c)))
    return coverage, tests, cost


# Upstream Clang's own answer to each plugin, where it has one.
UPSTREAM = {
    "stackleak": "clang-22 -fsanitize-coverage=stack-depth",
    "structleak": "INIT_STACK_ALL_ZERO (-ftrivial-auto-var-init=zero)",
    "latent_entropy": None,
    "randstruct": "Clang's randstruct (-frandomize-layout-seed-file)",
}


def layout_text(name, lay):
    """One kernel's randstruct layouts against the GCC plugin's, in words."""
    if lay is None or lay["mismatches"] is None:
        return "%s: layout not probed%s" % (name, "" if lay is None else " (randstruct-probe exit %s)" % lay["exit"])
    return "%s: %d of %d distinct types laid out unlike %s's GCC plugin for the same seed (%s randomized)" % (
        name, lay["mismatched_types"], lay["distinct"], lay["against"],
        "?" if lay["randomized"] is None else lay["randomized"])


def randstruct_layout_verdict(run, mine, up):
    """randstruct: the same seed gives passport's kernel the GCC plugin's
    layouts (analysis/randstruct-probe.py against the GCC kernel named by
    randstruct-as= in bench/kernels.txt, compare's probe step); upstream
    Clang's built-in randstruct has its own algorithm. ✓ when passport's
    layouts are the plugin's and the probe saw randomized types at all."""
    lp, lu = run["layouts"].get(mine), run["layouts"].get(up)
    text = "; ".join(layout_text(k, l) for k, l in ((mine, lp), (up, lu)))
    if lp is None or lp["mismatches"] is None:
        return ("–", text)
    return ("✓" if lp["mismatches"] == 0 and (lp["randomized"] or 0) > 0 else "✗", text)


def stackleak_upstream_verdict(run, p_mine, p_up, track):
    """stackleak: passport's pass against Clang's own stack-depth tracking
    (KSTACK_ERASE_SANCOV), both against the same no-stackleak twin.
    Coverage: the functions linked into vmlinux with a final frame at or
    above the threshold that do not call the tracker (kfacts' rule, as in
    the plugin table), and LKDTM STACKLEAK_ERASING; ✓ when passport leaves
    none untracked and no more than upstream, and both pass LKDTM. Cost:
    the tracking instructions per call with erasing off; ✓ when passport's
    are at most upstream's within the tolerance of the GCC comparison."""
    mine, up = p_mine["with"], p_up["with"]
    ev, ok, left = [], True, {}
    for k in (mine, up):
        left[k] = count(run, k, "untracked")
        v = run["verdicts"].get(k)
        ev.append("%s: %s, %s" % (
            k, "no vmlinux facts" if left[k] is None else
            "%d functions with a final frame ≥ %d left untracked" % (left[k], TRACK_MIN),
            "no verdict boot" if not v else "LKDTM STACKLEAK_ERASING OK %d/2" % v["lkdtm_ok"]))
        if left[k] is None or not v:
            ok = None
        elif ok is not None:
            ok = ok and v["lkdtm_ok"] == 2 and v["lkdtm_fail"] == 0
    if ok:
        ok = left[mine] == 0 and left[mine] <= left[up]
    coverage = (state(ok), "; ".join(ev))
    if mine not in track or up not in track:
        why = "; ".join(missing_reason(run, p["with"]) or missing_reason(run, p["without"])
                        or "%s: no tracking numbers" % p["with"] for p in (p_mine, p_up) if p["with"] not in track)
        return coverage, ("–", why)
    good = tracking_within(track[mine], track[up])
    text = "; ".join("%s tracking: %s" % (k, ", ".join("%s %s" % (op, fmt_ns(n)) for op, n in zip(SINGLE, track[k])))
                     for k in (mine, up))
    return coverage, ("✓" if good else "✗", text + " (instructions per call, erasing off, against the same twin)")


def upstream_verdicts(run, pairs, track):
    """passport instead of upstream Clang's own option, per feature:
    {feature option coverage cost answer}, each of coverage and cost a
    (state, evidence). Coverage where the kernels' own test measures both
    (structleak: KUnit stackinit, more cases passing is more coverage;
    randstruct: the GCC plugin's layouts for the same seed);
    cost from the two one-feature pairs against the same baseline kernel
    (pairs.txt FEATURE and FEATURE:upstream)."""
    res = []
    for feature, option in UPSTREAM.items():
        if option is None:
            none = ("–", "upstream Clang has no latent_entropy")
            res.append({"feature": feature, "option": "none", "coverage": none, "cost": none,
                        "answer": "yes: passport is the only Clang option"})
            continue
        up = next((p for p in run["pairs"] if p["base"] == feature and p["upstream"]), None)
        # passport's pair on the same baseline kernel as upstream's, if any
        clang = [p for p in run["pairs"] if p["feature"] == feature and pair_cc(run, p).startswith("clang")]
        mine = next((p for p in clang if up and p["without"] == up["without"]), clang[0] if clang else None)
        if up is None or mine is None:
            why = ("–", "no %s pair in this run" % ("upstream" if up is None else "passport"))
            res.append({"feature": feature, "option": option, "coverage": why, "cost": why,
                        "answer": "not shown by this run"})
            continue
        coverage = ("–", "no in-guest measure of %s's coverage in compare" % feature)
        if feature == "structleak":
            vp, vu = run["verdicts"].get(mine["with"]), run["verdicts"].get(up["with"])
            sp, su = vp and vp["stackinit"], vu and vu["stackinit"]
            if sp and su:
                coverage = ("✓" if sp[0] >= su[0] else "✗",
                            "KUnit stackinit pass/fail/skip: %s %d/%d/%d, %s %d/%d/%d" % (
                                (mine["with"],) + sp + (up["with"],) + su))
            else:
                coverage = ("–", "no stackinit result for %s" % (mine["with"] if not sp else up["with"]))
        if feature == "randstruct":
            coverage = randstruct_layout_verdict(run, mine["with"], up["with"])
        if feature == "stackleak":
            coverage, cost = stackleak_upstream_verdict(run, mine, up, track)
            res.append({"feature": feature, "option": option, "coverage": coverage, "cost": cost,
                        "answer": replaceable([coverage, cost])})
            continue
        c, u = pair_cost(run, pairs, feature, "clang"), pair_cost(run, pairs, up["feature"], "clang")
        if isinstance(c, str) or isinstance(u, str):
            cost = ("–", "; ".join(cost_text(x) for x in (c, u)))
        else:
            good = c[0] <= u[0] + PAIR_TOL_PP and (c[1] is None or u[1] is None or c[1] <= u[1] + PAIR_TOL_PP)
            cost = ("✓" if good else "✗", "%s; %s" % (cost_text(c), cost_text(u)))
        res.append({"feature": feature, "option": option, "coverage": coverage, "cost": cost,
                    "answer": replaceable([coverage, cost])})
    return res


def plugin_verdicts(run, roles, erase, pairs, track, static, nops):
    """Can passport replace each GCC plugin: coverage, in-guest, cost."""
    clang = [k for k in run["kernels"] if is_clang(run, k) and not missing_reason(run, k)]
    res = []
    for feature in ("stackleak", "structleak", "latent_entropy", "randstruct"):
        parts = stackleak_verdict(run, roles, clang, erase, pairs, track, static, nops) if feature == "stackleak" else \
            other_verdict(run, roles, feature, clang, pairs, static)
        res.append({"feature": feature, "replaceable": replaceable(parts), "parts": parts})
    return res


def targets(run, erase, native, buildcost, nops):
    """The issue's three targets, each (target, measured, verdict)."""
    rows = []
    # 1. stackleak overhead (tracking + erase, vs the no-stackleak twin), Clang against GCC, per call
    total = tracking_ns(run, full_phase)
    gcc = [k for k in total if is_gcc(run, k)]
    clang = [k for k in total if is_clang(run, k)]
    if gcc and clang:
        g = gcc[0]
        for c in clang:
            over = [(op, x - y) for op, x, y in zip(SINGLE, total[c], total[g]) if x > y]
            n = nop_text(nops, c)
            rows.append(("stackleak overhead of %s ≤ %s's (instructions per call, tracking + erase)" % (c, g),
                         ", ".join("%s %s / %s" % (op, fmt_ns(x), fmt_ns(y)) for op, x, y in zip(SINGLE, total[c], total[g])),
                         "✓ met" if not over else "✗ missed by " + ", ".join("%s %s" % (op, fmt_ns(d)) for op, d in over)
                         + ("; the per-fd path's entry NOPs are %s" % n if n else "")))
    else:
        rows.append(("stackleak overhead, Clang ≤ GCC", "–", "– not measurable: needs a GCC and a Clang stackleak pair"))
    # 2. erase within 1.5x of memset of the same bytes: in the guest and natively
    for k, per in erase.items():
        r = [(op, per[op]["memset_ratio"]) for op in SINGLE if per[op]["memset_ratio"] is not None]
        if r:
            worst = max(x for _, x in r)
            rows.append(("%s erase ≤ 1.5× guest memset of the same depth" % k,
                         ", ".join("%s %.1f×" % (op, x) for op, x in r),
                         "✓ met" if worst <= 1.5 else "✗ missed by %.1f× (worst %.1f×)" % (worst / 1.5, worst)))
    for v in ERASES:
        w = native and native["worst"][(v, "memset")]
        if w:
            rows.append(("native %s ≤ 1.5× glibc memset (minima, 1–16 KiB)" % v, "worst %.2f×" % w[0],
                         "✓ met" if w[0] <= 1.5 else "✗ missed by %.1f×" % (w[0] / 1.5)))
    # 3. passes add ≤ 1 % to build time, judged on instructions
    for b in buildcost:
        digits = 4 if b["basis"] == "instructions" else 2
        measured = "%s %s (noise ±%s)" % (fmt_pct(b["cost"], digits), b["basis"],
                                         "%.*f %%" % (digits, b["noise"]) if b["noise"] is not None else "?")
        if b["basis"] == "instructions" and b["cpu"]:
            measured += "; CPU time %s" % fmt_pct(b["cpu"]["cost"], 2)
        rows.append(("compile time of %s on %s ≤ +1 %%" % (b["feature"], b["kernel"]), measured, b["target"]))
    if not buildcost:
        rows.append(("compile time ≤ +1 %", "–", "– not measured in this run"))
    return rows


# ---- all of it --------------------------------------------------------------

def analyse(run):
    """The facts of one run, in dependency order: each step gets what it uses."""
    names = list(run["kernels"]) + [k for p in run["pairs"] for k in (p["with"], p["without"])]
    roles = kernel_roles(run)
    erase = erase_costs(run, stackleak_kernels(run))
    pairs = pair_costs(run)
    track = tracking_ns(run)
    nops = per_fd_nops(run, track)
    native = native_ratios(run)
    static = static_compare(run, roles["gcc_stackleak"])
    buildcost = build_costs(run)
    return {"run": run["path"], "meta": run["meta"], "roles": roles,
            "missing": {k: missing_reason(run, k) for k in names},
            "kernels": kernel_table(run), "stackleak": list(erase), "erase": erase, "pairs": pairs,
            "nops": nops, "boot_times": {k: [b["run_init"] for b in run["boots"].get(k, []) if b["run_init"] is not None]
                                         for k in run["kernels"]},
            "agreement": boot_agreement(run), "native": native, "static": static, "buildcost": buildcost,
            "verdicts": plugin_verdicts(run, roles, erase, pairs, track, static, nops),
            "upstream": upstream_verdicts(run, pairs, tracking_ns(run, features=("stackleak", "stackleak:upstream"))),
            "checker": {k: None if c is None else kfacts.checker_verdicts(c) for k, c in run["configs"].items()},
            "targets": targets(run, erase, native, buildcost, nops),
            "absent": sorted({k for p in run["pairs"] for k in (p["with"], p["without"]) if k not in run["kernels"]})}
