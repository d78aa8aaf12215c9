#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stackleak-coverage.py - static stackleak check of a built kernel.

usage: stackleak-coverage.py [--track-min-size N] [--list FILE] BUILD_DIR
       stackleak-coverage.py --track-min-size N --objects OBJ...

On a Clang kernel (objects with .stack_sizes, from -fstack-size-section):
every function linked into BUILD_DIR/vmlinux whose final frame is at least
CONFIG_STACKLEAK_TRACK_MIN_SIZE must call stackleak_track_stack, outside the
exclusions below.  The final frame is passport-finalize's (and GCC's
get_frame_size()) figure: the .stack_sizes value minus 8 bytes per
callee-saved register push in the prologue.

Where the numbers come from.  The linked vmlinux keeps .stack_sizes, but it
cannot be read by address alone: the entry of a weak definition that another
object overrides resolves to the strong definition's address (two entries,
two sizes, one address), and entries of some discarded or .exit.text
functions resolve to addresses inside other functions.  So the frames,
sections and call sites are read from the objects the linker put into
vmlinux (every member of vmlinux.a, and the members of the lib.a archives
that vmlinux pulled in: all their global symbols are defined in vmlinux),
relocations resolved as passport-finalize does; then vmlinux itself is
disassembled and its calls to stackleak_track_stack must be exactly the
objects' calls, function by function.

Exclusions, each derived from the build, never from a list of functions:
  section      the function's input section is one the pass (like the GCC
               plugin) skips: .init.text .devinit.text .cpuinit.text
               .meminit.text .noinstr.text .entry.text .head.text - code
               that runs before or outside the task stack or must not be
               instrumented
  opted-out    its object was compiled with -passport-stackleak-disable
               (DISABLE_STACKLEAK_PLUGIN in its Makefile; in vmlinux:
               kernel/stackleak.c, the tracker's own file)
  no-pass      its object's Kbuild command has no -passport-stackleak (e.g.
               an objcopy of another object); listed, as it is a hole if
               unintended
  tracker      stackleak_track_stack itself
  leaf         GCC's leaf rules: a static function declared inline (the
               source or one of its headers, from the .o.cmd deps, says
               "inline" before the name) that makes no call, or a
               _paravirt_* function that makes no call
  no-frame     no .stack_sizes entry: assembly (.S objects, top-level asm
               in C files such as static-call trampolines) - not compiled
               code, nothing for the pass to do

On a GCC kernel (no .stack_sizes) it reports the counts only.
With --objects, the given relocatable objects are checked the same way
(no Kbuild command lines: no opted-out/no-pass exclusions, no vmlinux).

Output: PASS:/FAIL:/INFO: lines; exit 1 on any FAIL, 2 on usage errors.
--list FILE writes the tracked functions, one "name object section frame"
line each.
"""

import argparse
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kelf  # noqa: E402

TRACKER = "stackleak_track_stack"
EXCLUDED_SECTIONS = {".init.text", ".devinit.text", ".cpuinit.text", ".meminit.text",
                     ".noinstr.text", ".entry.text", ".head.text"}

failed = 0


def report(ok, text):
    global failed
    print(("PASS: " if ok else "FAIL: ") + text)
    failed += not ok


def linked_objects(build):
    """Objects of BUILD/vmlinux in link order."""
    objs = kelf.archive_members(os.path.join(build, "vmlinux.a"))
    vm = kelf.Elf(os.path.join(build, "vmlinux"))
    defined = {y.name for y in vm.symbols if y.bind != kelf.STB_LOCAL and y.shndx != 0}
    libs = []
    for top, _, files in os.walk(build):
        if "lib.a" in files and "/source" not in top:
            libs.append(os.path.join(top, "lib.a"))
    # With MODULES=y Kbuild also links lib-y objects into vmlinux.a (modules
    # may need their exports): count each object once.
    seen = {os.path.realpath(m) for m in objs}
    for lib in sorted(libs):
        for m in kelf.archive_members(lib):
            if os.path.realpath(m) in seen:
                continue
            e = kelf.Elf(m)
            g = [y.name for y in e.symbols if y.bind == 1 and y.shndx != 0]
            if g and all(n in defined for n in g):
                objs.append(m)
    return objs, vm


class Func:
    __slots__ = ("name", "obj", "section", "local", "start", "end", "stack_size",
                 "pushes", "calls", "shndx")

    @property
    def frame(self):
        return None if self.stack_size is None else self.stack_size - 8 * self.pushes


def read_object(path):
    """The functions of a relocatable object, with their frames and tracker calls."""
    e = kelf.Elf(path)
    sizes = kelf.object_stack_sizes(e)
    funcs, by_sec = [], collections.defaultdict(list)
    for y in e.functions():
        sec = e.sections[y.shndx]
        if not sec.flags & kelf.SHF_EXECINSTR:
            continue
        f = Func()
        f.name, f.obj, f.section, f.shndx = y.name, path, sec.name, y.shndx
        f.local = y.bind == kelf.STB_LOCAL
        f.start, f.end = y.value, y.value + y.size
        f.stack_size = sizes.get((y.shndx, y.value))
        f.pushes = kelf.prologue_pushes(e.bytes_of(sec)[f.start:f.end])
        f.calls = 0
        funcs.append(f)
        by_sec[y.shndx].append(f)
    for sec in e.sections:
        if not sec.flags & kelf.SHF_EXECINSTR or sec.index not in by_sec:
            continue
        code = e.bytes_of(sec)
        for off, typ, sym, _ in kelf.relocations(e, sec.index):
            if sym.name != TRACKER or typ not in (kelf.R_X86_64_PC32, kelf.R_X86_64_PLT32):
                continue
            if off < 1 or code[off - 1] != 0xe8:
                continue
            # every symbol covering the call: aliases (e.g. a __weak
            # __alias) name the same code
            for f in by_sec[sec.index]:
                if f.start <= off - 1 < f.end:
                    f.calls += 1
    return funcs


def canonical(funcs):
    """One Func per piece of code: aliases (same section and start) folded
    into the alphabetically first name."""
    seen = {}
    for f in sorted(funcs, key=lambda f: f.name):
        seen.setdefault((f.obj, f.shndx, f.start), f)
    return list(seen.values())


_CALL = re.compile(r"\s(call|jmp)\w*\s+(.*)$")


def makes_calls(f):
    """Whether F's machine code calls anything or tail-jumps out (evidence)."""
    out = subprocess.run(["objdump", "-dr", "-w", "--no-show-raw-insn", "-j", f.section,
                          "--start-address=%d" % f.start, "--stop-address=%d" % f.end, f.obj],
                         capture_output=True, text=True, env=dict(os.environ, LC_ALL="C")).stdout
    for line in out.splitlines():
        m = _CALL.search(line)
        if not m:
            continue
        if m.group(1) == "call":
            return "call " + m.group(2).strip()
        if "R_X86_64" in line or "*" in m.group(2):
            return "tail jump " + m.group(2).strip()
    return None


