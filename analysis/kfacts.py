# SPDX-License-Identifier: GPL-2.0
"""kfacts.py - the facts passport reads from a built kernel, each by one rule.

Every check and report that needs one of these facts imports it from here
(analysis/stackleak-coverage.py and instrumentation-detail.py, the boot
layer through them, bench/collect.py and thus ./passport compare's report,
scripts/real-config-report.py), so a boot test's PASS and a report's ✓ are
the same judgement.  Standard library only; ELF reading is kelf.py's.

  linked_objects(build)     the objects the linker put into BUILD/vmlinux:
                            every member of vmlinux.a, and each lib.a member
                            whose global symbols are all defined in vmlinux
                            (each object once: with MODULES=y Kbuild also
                            puts lib-y objects into vmlinux.a); with Clang
                            LTO (bitcode members) BUILD/vmlinux.o alone,
                            where LTO generated their code
  lto_origins(build)        with LTO, {function name: [member objects that
                            define it]}: what Func.src (the object whose
                            Kbuild command compiled a function) comes from
  object_functions(obj)     the functions of a relocatable object, aliases
                            folded into the alphabetically first name, with
                            their input section and calls to the tracker
  final frame               Func.frame: the .stack_sizes value (Clang's
                            -fstack-size-section) minus 8 bytes per
                            callee-saved register push in the prologue:
                            GCC's get_frame_size(), the figure stackleak's
                            threshold is compared with (passport-finalize
                            uses the same rule); None without .stack_sizes
  object_kind(build, obj)   how Kbuild compiled OBJ: asm, opted-out
                            (-passport-stackleak-disable, or Clang's
                            -fno-sanitize-coverage=stack-depth), no-pass
                            (no tracking flag) or pass
  stackleak_coverage(...)   THE "untracked large frame" rule: a function
                            whose final frame is at least the threshold,
                            that does not call the tracker, and that no
                            exclusion covers (stackleak-coverage.py's header
                            lists them) is untracked
  tracker_callers(vm)       {function: calls to the tracker} in a
                            linked image, by disassembly (one objdump pass
                            with latent_entropy_users: image_code_facts)
  latent_entropy_users(vm)  {function: section} of the functions whose code
                            references the latent_entropy variable: by its
                            symbol in objdump's comment or its absolute
                            address as an operand
  build_warnings(build)     the warning lines (compiler, objtool, linker,
                            modpost) of BUILD's from-scratch build log
                            (build-full.log), or of LOG; None without it
  image_functions(vm)       one name per function address of a linked image
                            (aliases folded into the first name) and an
                            address -> function index
  checker_verdicts(cfg)     what kernel-hardening-checker's rules for the
                            four features say about a .config, in its words
  bss_padding(vm)           the bytes at the end of .bss that no object
                            occupies: x86 vmlinux aligns .brk (right after
                            .bss) to 2 MiB, so `size`'s bss shrinks as text
                            and data grow, with no variable changing
"""

import collections
import os
import re
import shutil
import subprocess

import kelf

TRACKER = "stackleak_track_stack"
# The names a tracking call can have: passport's pass and the GCC plugin call
# stackleak_track_stack; Clang's own -fsanitize-coverage=stack-depth (series
# patch 0012, KSTACK_ERASE_SANCOV) calls its alias __sanitizer_cov_stack_depth.
TRACKERS = (TRACKER, "__sanitizer_cov_stack_depth")
# The flags of Kbuild commands that switch the tracking on or off per
# object, for either instrumentation.
TRACKING_FLAGS = ("-passport-stackleak", "-fsanitize-coverage=stack-depth")
OPT_OUT_FLAGS = ("-passport-stackleak-disable", "-fno-sanitize-coverage=stack-depth")
# Sections the stackleak pass (like the GCC plugin) leaves alone: code that
# runs before or outside the task stack, or must not be instrumented.
EXCLUDED_SECTIONS = {".init.text", ".devinit.text", ".cpuinit.text", ".meminit.text",
                     ".noinstr.text", ".entry.text", ".head.text"}


# ---- objects -----------------------------------------------------------------

