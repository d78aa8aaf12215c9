#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""randstruct-probe.py - GCC and Clang randstruct layouts of a real kernel
build, compared through compiled offsetof() constants.

usage: randstruct-probe.py [--baseline-none] [--tu SRC.c ...] [--jobs N]
                           [--clang-seed FILE | --clang-no-randstruct]
                           [--list] [--keep] GCC_BUILD_DIR CLANG_BUILD_DIR

GCC_BUILD_DIR: a kernel built with gcc + the kernel's randstruct plugin;
CLANG_BUILD_DIR: the same kernel built with clang + passport's randstruct
(-mllvm -passport-randstruct), same seed.  Both must have compiled every
--tu (default: a set of core kernel files; those missing from either build
are reported and skipped).  A Clang kernel with upstream Clang's built-in
randstruct (-frandomize-layout-seed-file, passport off) is probed the same
way: its layouts come from Clang's own algorithm, so they are expected to
differ from GCC's (compare's upstream column counts how much).

Why not DWARF: the GCC plugin reorders fields after GCC has recorded the
original offsets, so a GCC vmlinux's DWARF shows the unrandomized layout.
The compiled code is the truth, so this check asks the compilers:

 1. The exact Kbuild command of each translation unit is taken from
    BUILD/<dir>/.<name>.o.cmd of each kernel (ccache and the dependency
    file option dropped) and run with cwd = the build dir, as Kbuild does.
 2. The TU is compiled with the Clang command plus -g
    -fno-eliminate-unused-debug-types; its DWARF (llvm-dwarfdump) lists
    every struct and union defined at file scope (anonymous ones through a
    typedef name) with its members; the members of anonymous struct/union
    members count as members of the enclosing type, as C accesses them.
 3. A probe file #includes the TU source (by absolute path, generated in a
    temporary directory) and adds one table of __builtin_offsetof(T, m) and
    sizeof(T) for every non-bitfield member, and for every bitfield a static
    object "T x = { .m = -1 }" whose set bits are the field's position.
    The probe is compiled with the GCC kernel's command and the Clang
    kernel's command; the values are read from the objects' data
    (relocation-free constants) and compared entry by entry.  Entries a
    compiler rejects (a member that exists only under a compiler-specific
    #ifdef, a type that is not complete at the end of the TU, ...) are
    dropped from both sides, with the compiler's message as the reason, and
    the probe is compiled again.
 4. --baseline-none: the Clang probe is also compiled without randstruct
    (no -DRANDSTRUCT, no -passport-randstruct options); the types whose
    layout differs from it are the randomized ones (FAIL if there are none:
    the comparison would be vacuous).

Failure demonstrations (the check must FAIL): --clang-seed FILE gives the
Clang side another seed file; --clang-no-randstruct compiles the Clang side
without randstruct.

Output: PASS:/FAIL:/INFO: lines; every mismatch as
"FAIL-DETAIL: TU: TYPE.MEMBER: gcc OFF clang OFF".  Exit 1 on a mismatch,
2 on usage or setup errors (a build dir, command or seed missing, a probe
that cannot be compiled).
"""

import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
import kelf  # noqa: E402

# Chosen for coverage on a 6.1 tinyconfig-based kernel: of the 1779 types
# 18 core TUs define, these 10 define 1759, and all 93 randomized ones.
DEFAULT_TUS = [
    "kernel/fork.c", "fs/file.c", "kernel/sched/core.c", "fs/namei.c",
    "kernel/sys.c", "fs/namespace.c", "kernel/exit.c", "fs/exec.c",
    "mm/mmap.c", "fs/super.c",
]
# Types named in the report (randomized in 6.1 by __randomize_layout or
# randomized_struct_fields_start, or all-function-pointer ops structs).
NOTABLE = [
    "task_struct", "cred", "file", "inode", "super_block", "mm_struct",
    "vm_area_struct", "dentry", "file_operations", "inode_operations",
    "super_operations", "address_space", "path", "vfsmount", "mount",
    "fs_struct", "files_struct", "signal_struct", "sighand_struct",
    "nsproxy", "pid_namespace", "linux_binprm", "user_namespace",
    "dentry_operations", "vm_operations_struct", "seq_operations",
]

OFF_SYM = "__passport_probe_off"
BF_SYM = "__passport_probe_bf_%d"


class SetupError(Exception):
    pass


# ---------------------------------------------------------------- commands

def kbuild_command(build, src):
    """kelf.compile_command, its problems as SetupError."""
    try:
        return kelf.compile_command(build, src)
    except ValueError as e:
        raise SetupError(str(e))


CLANG_SEED = "-frandomize-layout-seed-file="      # upstream Clang's built-in randstruct
PASSPORT_SEED = "-passport-randstruct-seed-file="


def clang_randstruct(argv):
    """Whose randstruct a Clang command runs: "passport", "clang" (the
    built-in one) or None."""
    if "-passport-randstruct" in argv:
        return "passport"
    if any(a.startswith(CLANG_SEED) for a in argv):
        return "clang"
    return None


def without_randstruct(argv):
    """ARGV without -DRANDSTRUCT, the -mllvm -passport-randstruct* pairs and
    Clang's own seed option."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "-DRANDSTRUCT" or argv[i].startswith(CLANG_SEED):
            i += 1
            continue
        if argv[i] == "-mllvm" and i + 1 < len(argv) and argv[i + 1].startswith("-passport-randstruct"):
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def with_seed(argv, seed):
    out = []
    for a in argv:
        for opt in (PASSPORT_SEED, CLANG_SEED):
            if a.startswith(opt):
                a = opt + seed
        out.append(a)
    return out


def clang_seed_file(argv, build):
    for a in argv:
        if a.startswith(PASSPORT_SEED) or a.startswith(CLANG_SEED):
            p = a.split("=", 1)[1]
            return p if os.path.isabs(p) else os.path.normpath(os.path.join(build, p))
    return None


def gcc_plugin_seed(build):
    p = os.path.join(build, "scripts/gcc-plugins/randomize_layout_seed.h")
    try:
        m = re.search(r'randstruct_seed\s*=\s*"([^"]*)"', open(p).read())
    except OSError:
        return None
    return m.group(1) if m else None


def randstruct_mode(build):
    cfg = kelf.read_config(build)
    if cfg.get("CONFIG_RANDSTRUCT_FULL") == "y":
        return "full"
    if cfg.get("CONFIG_RANDSTRUCT_PERFORMANCE") == "y":
        return "performance"
    return "none"


# ------------------------------------------------------------------- DWARF

_DIE = re.compile(r"^0x([0-9a-f]+):(\s+)(DW_TAG_\w+|NULL)")
_ATTR = re.compile(r"^\s+(DW_AT_\w+)\s+\((.*)\)\s*$")


class Die:
    __slots__ = ("off", "tag", "attrs", "parent", "children")

    def __init__(self, off, tag, parent):
        self.off, self.tag, self.parent = off, tag, parent
        self.attrs, self.children = {}, []

    def name(self):
        v = self.attrs.get("DW_AT_name")
        if v is None:
            return None
        m = re.match(r'"(.*)"$', v)
        return m.group(1) if m else v

    def ref(self, attr="DW_AT_type"):
        m = re.match(r"0x([0-9a-f]+)", self.attrs.get(attr, ""))
        return int(m.group(1), 16) if m else None


def read_dwarf(obj, tool):
    out = subprocess.run([tool, "--debug-info", obj], capture_output=True, text=True,
                         errors="replace")
    if out.returncode != 0:
        raise SetupError("%s failed on %s: %s" % (tool, obj, out.stderr.strip()[:300]))
    dies, stack, cus, cur = {}, [], [], None
    for line in out.stdout.splitlines():
        m = _DIE.match(line)
        if m:
            cur = None
            indent, tag = len(m.group(2)), m.group(3)
            while stack and stack[-1][0] >= indent:
                stack.pop()
            if tag == "NULL":
                continue
            parent = stack[-1][1] if stack else None
            cur = Die(int(m.group(1), 16), tag, parent)
            dies[cur.off] = cur
            if parent is not None:
                parent.children.append(cur)
            else:
                cus.append(cur)
            stack.append((indent, cur))
            continue
        a = _ATTR.match(line)
        if a and cur is not None:
            cur.attrs[a.group(1)] = a.group(2)
    return dies, cus


def types_of(dies, cus):
    """[(spelling, [(member, 'off'|'bf')])] of every struct/union defined at
    file scope; anonymous ones by a file-scope typedef name.  Also the
    number of types and members left out, by reason."""
    skipped = collections.Counter()
    tops = [d for cu in cus for d in cu.children]
    typedef_of = {}
    for d in tops:
        if d.tag == "DW_TAG_typedef" and d.name() and d.ref() is not None:
            typedef_of.setdefault(d.ref(), d.name())

    def members(d):
        out = []
        for c in d.children:
            if c.tag != "DW_TAG_member":
                continue
            n = c.name()
            if n is None:
                t = dies.get(c.ref())
                if t is not None and t.tag in ("DW_TAG_structure_type", "DW_TAG_union_type") \
                        and t.name() is None:
                    out.extend(members(t))
                else:
                    skipped["unnamed non-struct members"] += 1
                continue
            out.append((n, "bf" if "DW_AT_bit_size" in c.attrs else "off"))
        return out

    result, seen = [], {}
    for d in tops:
        if d.tag not in ("DW_TAG_structure_type", "DW_TAG_union_type"):
            continue
        if "DW_AT_declaration" in d.attrs:
            continue
        if "DW_AT_decl_file" not in d.attrs:
            # a compiler's built-in (__va_list_tag): no source declares
            # it, and GCC cannot name it
            skipped["compiler built-in types"] += 1
            continue
        kw = "struct" if d.tag == "DW_TAG_structure_type" else "union"
        n = d.name()
        if n is not None:
            spelling = "%s %s" % (kw, n)
        elif d.off in typedef_of:
            spelling = typedef_of[d.off]
        else:
            skipped["anonymous types without a typedef name"] += 1
            continue
        ms = members(d)
        if spelling in seen:
            if seen[spelling] != ms:
                skipped["names with several definitions"] += 1
                result = [r for r in result if r[0] != spelling]
            continue
        seen[spelling] = ms
        result.append((spelling, ms))
    return result, skipped


# ------------------------------------------------------------------- probe

class Entry:
    __slots__ = ("kind", "type", "member", "line", "bf")

    def __init__(self, kind, typ, member):
        self.kind, self.type, self.member = kind, typ, member
        self.line = self.bf = None

    def label(self):
        if self.kind == "size":
            return "sizeof(%s)" % self.type
        return "%s.%s%s" % (self.type, self.member, " (bitfield)" if self.kind == "bf" else "")


def write_probe(path, source, entries):
    """The probe file; sets each entry's line (the same in every variant:
    only the #include line differs)."""
    lines = ['#include "%s"' % source,
             "/* randstruct-probe: offsetof/sizeof of the TU's types */",
             "static const unsigned long %s[] __attribute__((used, section(\".passport_probe\"))) = {" % OFF_SYM]
    offs = [e for e in entries if e.kind != "bf"]
    bfs = [e for e in entries if e.kind == "bf"]
    for e in offs:
        e.line = len(lines) + 1
        if e.kind == "size":
            lines.append("\tsizeof(%s)," % e.type)
        else:
            lines.append("\t__builtin_offsetof(%s, %s)," % (e.type, e.member))
    if not offs:
        lines.append("\t0,")
    lines.append("};")
    for i, e in enumerate(bfs):
        e.line, e.bf = len(lines) + 1, i
        lines.append("static const %s %s __attribute__((used, section(\".passport_probe\"))) = { .%s = -1 };"
                     % (e.type, BF_SYM % i, e.member))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return offs, bfs


_ERR = re.compile(r"^(.*?):(\d+):(?:\d+:)? (?:fatal )?error: (.*)$")


def run_variant(argv, cwd, probe, out):
    cmd = list(argv)
    if os.path.basename(cmd[0]).startswith("clang"):
        cmd.append("-ferror-limit=0")
    cmd += ["-c", "-o", out]
    cmd.append(probe)
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace")
    return p.returncode, p.stderr


def probe_errors(stderr, probe):
    """{line: message} of the errors in PROBE; and the other error lines."""
    mine, other = {}, []
    for line in stderr.splitlines():
        m = _ERR.match(line)
        if not m:
            continue
        if os.path.abspath(m.group(1)) == probe or os.path.basename(m.group(1)) == os.path.basename(probe):
            mine.setdefault(int(m.group(2)), m.group(3))
        else:
            other.append(line)
    return mine, other


def read_values(obj, offs, bfs):
    elf = kelf.Elf(obj)
    syms = {y.name: y for y in elf.symbols}

    def data(name):
        y = syms.get(name)
        if y is None or y.shndx == 0 or y.shndx >= kelf.SHN_LORESERVE:
            raise SetupError("%s: no defined symbol %s" % (obj, name))
        sec = elf.sections[y.shndx]
        for off, _, _, _ in kelf.relocations(elf, sec.index):
            if y.value <= off < y.value + y.size:
                raise SetupError("%s: %s has relocations" % (obj, name))
        b = elf.bytes_of(sec)
        return b[y.value:y.value + y.size]

    vals = {}
    raw = data(OFF_SYM)
    if offs:
        if len(raw) != 8 * len(offs):
            raise SetupError("%s: %s has %d bytes, expected %d" % (obj, OFF_SYM, len(raw), 8 * len(offs)))
        for i, e in enumerate(offs):
            vals[e] = int.from_bytes(raw[8 * i:8 * i + 8], "little")
    for e in bfs:
        b = int.from_bytes(data(BF_SYM % e.bf), "little")
        if b == 0:
            vals[e] = None
            continue
        lo = (b & -b).bit_length() - 1
        width = b.bit_length() - lo
        # (byte offset, bit offset in that byte, width); -1 sets every bit
        vals[e] = (lo // 8, lo % 8, width) if b >> lo == (1 << width) - 1 else ("bits", b)
    return vals


def fmt(v):
    if isinstance(v, tuple) and len(v) == 3:
        return "byte %d bit %d width %d" % v
    return str(v)


# ---------------------------------------------------------------------- TU

class TUResult:
    def __init__(self, src):
        self.src = src
        self.types = 0
        self.entries = collections.Counter()
        self.dropped = []         # (entry label, variant, reason)
        self.skipped = collections.Counter()
        self.mismatch = []        # (label, gcc, clang)
        self.compared = {}        # type -> entries compared
        self.randomized = set()   # types differing from the baseline
        self.rounds = 0
        self.error = None


def probe_tu(src, cfg, tmp):
    r = TUResult(src)
    try:
        _probe_tu(r, src, cfg, tmp)
    except SetupError as e:
        r.error = str(e)
    return r


def _probe_tu(r, src, cfg, tmp):
    g_argv, g_src = kbuild_command(cfg.gcc, src)
    c_argv, c_src = kbuild_command(cfg.clang, src)
    if not any(a.startswith("-fplugin=") and a.endswith("randomize_layout_plugin.so") for a in g_argv):
        raise SetupError("%s: the GCC kernel's command does not load randomize_layout_plugin.so "
                         "(stale object?)" % src)
    if clang_randstruct(c_argv) is None:
        raise SetupError("%s: the Clang kernel's command has neither -mllvm -passport-randstruct nor "
                         "%s (stale object?)" % (src, CLANG_SEED))
    base = src[:-2].replace("/", "_")
    # 2. the TU's types, from Clang's DWARF
    dwo = os.path.join(tmp, base + ".dwarf.o")
    p = subprocess.run(c_argv + ["-g", "-fno-eliminate-unused-debug-types", "-c", "-o", dwo, c_src],
                       cwd=cfg.clang, capture_output=True, text=True, errors="replace")
    if p.returncode != 0:
        raise SetupError("%s: the Clang command with -g failed:\n%s" % (src, p.stderr[-2000:]))
    dies, cus = read_dwarf(dwo, cfg.dwarfdump)
    os.unlink(dwo)
    types, r.skipped = types_of(dies, cus)
    r.types = len(types)
    entries = []
    for t, ms in types:
        entries.append(Entry("size", t, None))
        entries += [Entry(k, t, m) for m, k in ms]

    variants = [("gcc", cfg.gcc, g_argv, g_src), ("clang", cfg.clang, cfg.clang_argv(c_argv), c_src)]
    if cfg.baseline:
        variants.append(("baseline", cfg.clang, without_randstruct(c_argv), c_src))

    # 3. compile, dropping what a compiler rejects, until every variant
    # compiles. The first round builds the objects: a rejected entry stops
    # a compiler before code generation, so a failing round costs about a
    # -fsyntax-only pass, and one that succeeds (the usual case, the
    # built-in types being left out) is the last.
    for rnd in range(12):
        r.rounds = rnd + 1
        offs = bfs = None
        files = {}
        for name, cwd, argv, s in variants:
            probe = os.path.join(tmp, "%s.%s.probe.c" % (base, name))
            offs, bfs = write_probe(probe, s, entries)
            files[name] = probe
        by_line = {e.line: e for e in entries}
        jobs = [(name, cwd, argv, files[name], os.path.join(tmp, "%s.%s.o" % (base, name)))
                for name, cwd, argv, _ in variants]
        results = [(j[0], j[4]) + run_variant(j[2], j[1], j[3], j[4]) for j in jobs]
        drop, fatal = {}, []
        for name, obj, rc, err in results:
            if rc == 0:
                continue
            mine, other = probe_errors(err, files[name])
            hit = False
            for line, msg in mine.items():
                e = by_line.get(line)
                if e is not None:
                    drop.setdefault(e, (name, msg))
                    hit = True
            if not hit:
                fatal.append("%s (%s): %s" % (src, name, "\n".join(other[:10]) or err[-1500:]))
        if fatal:
            raise SetupError("probe does not compile, no entry to drop:\n" + "\n".join(fatal))
        if drop:
            for e, (name, msg) in drop.items():
                r.dropped.append((e.label(), name, msg))
            gone = {e.type for e in drop if e.kind == "size"}
            entries = [e for e in entries if e not in drop and e.type not in gone]
            continue
        break
    else:
        raise SetupError("%s: the probe still fails after %d rounds" % (src, r.rounds))

    # read and compare
    vals = {name: read_values(obj, offs, bfs) for name, obj, _, _ in results}
    for name, obj, _, _ in results:
        if not cfg.keep:
            os.unlink(obj)
    for e in offs + bfs:
        r.entries[e.kind] += 1
        r.compared[e.type] = r.compared.get(e.type, 0) + 1
        g, c = vals["gcc"][e], vals["clang"][e]
        if g != c:
            r.mismatch.append((e.label(), fmt(g), fmt(c)))
        if cfg.baseline and vals["baseline"][e] != c:
            r.randomized.add(e.type)


def dropped_summary(dropped):
    """Dropped entries grouped by type: a type whose sizeof was rejected is
    one item (the whole type), other entries one item each."""
    whole = {}
    for lab, v, msg in dropped:
        if lab.startswith("sizeof("):
            whole[lab[7:-1]] = (v, msg)
    counts = collections.Counter()
    items = []
    for lab, v, msg in dropped:
        if lab.startswith("sizeof("):
            continue
        t = lab.split(".", 1)[0]
        if t in whole:
            counts[t] += 1
        else:
            items.append("%s (%s: %s)" % (lab, v, msg))
    for t, (v, msg) in whole.items():
        items.insert(0, "%s, whole type, %d members (%s: %s)" % (t, counts[t], v, msg))
    return items


def config_differences(a, b):
    """CONFIG_ options that differ between two .configs, without those that
    name the toolchain or its hardening plugins/passes."""
    tool = re.compile(r"CONFIG_(CC_|GCC_|CLANG_|LLVM_|AS_|LD_|LLD_|HAVE_|TOOLS_|ARCH_|RUSTC_|PAHOLE_|"
                      r"RANDSTRUCT|STACKLEAK|KSTACK_ERASE|STRUCTLEAK|LATENT_ENTROPY|INIT_STACK_|GCC_PLUGIN|"
                      r"HAS_LTO_|FTRACE_MCOUNT_|BUILDTIME_)")
    ca, cb = kelf.read_config(a), kelf.read_config(b)
    return sorted(k for k in set(ca) | set(cb) if ca.get(k) != cb.get(k) and not tool.match(k))


# -------------------------------------------------------------------- main

class Config:
    pass


def report(ok, text):
    checks.report(ok, "randstruct-probe: " + text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 usage=__doc__.split("\n\n")[1].split("usage: ")[1])
    ap.add_argument("builds", nargs="*", metavar="GCC_BUILD_DIR CLANG_BUILD_DIR")
    ap.add_argument("--print-tus", action="store_true",
                    help="print the default translation units, one a line, and exit")
    ap.add_argument("--baseline-none", action="store_true",
                    help="also compile the Clang probe without randstruct and count the randomized types")
    ap.add_argument("--tu", nargs="+", action="extend", default=None,
                    help="translation units (paths relative to the source tree)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--clang-seed", help="failure demonstration: another seed file for the Clang side")
    ap.add_argument("--clang-no-randstruct", action="store_true",
                    help="failure demonstration: the Clang side without randstruct")
    ap.add_argument("--list", action="store_true", help="print every compared type and every dropped entry")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--dwarfdump")
    args = ap.parse_args()
    # "--tu a.c b.c GCC CLANG": the greedy --tu took the build dirs
    while args.tu and os.path.isdir(args.tu[-1]) and len(args.builds) < 2:
        args.builds.insert(0, args.tu.pop())
    if args.print_tus:
        print("\n".join(DEFAULT_TUS))
        return 0
    if len(args.builds) != 2:
        ap.error("expected GCC_BUILD_DIR and CLANG_BUILD_DIR")
    args.gcc_build, args.clang_build = args.builds

    def usage(msg):
        print("randstruct-probe: error: " + msg, file=sys.stderr)
        sys.exit(2)

    cfg = Config()
    cfg.gcc, cfg.clang = os.path.abspath(args.gcc_build), os.path.abspath(args.clang_build)
    cfg.baseline, cfg.keep = args.baseline_none, args.keep
    for d in (cfg.gcc, cfg.clang):
        if not os.path.isfile(os.path.join(d, ".config")):
            usage("%s is not a kernel build directory (no .config)" % d)
    cfg.dwarfdump = args.dwarfdump or next((t for t in ("llvm-dwarfdump-19", "llvm-dwarfdump-14",
                                                        "llvm-dwarfdump") if shutil.which(t)), None)
    if not cfg.dwarfdump:
        usage("no llvm-dwarfdump found (apt-get install llvm-19)")
    if args.clang_seed and args.clang_no_randstruct:
        usage("--clang-seed and --clang-no-randstruct exclude each other")
    seed_override = os.path.abspath(args.clang_seed) if args.clang_seed else None
    if seed_override and not os.path.isfile(seed_override):
        usage("%s: no such file" % seed_override)
    if args.clang_no_randstruct:
        cfg.clang_argv = without_randstruct
    elif seed_override:
        cfg.clang_argv = lambda a: with_seed(a, seed_override)
    else:
        cfg.clang_argv = lambda a: a

    # the TUs both kernels compiled
    tus, missing = [], []
    for t in args.tu or DEFAULT_TUS:
        t = os.path.normpath(t)
        if not t.endswith(".c"):
            usage("%s: not a .c file" % t)
        if kelf.cmd_file(cfg.gcc, t[:-2] + ".o") and kelf.cmd_file(cfg.clang, t[:-2] + ".o"):
            tus.append(t)
        else:
            missing.append(t)
    if missing:
        print("INFO: randstruct-probe: not built in both kernels, skipped: " + " ".join(missing))
    if not tus:
        usage("none of the translation units was built in both kernels")

    # the randstruct setup of both kernels
    try:
        g_argv, _ = kbuild_command(cfg.gcc, tus[0])
        c_argv, _ = kbuild_command(cfg.clang, tus[0])
    except SetupError as e:
        usage(str(e))
    if not any(a.endswith("randomize_layout_plugin.so") for a in g_argv if a.startswith("-fplugin=")):
        usage("%s: the GCC command of %s does not load randomize_layout_plugin.so" % (cfg.gcc, tus[0]))
    whose = clang_randstruct(c_argv)
    if whose is None:
        usage("%s: the Clang command of %s has neither -mllvm -passport-randstruct nor %s" % (
            cfg.clang, tus[0], CLANG_SEED))
    g_seed = gcc_plugin_seed(cfg.gcc)
    c_seed_file = seed_override or clang_seed_file(c_argv, cfg.clang)
    try:
        c_seed = open(c_seed_file).read().strip() if c_seed_file else None
    except OSError:
        c_seed = None
    if g_seed is None or c_seed is None:
        usage("seed not found (GCC: scripts/gcc-plugins/randomize_layout_seed.h %s; Clang: %s)" % (
            "ok" if g_seed else "missing", c_seed_file or "no seed file option"))
    g_mode = randstruct_mode(cfg.gcc)
    c_mode = [a.split("=", 1)[1] for a in c_argv if a.startswith("-passport-randstruct-mode=")]
    c_mode = c_mode[0] if c_mode else randstruct_mode(cfg.clang) if whose == "clang" else "full"
    if whose == "clang":
        print("INFO: randstruct-probe: the Clang kernel uses upstream Clang's built-in randstruct "
              "(%s), not passport's: its own algorithm, so its layouts are expected to differ "
              "from the GCC plugin's" % CLANG_SEED)
    if not args.clang_no_randstruct:
        report(g_seed == c_seed, "seed: GCC plugin (scripts/gcc-plugins/randomize_layout_seed.h) "
               "%s..., Clang %s %s..." % (
                   g_seed[:16], c_seed_file if seed_override else os.path.relpath(c_seed_file, cfg.clang),
                   c_seed[:16]))
    if args.clang_no_randstruct:
        print("INFO: randstruct-probe: the Clang side is compiled without randstruct "
              "(--clang-no-randstruct): this run must FAIL")
    else:
        report(g_mode == c_mode, "mode: GCC kernel RANDSTRUCT %s, Clang %s" % (
            g_mode, "-passport-randstruct-mode=" + c_mode if whose == "passport" else
            "kernel RANDSTRUCT %s (built-in)" % c_mode))

    diff = config_differences(cfg.gcc, cfg.clang)
    if diff:
        print("INFO: randstruct-probe: the kernels' .configs differ beyond the toolchain (a type whose "
              "members differ is laid out differently, or dropped): " + " ".join(diff))

    tmp = tempfile.mkdtemp(prefix="randstruct-probe.")
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            results = list(ex.map(lambda t: probe_tu(t, cfg, tmp), tus))
    finally:
        if args.keep:
            print("INFO: randstruct-probe: kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    setup_errors = [r for r in results if r.error]
    for r in setup_errors:
        print("randstruct-probe: error: " + r.error, file=sys.stderr)
    ok_results = [r for r in results if not r.error]

    all_types, all_random, mism = set(), set(), 0
    totals = collections.Counter()
    for r in ok_results:
        all_types |= set(r.compared)
        all_random |= r.randomized
        totals.update(r.entries)
        mism += len(r.mismatch)
        print("INFO: randstruct-probe: %s: %d types, %d offsets + %d sizes + %d bitfields compared%s, "
              "%d entries dropped, %d mismatches%s (%d compile rounds)" % (
                  r.src, len(r.compared), r.entries["off"], r.entries["size"], r.entries["bf"],
                  ", %d types randomized" % len(r.randomized) if cfg.baseline else "",
                  len(r.dropped), len(r.mismatch),
                  "" if not r.skipped else "; not probed: " + ", ".join(
                      "%d %s" % (n, k) for k, n in sorted(r.skipped.items())),
                  r.rounds))
        if r.dropped:
            items = dropped_summary(r.dropped)
            print("INFO: randstruct-probe: %s: dropped %d entries (%s): %s" % (
                r.src, len(r.dropped), "rejected by a compiler; not compared",
                "; ".join(items if args.list else items[:8]) +
                ("" if args.list or len(items) <= 8 else "; ... (%d more, --list)" % (len(items) - 8))))
        for lab, g, c in r.mismatch:
            print("FAIL-DETAIL: randstruct-probe: %s: %s: gcc %s clang %s" % (r.src, lab, g, c))
        if args.list:
            for t in sorted(r.compared):
                print("INFO: randstruct-probe: %s: %s: %d entries%s" % (
                    r.src, t, r.compared[t], " (randomized)" if t in r.randomized else ""))

    notable = []
    for n in NOTABLE:
        t = "struct " + n
        if t in all_types:
            notable.append(n + ("*" if t in all_random else ""))
    print("INFO: randstruct-probe: notable types compared%s: %s; not in these TUs: %s" % (
        " (* = randomized)" if cfg.baseline else "", " ".join(notable) or "-",
        " ".join(n for n in NOTABLE if "struct " + n not in all_types) or "-"))
    if setup_errors:
        print("FAIL: randstruct-probe: %d of %d TUs could not be probed (see stderr)" % (
            len(setup_errors), len(results)))
        return 2
    bad_types = {lab.split(".", 1)[0].replace("sizeof(", "").rstrip(")")
                 for r in ok_results for lab, _, _ in r.mismatch}
    report(mism == 0, "%d TUs, %d types (%d distinct), %d member offsets + %d sizes + %d bitfields "
           "compiled by GCC and Clang: %d mismatches%s" % (
               len(ok_results), sum(len(r.compared) for r in ok_results), len(all_types),
               totals["off"], totals["size"], totals["bf"], mism,
               " in %d distinct types" % len(bad_types) if mism else ""))
    if cfg.baseline:
        rnd = sorted(t for t in all_random)
        print("INFO: randstruct-probe: randomized (Clang layout differs from the no-randstruct "
              "baseline): %s" % ", ".join(rnd if args.list else rnd[:60] + (["..."] if len(rnd) > 60 else [])))
        report(len(rnd) > 0, "%d of %d distinct types are randomized (differ from the no-randstruct "
               "baseline): the comparison is not vacuous" % (len(rnd), len(all_types)))
    return checks.status()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SetupError as e:
        print("randstruct-probe: error: %s" % e, file=sys.stderr)
        sys.exit(2)