def declared_inline(build, f):
    """Where F is declared inline, from its object's source and the headers
    its .o.cmd lists, or None."""
    if not build:
        return None
    d, b = os.path.split(os.path.relpath(f.obj, build))
    try:
        text = open(os.path.join(build, d, "." + b + ".cmd"), errors="replace").read()
    except OSError:
        return None
    files = re.findall(r"(/\S+\.[ch])\b", text) + re.findall(r"\s(\S+\.[ch])\s", text)
    pat = re.compile(r"\b" + re.escape(f.name) + r"\s*\(")
    for path in dict.fromkeys(files):
        p = path if os.path.isabs(path) else os.path.join(build, path)
        try:
            src = open(p, errors="replace").read()
        except OSError:
            continue
        for m in pat.finditer(src):
            head = src[max(0, m.start() - 300):m.start()]
            head = re.split(r"[;{}#]", head)[-1]
            if re.search(r"\binline\b|__always_inline\b", head) and "static" in head:
                line = src.count("\n", 0, m.start()) + 1
                return "%s:%d" % (os.path.relpath(p, build) if not os.path.isabs(path) else path, line)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?")
    ap.add_argument("--track-min-size", type=int)
    ap.add_argument("--objects", nargs="+")
    ap.add_argument("--list")
    ap.add_argument("--name")
    a = ap.parse_args()
    if bool(a.build) == bool(a.objects):
        ap.error("give BUILD_DIR or --objects")

    build = a.build
    cfg = kelf.read_config(build) if build else {}
    name = a.name or (os.path.basename(os.path.normpath(build)) if build else "objects")
    enabled = "y" in (cfg.get("CONFIG_STACKLEAK"), cfg.get("CONFIG_GCC_PLUGIN_STACKLEAK"))
    tms = a.track_min_size
    if tms is None and "CONFIG_STACKLEAK_TRACK_MIN_SIZE" in cfg:
        tms = int(cfg["CONFIG_STACKLEAK_TRACK_MIN_SIZE"])
    if tms is None and not (build and not enabled):
        ap.error("no CONFIG_STACKLEAK_TRACK_MIN_SIZE: give --track-min-size")

    if build:
        objs, vm = linked_objects(build)
    else:
        objs, vm = a.objects, None

    funcs, kinds = [], {}
    for o in objs:
        toks = kelf.cmd_file(build, os.path.relpath(o, build)).split() if build else []
        if build and "-D__ASSEMBLY__" in toks:
            kinds[o] = "asm"
        elif build and "-passport-stackleak-disable" in toks:
            kinds[o] = "opted-out"
        elif build and "-passport-stackleak" not in toks:
            kinds[o] = "no-pass"
        else:
            kinds[o] = "pass"
        funcs += canonical(read_object(o))

    with_sizes = [f for f in funcs if f.stack_size is not None]
    if build and not enabled:
        tracked = [f for f in funcs if f.calls]
        report(not tracked, "stackleak-coverage: %s: stackleak off, %d functions call %s" % (
            name, len(tracked), TRACKER))
        write_list(a.list, tracked, build)
        return failed and 1
    if not with_sizes:
        # GCC kernel (or a Clang build without -fstack-size-section).
        tracked = [f for f in funcs if f.calls]
        bysec = collections.Counter(f.section for f in tracked)
        print("INFO: stackleak-coverage: %s: no .stack_sizes (GCC kernel?): frames unknown; "
              "%d functions call %s (%d calls; %s)" % (
                  name, len(tracked), TRACKER, sum(f.calls for f in tracked),
                  ", ".join("%s %d" % kv for kv in sorted(bysec.items())) or "none"))
        report(len(tracked) > 0, "stackleak-coverage: %s: %d functions tracked (frames not "
               "checkable without .stack_sizes)" % (name, len(tracked)))
        if vm is not None:
            check_linked(name, vm, tracked)
        write_list(a.list, tracked, build)
        return failed and 1

    large = [f for f in with_sizes if f.frame >= tms]
    excluded = collections.defaultdict(list)
    offenders = []
    for f in large:
        if f.calls:
            continue
        kind = kinds[f.obj]
        if f.name == TRACKER:
            excluded["tracker"].append(f)
        elif f.section in EXCLUDED_SECTIONS:
            excluded["section " + f.section].append(f)
        elif kind in ("opted-out", "no-pass"):
            excluded[kind + " " + os.path.relpath(f.obj, build)].append(f)
        else:
            call = makes_calls(f)
            where = None
            if not call and f.name.startswith("_paravirt_"):
                excluded["leaf _paravirt_*"].append(f)
            elif not call and f.local and (where := declared_inline(build, f)):
                excluded["leaf static inline (%s)" % where].append(f)
            else:
                offenders.append((f, call))
    noframe = [f for f in funcs if f.stack_size is None]
    tracked = [f for f in funcs if f.calls]
    print("INFO: stackleak-coverage: %s: %d objects, %d functions, %d with a .stack_sizes frame, "
          "%d without (assembly: %s)" % (
              name, len(objs), len(funcs), len(with_sizes), len(noframe),
              ", ".join(sorted({(os.path.relpath(f.obj, build) if build else f.obj) for f in noframe}))[:400]))
    for why, fs in sorted(excluded.items()):
        print("INFO: stackleak-coverage: %s: excluded (%s): %s" % (
            name, why, ", ".join("%s() frame %d" % (f.name, f.frame) for f in fs)))
    for f, call in offenders:
        print("FAIL-DETAIL: %s: %s() in %s [%s]: frame %d (.stack_sizes %d - 8 x %d pushes) >= %d, "
              "no call to %s%s" % (name, f.name, (os.path.relpath(f.obj, build) if build else f.obj), f.section,
                                   f.frame, f.stack_size, f.pushes, tms, TRACKER,
                                   "; makes calls: " + call if call else "; leaf, not inline"))
    nexcl = sum(len(v) for v in excluded.values())
    report(not offenders,
           "stackleak-coverage: %s: %d of %d functions with final frame >= %d lack the call to %s "
           "(%d tracked, %d excluded: %s)" % (
               name, len(offenders), len(large), tms, TRACKER, len(tracked), nexcl,
               ", ".join("%s %d" % (k.split(" (")[0], len(v)) for k, v in sorted(excluded.items()))
               or "none"))
    small_tracked = [f for f in tracked if f.frame is not None and f.frame < tms]
    if small_tracked:
        # Allowed (dynamic allocas keep the call), but visible.
        print("INFO: stackleak-coverage: %s: %d tracked functions have a frame < %d (calls after "
              "dynamic allocas): %s" % (name, len(small_tracked), tms,
                                         ", ".join(f.name for f in small_tracked[:20])))

    if vm is not None:
        check_linked(name, vm, tracked)
    write_list(a.list, tracked, build)
    return failed and 1


