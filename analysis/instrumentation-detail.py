#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""instrumentation-detail.py - per-feature instrumentation lists of built kernels.

usage: instrumentation-detail.py [--out FILE] BUILD_DIR
       instrumentation-detail.py --compare BUILD_A BUILD_B
       instrumentation-detail.py --counts BUILD_DIR

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

--counts prints only the counts of vmlinux (what scripts/kernel-build.sh
keeps as BUILD_DIR/instrumentation.txt), "KEY VALUE" lines:
  stackleak_track_stack_functions, stackleak_track_stack_call_sites,
  latent_entropy_functions, latent_entropy_functions[SECTION]
The rules are kfacts.py's tracker_callers() and latent_entropy_users().

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
import kfacts  # noqa: E402

from checks import report  # noqa: E402
import checks  # noqa: E402


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
    first, _ = kfacts.image_functions(vm)
    section_of = {n: vm.section_at(a).name for a, n in first.items()}
    stackleak = {n: section_of.get(n, "?") for n in kfacts.tracker_callers(vm)}
    latent = kfacts.latent_entropy_users(vm)
    le_addr = next((y.value for y in vm.symbols if y.name == "latent_entropy" and y.shndx), None)
    noret = set()

    # The functions that carry __latent_entropy.
    src = os.path.realpath(os.path.join(build, "source"))
    named = named_latent_entropy_functions(src) if os.path.isdir(src) else {}
    vm_names = {y.name for y in funcs}
    init_funcs = {}
    for o in kfacts.linked_objects(build, vm)[0]:
        if kfacts.object_kind(build, o) == "asm":
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
                                           "CONFIG_KSTACK_ERASE", "CONFIG_GCC_PLUGIN_STACKLEAK",
                                           "CONFIG_LLVM_PASS_STACKLEAK",
                                           "CONFIG_KSTACK_ERASE_TRACK_MIN_SIZE",
                                           "CONFIG_STACKLEAK", "CONFIG_STACKLEAK_TRACK_MIN_SIZE",
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


def counts(build):
    vm = kelf.Elf(os.path.join(build, "vmlinux"))
    cfg = kelf.read_config(build)
    calls = kfacts.tracker_callers(vm)
    latent = kfacts.latent_entropy_users(vm)
    cc = "gcc" if cfg.get("CONFIG_CC_IS_GCC") == "y" else "clang"
    print("# static instrumentation counts for %s (%s), from vmlinux (analysis/kfacts.py)"
          % (os.path.basename(os.path.normpath(build)), cc))
    print("stackleak_track_stack_functions %d" % len(calls))
    print("stackleak_track_stack_call_sites %d" % sum(calls.values()))
    print("latent_entropy_functions %d" % len(latent))
    for sec, n in sorted(collections.Counter(latent.values()).items()):
        print("latent_entropy_functions[%s] %d" % (sec, n))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?")
    ap.add_argument("--out")
    ap.add_argument("--compare", nargs=2, metavar="BUILD")
    ap.add_argument("--counts", action="store_true")
    a = ap.parse_args()
    if a.counts and a.build:
        counts(a.build)
    elif a.compare:
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
    return checks.status()


if __name__ == "__main__":
    sys.exit(main())
