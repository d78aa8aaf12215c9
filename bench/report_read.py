"""report_read.py: stage 1 of the compare report, the run directory as plain data.

read_run(RUN_DIR) -> run, a dict of lists, dicts and numbers:
  path       RUN_DIR
  meta       {key: value}                    meta.txt (empty if absent)
  kernels    {name: {name cc tree frags status}}, in kernels.tsv order
  pairs      [{feature base upstream with without label}]  pairs.txt
             (base: FEATURE without ":upstream"; upstream: it had it)
  boots      {name: [boot]}, in file order   boot/NAME.N.log that reached "done";
             boot = {path results{(phase, op): {min median max samples batch
             bytes}} depth{op: bytes} run_init info{k: v} done}
  verdicts   {name: {lkdtm_ok lkdtm_fail lkdtm_xfail latent stackinit
             autoinit} or None}              boot/NAME.verdict.log
  static     {name: {fns{fn: row} text data bss} or None}  static/NAME.tsv, .size
  configs    {name: {CONFIG_X: value} or None}              static/NAME.config
             ("# CONFIG_X is not set" lines: the value "is not set")
  stale      {name: first line or None}      static/NAME.config-stale
  layouts    {name: {exit against mismatches types distinct mismatched_types
             randomized} or None}            static/NAME.randstruct-probe.txt
             (analysis/randstruct-probe.py against the run's GCC
             randstruct kernel; numbers None where the probe did not say)
  native     {(variant, bytes): {min median samples}} or None  native.txt
  buildcost  {(kernel, feature): {objects{obj: {with without control: [s]}}
             instructions{obj: {variant: n}} processes{obj: {variant:
             {program: n}}} header}}         buildcost/K.F.tsv: objects
             holds CPU seconds (one per rep), instructions cachegrind's
             count of every process, processes its split by program;
             instructions is empty for a file from before instruction
             counts (four columns), objects' lists for one of --reps 0

Only parsing: nothing here compares, averages or judges (report_facts.py
does). A missing input file reads as None or empty, so that the report can
name it where its numbers would be. Standard library only (and the .config
reader of analysis/kelf.py).
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
import kelf  # noqa: E402

RESULT_RE = re.compile(r"^passport: bench: result (.*)$")
DEPTH_RE = re.compile(r"^passport: bench: depth phase=(\S+) op=(\S+) erase_depth=(-?\d+)")
INFO_RE = re.compile(r"^passport: bench: info (.*)$")
RUN_INIT_RE = re.compile(r"^\[\s*([0-9.]+)\] Run /init as init process")


def kv(s):
    return dict(x.split("=", 1) for x in s.split() if "=" in x)


def read_lines(path):
    with open(path, errors="replace") as f:
        return [l.rstrip("\n").rstrip("\r") for l in f]


def read_meta(run):
    meta = {}
    path = os.path.join(run, "meta.txt")
    if os.path.exists(path):
        for l in read_lines(path):
            k, _, v = l.partition(" ")
            meta[k] = v
    return meta


def read_kernels(run):
    ks = {}
    for l in read_lines(os.path.join(run, "kernels.tsv")):
        f = l.split("\t")
        if len(f) >= 5:
            ks[f[0]] = {"name": f[0], "cc": f[1], "tree": f[2], "frags": f[3], "status": f[4]}
    return ks


def read_pairs(run):
    pairs = []
    path = os.path.join(run, "pairs.txt")
    if os.path.exists(path):
        for l in read_lines(path):
            if l.strip() and not l.lstrip().startswith("#"):
                f = l.split(None, 3)
                # FEATURE:upstream, a pair of upstream Clang's own option
                base, _, kind = f[0].partition(":")
                pairs.append({"feature": f[0], "base": base, "upstream": kind == "upstream",
                              "with": f[1], "without": f[2], "label": f[3] if len(f) > 3 else ""})
    return pairs


def parse_boot(path):
    """One benchmark boot: results[(phase, op)], depth[op], run_init, info."""
    b = {"path": path, "results": {}, "depth": {}, "run_init": None, "info": {}, "done": False}
    for l in read_lines(path):
        m = RESULT_RE.match(l)
        if m:
            d = kv(m.group(1))
            b["results"][(d["phase"], d["op"])] = {
                "min": float(d["min_ns"]), "median": float(d["median_ns"]),
                "max": float(d["max_ns"]), "samples": int(d["samples"]),
                "batch": int(d["batch"]), "bytes": int(d.get("bytes", 0))}
            continue
        m = DEPTH_RE.match(l)
        if m:
            b["depth"][m.group(2)] = int(m.group(3))
            continue
        m = INFO_RE.match(l)
        if m:
            b["info"].update(kv(m.group(1)))
            continue
        m = RUN_INIT_RE.match(l)
        if m and b["run_init"] is None:
            b["run_init"] = float(m.group(1))
        if l.startswith("passport: bench: done"):
            b["done"] = True
    return b


def read_boots(run):
    """Only boots that reached "done": a cut-off boot has partial numbers."""
    boots = {}
    for path in sorted(glob.glob(os.path.join(run, "boot", "*.log"))):
        base = os.path.basename(path)[:-4]
        name, _, n = base.rpartition(".")
        if not n.isdigit():
            continue
        b = parse_boot(path)
        if b["done"]:
            boots.setdefault(name, []).append(b)
    return boots


def read_verdicts(run, name):
    """In-guest verdicts of the verdict boot, or None."""
    path = os.path.join(run, "boot", name + ".verdict.log")
    if not os.path.exists(path):
        return None
    text = "\n".join(read_lines(path))
    v = {"lkdtm_ok": text.count("lkdtm: OK: the rest of the thread stack is properly erased"),
         "lkdtm_fail": len(re.findall(r"lkdtm: .*FAIL", text)) - text.count("XFAIL: stackleak is not enabled"),
         "lkdtm_xfail": text.count("XFAIL: stackleak is not enabled"),
         "latent": None, "stackinit": None, "autoinit": None}
    m = re.search(r"latent_entropy at \S+: before=\S+ after 32 forks=\S+: (changed|unchanged)", text)
    if m:
        v["latent"] = m.group(1)
    elif "symbol latent_entropy not in /proc/kallsyms" in text:
        v["latent"] = "absent"
    m = re.search(r"# stackinit: pass:(\d+) fail:(\d+) skip:(\d+)", text)
    if m:
        v["stackinit"] = tuple(int(x) for x in m.groups())
    m = re.search(r"mem auto-init: stack:([^,]+),", text)
    if m:
        v["autoinit"] = m.group(1)
    return v


def read_static(run, name):
    path = os.path.join(run, "static", name + ".tsv")
    if not os.path.exists(path):
        return None
    fns = {}
    for l in read_lines(path):
        if l.startswith("#"):
            continue
        f = l.split("\t")
        fns.setdefault(f[0], {"name": f[0], "section": f[1], "bytes": int(f[2]), "tracked": int(f[3]),
                              "latent": int(f[4]), "frame": int(f[5]), "pushes": int(f[6]),
                              "nop": int(f[7]) if len(f) > 7 else 0,
                              "untracked": int(f[8]) if len(f) > 8 else 0})
    size = read_lines(path + ".size")[0].split()
    return {"fns": fns, "text": int(size[0]), "data": int(size[1]), "bss": int(size[2])}


def read_config(run, name):
    path = os.path.join(run, "static", name + ".config")
    return kelf.parse_config(path, not_set=True) if os.path.exists(path) else None


def read_stale(run, name):
    """compare.sh's note that the .config is newer than the booted bzImage."""
    path = os.path.join(run, "static", name + ".config-stale")
    return read_lines(path)[0] if os.path.exists(path) else None