def check_linked(name, vm, tracked):
    """vmlinux's calls to the tracker are exactly the objects' calls."""
    if True:
        vfuncs = vm.functions()
        first = {}
        for y in sorted(vfuncs, key=lambda y: y.name):
            first.setdefault(y.value, y.name)
        fi = kelf.FunctionIndex(vfuncs)
        got = collections.Counter()
        for addr, mnem, _, target in kelf.branch_sites(vm.path):
            if target == TRACKER and mnem.startswith("call"):
                y = fi.at(addr)
                got[first[y.value] if y else hex(addr)] += 1
        want = collections.Counter()
        for f in tracked:
            want[f.name] += f.calls
        missing, extra = want - got, got - want
        report(not missing and not extra,
               "stackleak-linked: %s: vmlinux has %d calls to %s in %d functions, the objects %d "
               "in %d%s%s" % (name, sum(got.values()), TRACKER, len(got), sum(want.values()),
                              len(want),
                              "; missing in vmlinux: " + ", ".join(sorted(missing)) if missing else "",
                              "; only in vmlinux: " + ", ".join(sorted(extra)) if extra else ""))


def write_list(path, tracked, build=None):
    if not path:
        return
    with open(path, "w") as out:
        for f in sorted(tracked, key=lambda f: (f.name, f.obj)):
            out.write("%s %s %s %s\n" % (f.name, (os.path.relpath(f.obj, build) if build else f.obj), f.section,
                                         "?" if f.stack_size is None else f.frame))


if __name__ == "__main__":
    sys.exit(main())
