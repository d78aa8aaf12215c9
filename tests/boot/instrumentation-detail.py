#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""instrumentation-detail.py - per-feature instrumentation lists of built kernels.

usage: instrumentation-detail.py [--out FILE] BUILD_DIR
       instrumentation-detail.py --compare BUILD_A BUILD_B

For BUILD_DIR (build/kernel/NAME) it writes BUILD_DIR/instrumentation-detail.json
(or --out FILE) for the comparison report, and prints a summary:

  stackleak       the functions of vmlinux that call stackleak_track_stack,
                  with their section
  latent_entropy  the functions of vmlinux that reference the latent_entropy
                  variable (objdump), by output section
  latent_entropy expected
                  the functions that carry __latent_entropy: those the tree
                  marks by name (a grep of the kernel source for
                  "__latent_entropy ... NAME(") and every __init/__meminit
                  function (include/linux/init.h gives both the attribute;
                  read from each linked object's input sections .init.text
                  and .meminit.text, C objects only); how many of them are
                  instrumented, and which are not (the GCC plugin also skips
                  noreturn functions and those without a return: such a
                  function is listed with "no ret")

Lines: "PASS:"/"FAIL:"/"INFO:".  With the feature enabled in .config
(CONFIG_GCC_PLUGIN_LATENT_ENTROPY or CONFIG_LATENT_ENTROPY), every named
__latent_entropy function that is in vmlinux must be instrumented (FAIL
otherwise); the __init counts are reported.  Without it, no function may
reference latent_entropy.  --compare prints the differences of two kernels'
lists (GCC vs Clang) and the counts on each; it fails only when a named
__latent_entropy function is instrumented on one and not the other.
"""

import argparse
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kelf  # noqa: E402

failed = 0


def report(ok, text):
    global failed
    print(("PASS: " if ok else "FAIL: ") + text)
    failed += not ok


def linked_objects(build, vm):
    objs = kelf.archive_members(os.path.join(build, "vmlinux.a"))
    defined = {y.name for y in vm.symbols if y.bind != kelf.STB_LOCAL and y.shndx != 0}
    for top, _, files in os.walk(build):
        if "lib.a" in files and "/source" not in top:
            for m in kelf.archive_members(os.path.join(top, "lib.a")):
                g = [y.name for y in kelf.Elf(m).symbols if y.bind == 1 and y.shndx != 0]
                if g and all(n in defined for n in g):
                    objs.append(m)
    return objs


def named_latent_entropy_functions(src):
    """{name: "file:line"} of the functions the kernel source marks __latent_entropy."""
    found = {}
    pat = re.compile(r"__latent_entropy\b")
    for top, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d not in (".git", "scripts", "tools", "Documentation")]
        for fn in files:
            if not fn.endswith(".c"):
                continue
            p = os.path.join(top, fn)
            text = open(p, errors="replace").read()
            if "__latent_entropy" not in text:
                continue
            for m in pat.finditer(text):
                # the declaration the attribute belongs to: up to its "(" or ";"
                tail = text[m.end():m.end() + 300]
                head = text[max(0, m.start() - 200):m.start()]
                head = re.split(r"[;{}]", head)[-1]
                decl = head + tail
                stop = min([i for i in (tail.find(";"), tail.find("{")) if i >= 0] or [len(tail)])
                if "(" not in tail[:stop] or "#define" in head:
                    continue  # a variable, or the macro's definition
                name = re.search(r"(\w+)\s*\(", tail[:stop] if "(" in tail[:stop] else decl)
                line = text.count("\n", 0, m.start()) + 1
                found[name.group(1)] = "%s:%d" % (os.path.relpath(p, src), line)
    return found


def analyse(build):
    vm = kelf.Elf(os.path.join(build, "vmlinux"))
    cfg = kelf.read_config(build)
    funcs = vm.functions()
    first = {}
    for y in sorted(funcs, key=lambda y: y.name):
        first.setdefault(y.value, y.name)
    fi = kelf.FunctionIndex(funcs)
    le = vm.symbols and [y for y in vm.symbols if y.name == "latent_entropy" and y.shndx]
    le_addr = le[0].value if le else None

    stackleak = {}
    for addr, mnem, _, target in kelf.branch_sites(vm.path):
        if target == "stackleak_track_stack" and mnem.startswith("call"):
            y = fi.at(addr)
            if y:
                stackleak[first[y.value]] = vm.section_at(y.value).name

    # Functions whose code references latent_entropy: objdump's "# ADDR
    # <latent_entropy>" comment on rip-relative operands, or the absolute
    # address as an operand.
    latent = {}
    noret = set()
    if le_addr is not None:
        import subprocess
        hexa = "%x" % le_addr
        proc = subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", "-w", vm.path],
                                stdout=subprocess.PIPE, text=True, errors="replace",
                                env=dict(os.environ, LC_ALL="C"))
        for line in proc.stdout:
            if "<latent_entropy>" in line or ("0x" + hexa) in line:
                m = re.match(r"\s*([0-9a-f]+):", line)
                y = m and fi.at(int(m.group(1), 16))
                if y:
                    latent[first[y.value]] = vm.section_at(y.value).name
        proc.wait()

    # The functions that carry __latent_entropy.
    src = os.path.realpath(os.path.join(build, "source"))
    named = named_latent_entropy_functions(src) if os.path.isdir(src) else {}
    vm_names = {y.name for y in funcs}
    init_funcs = {}
    for o in linked_objects(build, vm):
        toks = kelf.cmd_file(build, os.path.relpath(o, build)).split()
        if "-D__ASSEMBLY__" in toks:
            continue
        e = kelf.Elf(o)
        for y in e.functions():
            sec = e.sections[y.shndx].name
            if sec in (".init.text", ".meminit.text") and y.size > 0:
                init_funcs.setdefault(y.name, (sec, os.path.relpath(o, build)))
    # functions without a ret (noreturn: skipped by the plugin's gate)
    for y in funcs:
        code = vm.read_at(y.value, y.size)
        if code and b"\xc3" not in code and b"\xe9" not in code:
            noret.add(y.name)
    return {
        "kernel": os.path.basename(os.path.normpath(build)),
        "config": {k: cfg.get(k) for k in ("CONFIG_CC_IS_GCC", "CONFIG_CC_IS_CLANG",
                                           "CONFIG_STACKLEAK", "CONFIG_GCC_PLUGIN_STACKLEAK",
                                           "CONFIG_STACKLEAK_TRACK_MIN_SIZE",
                                           "CONFIG_GCC_PLUGIN_LATENT_ENTROPY",
                                           "CONFIG_LATENT_ENTROPY", "CONFIG_RANDSTRUCT_FULL",
                                           "CONFIG_RANDSTRUCT_PERFORMANCE")},
        "stackleak": {"tracked": dict(sorted(stackleak.items())),
                      "count": len(stackleak),
                      "by_section": dict(collections.Counter(stackleak.values()))},
        "latent_entropy": {
            "symbol": le_addr is not None,
            "instrumented": dict(sorted(latent.items())),
            "count": len(latent),
            "by_section": dict(collections.Counter(latent.values())),
            "named": {n: {"where": w, "in_vmlinux": n in vm_names, "instrumented": n in latent}
                      for n, w in sorted(named.items())},
            "init": {"count": len(init_funcs),
                     "instrumented": sum(1 for n in init_funcs if n in latent),
                     "not_instrumented": sorted(n + (" (no ret)" if n in noret else "")
                                                for n in init_funcs if n not in latent)},
        },
    }


def summarize(d):
    name, le, cfg = d["kernel"], d["latent_entropy"], d["config"]
    print("INFO: instrumentation: %s: stackleak: %d functions call stackleak_track_stack (%s)" % (
        name, d["stackleak"]["count"],
        ", ".join("%s %d" % kv for kv in sorted(d["stackleak"]["by_section"].items())) or "none"))
    print("INFO: instrumentation: %s: latent_entropy: %d functions reference latent_entropy (%s)" % (
        name, le["count"],
        ", ".join("%s %d" % kv for kv in sorted(le["by_section"].items())) or "none"))
    named_in = {n: v for n, v in le["named"].items() if v["in_vmlinux"]}
    ninst = sum(v["instrumented"] for v in named_in.values())
    print("INFO: instrumentation: %s: latent_entropy: __init/__meminit functions instrumented: "
          "%d of %d" % (name, le["init"]["instrumented"], le["init"]["count"]))
    enabled = "y" in (cfg.get("CONFIG_GCC_PLUGIN_LATENT_ENTROPY"), cfg.get("CONFIG_LATENT_ENTROPY"))
    if enabled:
        missing = sorted(n for n, v in named_in.items() if not v["instrumented"])
        report(not missing,
               "latent-entropy-static: %s: %d of %d named __latent_entropy functions in vmlinux are "
               "instrumented%s" % (name, ninst, len(named_in),
                                   "; not: " + ", ".join(missing) if missing else ""))
    else:
        report(le["count"] == 0,
               "latent-entropy-static: %s: latent_entropy off, %d functions reference it" % (
                   name, le["count"]))


def compare(a, b):
    na, nb = a["kernel"], b["kernel"]
    for feat, key in (("stackleak", "tracked"), ("latent_entropy", "instrumented")):
        sa, sb = set(a[feat][key]), set(b[feat][key])
        inter, union = len(sa & sb), len(sa | sb)
        print("INFO: compare: %s: %s %d, %s %d, both %d, only %s %d, only %s %d, Jaccard %.2f" % (
            feat, na, len(sa), nb, len(sb), inter, na, len(sa - sb), nb, len(sb - sa),
            inter / union if union else 1.0))
    la, lb = a["latent_entropy"], b["latent_entropy"]
    print("INFO: compare: latent_entropy __init/__meminit instrumented: %s %d of %d, %s %d of %d" % (
        na, la["init"]["instrumented"], la["init"]["count"],
        nb, lb["init"]["instrumented"], lb["init"]["count"]))
    if la["count"] and lb["count"]:
        diff = sorted(n for n in set(la["named"]) & set(lb["named"])
                      if la["named"][n]["in_vmlinux"] and lb["named"][n]["in_vmlinux"]
                      and la["named"][n]["instrumented"] != lb["named"][n]["instrumented"])
        report(not diff, "compare: named __latent_entropy functions instrumented alike on %s and %s%s"
               % (na, nb, "; differ: " + ", ".join(diff) if diff else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?")
    ap.add_argument("--out")
    ap.add_argument("--compare", nargs=2, metavar="BUILD")
    a = ap.parse_args()
    if a.compare:
        ds = []
        for b in a.compare:
            p = os.path.join(b, "instrumentation-detail.json")
            ds.append(json.load(open(p)) if os.path.exists(p) else analyse(b))
        compare(*ds)
    elif a.build:
        d = analyse(a.build)
        out = a.out or os.path.join(a.build, "instrumentation-detail.json")
        with open(out, "w") as f:
            json.dump(d, f, indent=1)
        summarize(d)
        print("INFO: instrumentation: %s: written to %s" % (d["kernel"], out))
    else:
        ap.error("give BUILD_DIR or --compare A B")
    return failed and 1


if __name__ == "__main__":
    sys.exit(main())