def is_bitcode(path):
    """Whether PATH is LLVM bitcode (a Clang LTO object), raw or wrapped."""
    with open(path, "rb") as f:
        return f.read(4) in (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")


def linked_objects(build, vm=None):
    """Objects of BUILD/vmlinux in link order, and vmlinux (a kelf.Elf).
    With LTO: [BUILD/vmlinux.o], the one ELF object with all their code
    (Kbuild links vmlinux.a and the lib.a archives into it)."""
    objs = kelf.archive_members(os.path.join(build, "vmlinux.a"))
    vm = vm or kelf.Elf(os.path.join(build, "vmlinux"))
    if any(is_bitcode(m) for m in objs):
        return [os.path.join(build, "vmlinux.o")], vm
    defined = {y.name for y in vm.symbols if y.bind != kelf.STB_LOCAL and y.shndx != 0}
    libs = sorted(os.path.join(top, "lib.a") for top, _, files in os.walk(build)
                  if "lib.a" in files and "/source" not in top)
    seen = {os.path.realpath(m) for m in objs}
    for lib in libs:
        for m in kelf.archive_members(lib):
            if os.path.realpath(m) in seen:
                continue
            g = [y.name for y in kelf.Elf(m).symbols if y.bind == 1 and y.shndx != 0]
            if g and all(n in defined for n in g):
                objs.append(m)
                seen.add(os.path.realpath(m))
    return objs, vm


class Func:
    """A function of a relocatable object.  src: the object Kbuild compiled
    it in (obj, except in an LTO build's vmlinux.o: lto_origins)."""
    __slots__ = ("name", "obj", "src", "section", "local", "start", "end", "stack_size",
                 "pushes", "calls", "shndx")

    @property
    def frame(self):
        return None if self.stack_size is None else self.stack_size - 8 * self.pushes


def object_functions(path):
    """The functions of relocatable object PATH: one Func per piece of code,
    with its final frame and its calls to the tracker (from relocations)."""
    e = kelf.Elf(path)
    sizes = kelf.object_stack_sizes(e)
    funcs, by_sec = [], collections.defaultdict(list)
    for y in e.functions():
        sec = e.sections[y.shndx]
        if not sec.flags & kelf.SHF_EXECINSTR:
            continue
        f = Func()
        f.name, f.obj, f.src, f.section, f.shndx = y.name, path, path, sec.name, y.shndx
        f.local = y.bind == kelf.STB_LOCAL
        f.start, f.end = y.value, y.value + y.size
        f.stack_size = sizes.get((y.shndx, y.value))
        f.pushes = kelf.prologue_pushes(e.bytes_of(sec)[f.start:f.end])
        f.calls = 0
        funcs.append(f)
        by_sec[y.shndx].append(f)
    for f, n in _direct_calls(e, by_sec, TRACKERS).items():
        f.calls = n
    first = {}
    for f in sorted(funcs, key=lambda f: f.name):
        first.setdefault((f.shndx, f.start), f)
    return list(first.values())


def _direct_calls(e, by_sec, callees):
    """{Func: its number of call rel32 to one of CALLEES} (from relocations)."""
    n = collections.Counter()
    for shndx, fs in by_sec.items():
        code = e.bytes_of(e.sections[shndx])
        for off, typ, sym, _ in kelf.relocations(e, shndx):
            if sym.name not in callees or typ not in (kelf.R_X86_64_PC32, kelf.R_X86_64_PLT32):
                continue
            if off < 1 or code[off - 1] != 0xe8:  # a call rel32, not a reference
                continue
            for f in fs:  # every alias covering the call names the same code
                if f.start <= off - 1 < f.end:
                    n[f] += 1
    return n


def object_calls(path, callees):
    """{function name: number of direct calls to one of CALLEES} of
    relocatable object PATH (functions without such a call are left out)."""
    e, by_sec = kelf.Elf(path), collections.defaultdict(list)
    for f in object_functions(path):
        by_sec[f.shndx].append(f)
    return {f.name: k for f, k in _direct_calls(e, by_sec, set(callees)).items()}


def object_kind(build, obj):
    """asm, opted-out, no-pass or pass: what the Kbuild command of OBJ says
    about the stackleak pass ("pass" when there is no build to ask, and for
    an LTO build's vmlinux.o, the one object linked_objects() names then,
    whose functions are judged by Func.src)."""
    if not build or os.path.basename(obj) == "vmlinux.o":
        return "pass"
    toks = kelf.cmd_file(build, os.path.relpath(obj, build)).split()
    if "-D__ASSEMBLY__" in toks:
        return "asm"
    if any(t in toks for t in OPT_OUT_FLAGS):
        return "opted-out"
    if not any(t in toks for t in TRACKING_FLAGS):
        return "no-pass"
    return "pass"


# ThinLTO renames a local function it promotes (NAME.llvm.HASH); full LTO
# a local one that clashes (NAME.lto_priv.N).
_LTO_SUFFIX = re.compile(r"\.(llvm|lto_priv)\.\d+$")


def _llvm_nm(build):
    """The llvm-nm of BUILD's Clang (llvm-nm-N for CONFIG_CLANG_VERSION)."""
    v = kelf.read_config(build).get("CONFIG_CLANG_VERSION")
    named = "llvm-nm-%d" % (int(v) // 10000) if v else None
    return named if named and shutil.which(named) else "llvm-nm"


def lto_origins(build):
    """{function name: [objects defining it]} over every member of
    BUILD's vmlinux.a and lib.a archives, bitcode (llvm-nm) and ELF."""
    members = kelf.archive_members(os.path.join(build, "vmlinux.a"))
    for top, _, files in os.walk(build):
        if "lib.a" in files and "/source" not in top:
            members += kelf.archive_members(os.path.join(top, "lib.a"))
    members = list(dict.fromkeys(os.path.normpath(m) for m in members))
    origins = collections.defaultdict(list)
    bitcode = [m for m in members if is_bitcode(m)]
    for m in members:
        if m not in bitcode:
            for y in kelf.Elf(m).functions():
                if y.shndx:
                    origins[y.name].append(m)
    for i in range(0, len(bitcode), 200):
        out = subprocess.run([_llvm_nm(build), "--defined-only", "-P", "-A"] + bitcode[i:i + 200],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            head, _, rest = line.rpartition(": ")
            parts = rest.split()
            if len(parts) >= 2 and parts[1] in "TtWw":
                origins[parts[0]].append(head)
    return origins


def attribute_lto_functions(build, funcs):
    """Set Func.src of the functions of an LTO build's vmlinux.o to the one
    member object that defines the name (left as vmlinux.o when none or
    several do)."""
    origins = lto_origins(build)
    for f in funcs:
        objs = set(origins.get(_LTO_SUFFIX.sub("", f.name), ()))
        if len(objs) == 1:
            f.src = objs.pop()


# ---- the stackleak coverage rule -------------------------------------------

_CALL = re.compile(r"\s(call|jmp)\w*\s+(.*)$")


def makes_calls(f):
    """What F's machine code calls or tail-jumps to, or None (a leaf)."""
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


def dependency_text(build, obj):
    """The text that lists OBJ's source and headers: Kbuild's .o.cmd in a
    build, else the compiler's -MD file next to a loose object ('')."""
    if build:
        d, b = os.path.split(os.path.relpath(obj, build))
        path = os.path.join(build, d, "." + b + ".cmd")
    else:
        path = os.path.splitext(obj)[0] + ".d"
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def declared_inline(build, f):
    """Where static function F is declared inline ("file:line"), from its
    object's source and the headers its dependency list names, or None."""
    text = dependency_text(build, f.src)
    base = build or os.getcwd()
    files = re.findall(r"(/\S+\.[ch])\b", text) + re.findall(r"\s(\S+\.[ch])\s", text)
    pat = re.compile(r"\b" + re.escape(f.name) + r"\s*\(")
    for path in dict.fromkeys(files):
        p = path if os.path.isabs(path) else os.path.join(base, path)
        try:
            src = open(p, errors="replace").read()
        except OSError:
            continue
        for m in pat.finditer(src):
            head = re.split(r"[;{}#]", src[max(0, m.start() - 300):m.start()])[-1]
            if re.search(r"\binline\b|__always_inline\b", head) and "static" in head:
                where = path if os.path.isabs(path) else os.path.relpath(p, base)
                return "%s:%d" % (where, src.count("\n", 0, m.start()) + 1)
    return None


class Coverage:
    """The result of stackleak_coverage().

    funcs      every Func of the objects       tracked    those calling the tracker
    kinds      {obj: object_kind}              large      final frame >= tms
    excluded   {why: [Func]} of large untracked functions an exclusion covers
    untracked  [(Func, what it calls or None)]: the rule's offenders
    noframe    functions without a .stack_sizes entry (assembly)"""

    def __init__(self, objs, build, tms):
        self.objs, self.build, self.tms = objs, build, tms
        self.funcs, self.kinds = [], {}
        for o in objs:
            self.kinds[o] = object_kind(build, o)
            self.funcs += object_functions(o)
        if build and objs == [os.path.join(build, "vmlinux.o")]:  # LTO
            attribute_lto_functions(build, self.funcs)
            for f in self.funcs:
                if f.src not in self.kinds:
                    self.kinds[f.src] = object_kind(build, f.src)
        self.tracked = [f for f in self.funcs if f.calls]
        self.noframe = [f for f in self.funcs if f.stack_size is None]
        self.large = [f for f in self.funcs if f.frame is not None and tms is not None and f.frame >= tms]
        self.excluded = collections.defaultdict(list)
        self.untracked = []
        for f in self.large:
            if f.calls:
                continue
            why, call = self.exclusion(f)
            if why:
                self.excluded[why].append(f)
            else:
                self.untracked.append((f, call))

    def exclusion(self, f):
        """(why F needs no tracking call or None, what F calls or None)."""
        kind = self.kinds[f.src]
        if f.name in TRACKERS:
            return "tracker", None
        if f.section in EXCLUDED_SECTIONS:
            return "section " + f.section, None
        if kind in ("opted-out", "no-pass"):
            return kind + " " + os.path.relpath(f.src, self.build), None
        call = makes_calls(f)
        if call:
            return None, call
        # GCC's leaf rules: it skips leaves that are _paravirt_* or static inline
        if f.name.startswith("_paravirt_"):
            return "leaf _paravirt_*", None
        where = f.local and declared_inline(self.build, f)
        if where:
            return "leaf static inline (%s)" % where, None
        return None, None


def stackleak_coverage(objs, tms, build=None):
    """The coverage of objects OBJS (linked_objects(build), or loose objects
    with build=None) at threshold TMS (None: frames only, no judgement)."""
    return Coverage(objs, build, tms)


# Stack erasing in a .config: Linux 6.17's names (the series takes them), then
# the names of 6.1 and of the series before it (older build directories, the
# unpatched tree).
STACKLEAK_ON = ("CONFIG_KSTACK_ERASE", "CONFIG_GCC_PLUGIN_STACKLEAK", "CONFIG_LLVM_PASS_STACKLEAK",
                "CONFIG_STACKLEAK")
TRACK_MIN_SIZE = ("CONFIG_KSTACK_ERASE_TRACK_MIN_SIZE", "CONFIG_STACKLEAK_TRACK_MIN_SIZE")


def stackleak_enabled(cfg):
    """Whether the .config CFG (a dict) builds stack erasing in."""
    return any(cfg.get(k) == "y" for k in STACKLEAK_ON)


def config_track_min_size(cfg):
    """The stackleak threshold the .config CFG sets, or None."""
    v = next((cfg[k] for k in TRACK_MIN_SIZE if cfg.get(k)), None)
    return int(v) if v else None


def track_min_size(build):
    """The stackleak threshold of BUILD (KSTACK_ERASE_TRACK_MIN_SIZE, or 6.1's
    STACKLEAK_TRACK_MIN_SIZE), or None."""
    return config_track_min_size(kelf.read_config(build))


# ---- kernel-hardening-checker's rules ------------------------------------------
# What a13xp0p0v/kernel-hardening-checker (its checks.py at commit 0b9aebf)
# says about the four features for an x86-64 .config, evaluated here the way
# its engine does (it is not a Debian package, so the report cannot run it):
# a rule checks one symbol against "y" or "is not set", or combines rules.
# An OR is OK when one member is; an AND checks its members from the last to
# the first and fails with the first that fails; the first member of either
# names it.  The result strings are the checker's, so a reader can match them
# with its output.

def _sym(name, want):
    return ("sym", "CONFIG_" + name, want)


def _any(*members):
    return ("or",) + members


def _all(*members):
    return ("and",) + members


_STACK_ERASING = _any(_sym("KSTACK_ERASE", "y"), _sym("GCC_PLUGIN_STACKLEAK", "y"))
CHECKER_RULES = (
    ("stackleak", _STACK_ERASING),
    ("stackleak", _all(_sym("KSTACK_ERASE_METRICS", kelf.NOT_SET), _sym("STACKLEAK_METRICS", kelf.NOT_SET),
                       _STACK_ERASING)),
    ("stackleak", _all(_sym("KSTACK_ERASE_RUNTIME_DISABLE", kelf.NOT_SET),
                       _sym("STACKLEAK_RUNTIME_DISABLE", kelf.NOT_SET), _STACK_ERASING)),
    ("structleak", _any(_sym("INIT_STACK_ALL_ZERO", "y"),
                        _all(_sym("GCC_PLUGIN_STRUCTLEAK", "y"), _sym("GCC_PLUGIN_STRUCTLEAK_BYREF_ALL", "y")))),
    ("latent_entropy", _all(_sym("GCC_PLUGIN_LATENT_ENTROPY", "y"), _sym("CC_IS_GCC", "y"))),
    ("randstruct", _any(_sym("RANDSTRUCT_FULL", "y"), _sym("GCC_PLUGIN_RANDSTRUCT", "y"))),
)


def _head(rule):
    """The symbol check that names RULE: its first member's, all the way down."""
    return rule if rule[0] == "sym" else _head(rule[1])


def _judge(rule, cfg):
    kind = rule[0]
    if kind == "sym":
        state = cfg.get(rule[1])
        if state == rule[2]:
            return "OK"
        if state is None:
            return "OK: is not found" if rule[2] == kelf.NOT_SET else "FAIL: is not found"
        return 'FAIL: "%s"' % state
    members = rule[1:]
    if kind == "or":
        for i, m in enumerate(members):
            r = _judge(m, cfg)
            if r.startswith("OK"):
                if i == 0:
                    return r
                _, name, want = _head(m)
                return 'OK: %s is "%s"' % (name, want) if r == "OK" else "OK: %s is not found" % name
        return _judge(members[0], cfg)
    for i in range(len(members) - 1, 0, -1):
        r = _judge(members[i], cfg)
        if not r.startswith("OK"):
            _, name, want = _head(members[i])
            return 'FAIL: %s is not "%s"' % (name, want)
    return _judge(members[0], cfg)


def checker_verdicts(cfg):
    """[(feature, symbol, wanted, result)] for the .config CFG, read with
    kelf.parse_config(path, not_set=True): kernel-hardening-checker's rules
    for the four features and its result string for each."""
    return [(feature, _head(rule)[1], _head(rule)[2], _judge(rule, cfg)) for feature, rule in CHECKER_RULES]


# ---- linked images -----------------------------------------------------------

WARNING = re.compile(r"(^|[ :])warning:", re.I)  # tests/boot/run.sh's build_warnings() too


def build_warnings(build, log="build-full.log"):
    """The warning lines of a build's log, newline stripped; None if absent."""
    path = os.path.join(build, log)
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        return [line.rstrip("\n") for line in f if WARNING.search(line)]


def image_functions(vm):
    """({address: first name}, kelf.FunctionIndex) of linked image VM."""
    funcs = vm.functions()
    first = {}
    for y in sorted(funcs, key=lambda y: y.name):
        first.setdefault(y.value, y.name)
    return first, kelf.FunctionIndex(funcs)


_INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")


def image_code_facts(vm):
    """(tracker calls, latent_entropy users) of linked image VM, from one
    `objdump -d` pass (a defconfig vmlinux takes about a minute to
    disassemble), kept on VM for the next caller."""
    cached = getattr(vm, "_passport_code_facts", None)
    if cached is not None:
        return cached
    first, index = image_functions(vm)
    sym = next((y for y in vm.symbols if y.name == "latent_entropy" and y.shndx), None)
    absolute = "0x%x" % sym.value if sym else None
    calls, users = collections.Counter(), {}
    proc = subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", "-w", vm.path],
                            stdout=subprocess.PIPE, text=True, errors="replace",
                            env=dict(os.environ, LC_ALL="C"))
    for line in proc.stdout:
        tracker = any("<" + t + ">" in line for t in TRACKERS)
        latent = absolute and ("<latent_entropy>" in line or "<latent_entropy+" in line
                               or absolute in line)
        if not tracker and not latent:
            continue
        m = _INSN.match(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        y = index.at(addr)
        if tracker and m.group(2).startswith("call"):
            calls[first[y.value] if y else hex(addr)] += 1
        if latent and y:
            users[first[y.value]] = vm.section_at(y.value).name
    if proc.wait() != 0:
        raise RuntimeError("objdump failed on %s" % vm.path)
    vm._passport_code_facts = (calls, users)
    return vm._passport_code_facts


def tracker_callers(vm):
    """collections.Counter {function: calls to the tracker} of linked image VM;
    a call outside any function symbol counts under its hex address."""
    return image_code_facts(vm)[0]


def bss_padding(vm):
    """Bytes between .bss's last object and its end (0 without .bss)."""
    bss = vm.section(".bss")
    if bss is None:
        return 0
    end = max((y.value + y.size for y in vm.symbols
               if y.shndx == bss.index and y.size), default=bss.addr)
    return bss.addr + bss.size - end


def latent_entropy_users(vm):
    """{function: output section} of the functions of linked image VM whose
    code references the latent_entropy variable ({} without the symbol)."""
    return image_code_facts(vm)[1]