PROBE_TOTAL_RE = re.compile(r"^(PASS|FAIL): randstruct-probe: \d+ TUs, (\d+) types \((\d+) distinct\), .*: "
                            r"(\d+) mismatches(?: in (\d+) distinct types)?")
PROBE_RANDOM_RE = re.compile(r"^(?:PASS|FAIL): randstruct-probe: (\d+) of \d+ distinct types are randomized")
PROBE_EXIT_RE = re.compile(r"^# exit (\d+) against (\S+)")


def read_layout(run, name):
    """compare.sh's randstruct-probe output for NAME."""
    path = os.path.join(run, "static", name + ".randstruct-probe.txt")
    if not os.path.exists(path):
        return None
    res = {"exit": None, "against": None, "mismatches": None, "types": None, "distinct": None,
           "mismatched_types": None, "randomized": None}
    for line in read_lines(path):
        m = PROBE_TOTAL_RE.match(line)
        if m:
            res.update(types=int(m.group(2)), distinct=int(m.group(3)), mismatches=int(m.group(4)),
                       mismatched_types=int(m.group(5) or 0))
        m = PROBE_RANDOM_RE.match(line)
        if m:
            res["randomized"] = int(m.group(1))
        m = PROBE_EXIT_RE.match(line)
        if m:
            res.update({"exit": int(m.group(1)), "against": m.group(2)})
    return res


def read_native(run):
    path = os.path.join(run, "native.txt")
    if not os.path.exists(path):
        return None
    res = {}
    for l in read_lines(path):
        if l.startswith("native: "):
            d = kv(l[len("native: "):])
            res[(d["variant"], int(d["bytes"]))] = {
                "min": float(d["min_ns"]), "median": float(d["median_ns"]), "samples": int(d["samples"])}
    return res


def buildcost_row(fields, cpu, instructions, processes):
    """One line of buildcost/K.F.tsv into the object's dicts (format:
    bench/collect.py's docstring): a CPU-time run, or an instruction count."""
    obj, variant, _, t = fields[:4]
    cpu.setdefault(obj, {"with": [], "without": [], "control": []})
    if t != "-":
        cpu[obj][variant].append(float(t))
    if len(fields) >= 6 and fields[4] != "-":
        instructions.setdefault(obj, {})[variant] = int(fields[4])
        processes.setdefault(obj, {})[variant] = {
            p: int(n) for p, _, n in (x.partition("=") for x in fields[5].split(",") if x)}


def read_buildcost(run):
    res = {}
    for path in sorted(glob.glob(os.path.join(run, "buildcost", "*.tsv"))):
        base = os.path.basename(path)[:-4]
        kernel, _, feature = base.partition(".")
        lines = read_lines(path)
        cpu, instructions, processes = {}, {}, {}
        for l in lines[1:]:
            if l and not l.startswith("#"):
                buildcost_row(l.split("\t"), cpu, instructions, processes)
        res[(kernel, feature)] = {"objects": cpu, "instructions": instructions, "processes": processes,
                                  "header": lines[0] if lines else ""}
    return res


def read_run(run):
    kernels = read_kernels(run)
    return {"path": run, "meta": read_meta(run), "kernels": kernels, "pairs": read_pairs(run),
            "boots": read_boots(run), "native": read_native(run), "buildcost": read_buildcost(run),
            "static": {k: read_static(run, k) for k in kernels},
            "verdicts": {k: read_verdicts(run, k) for k in kernels},
            "configs": {k: read_config(run, k) for k in kernels},
            "stale": {k: read_stale(run, k) for k in kernels},
            "layouts": {k: read_layout(run, k) for k in kernels}}
