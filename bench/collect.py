#!/usr/bin/env python3
"""collect.py: raw measurements for ./passport compare that are not boots.

usage:
  bench/collect.py static BUILD_DIR|ELF OUT.tsv [--objects OBJ...]
                          [--track-min-size N]
      One line per function of a kernel (BUILD_DIR: its vmlinux, frames
      from the objects linked into it) or of any x86-64 ELF (frames from
      the relocatable OBJs it was linked from, if given): name, output
      section, size in bytes, whether it calls stackleak_track_stack,
      whether it references latent_entropy, its final frame (.stack_sizes
      minus callee-saved pushes; -1 where unknown: no .stack_sizes, e.g. a
      GCC kernel), how many registers its prologue pushes, whether its
      straight-line head (before the first jump, call or return) has a
      5-byte `nopl 0x0(%rax,%rax,1)` (what passport-finalize leaves where it
      removed a tracking call; a GCC kernel, whose plugin deletes the call,
      shows how often such a NOP is there for other reasons), and whether
      it is an untracked large frame. Every fact but the NOP is
      analysis/kfacts.py's rule, the one the boot layer's
      stackleak-coverage.py judges by; the threshold is the kernel's
      CONFIG_KSTACK_ERASE_TRACK_MIN_SIZE (6.1: CONFIG_STACKLEAK_TRACK_MIN_SIZE)
      or N (none: nothing is untracked).
      Also writes OUT.tsv.size with the `size` line (text data bss).

  bench/collect.py buildcost --dir KBUILD_DIR --feature F [--objects N]
                   [--reps R] [--jobs J] [--cpu-only] [--out OUT.tsv]
      The compile-time cost of one feature's plugin, measured on a kernel's
      own compile commands (the `cmd_...` line of each .o.cmd): N objects
      (default 8) spread evenly over the sorted list of the build's C
      objects that carry the feature's flags, each compiled as recorded
      ("with"), with the feature's plugin flags removed ("without") and
      the same as without again ("control": an A/A comparison, whose
      difference from "without" is the measurement's own noise).
      ccache is taken out of the command; output goes to a temporary
      directory (the build directory is only read). For passport's
      stackleak the post-codegen step (passport-finalize) belongs to
      "with". A GCC plugin's -D<NAME>_PLUGIN macro goes with it (the source
      must not use the plugin's attributes without the plugin), and so do
      passport's -DLATENT_ENTROPY_PLUGIN, -DSTRUCTLEAK_LLVM_PASS and
      -DRANDSTRUCT.

      Two measures of each variant:
      - instructions (the primary one): each variant once under
        `valgrind --tool=cachegrind --cache-sim=no --trace-children=yes`,
        the sum of the "I refs" of every process the command runs. Clang:
        the driver (cc1 runs inside it, and so does its integrated
        assembler) and, for passport's stackleak, passport-finalize. GCC:
        the gcc driver, cc1 (with the plugin) and `as`. The assembler
        counts: it is part of the compile command the build runs, Clang's
        is inside its one process, and what a plugin adds to the code is
        also assembled; leaving `as` out would measure GCC by less than
        Clang. Instruction counts do not depend on host load, so one run
        per variant suffices, and J of them (--jobs, default 1) run at
        once. They do move a little with the compiler's memory layout
        (two runs of one command differed by ~1e-5 here, a longer output
        path by ~1e-4): the control writes into a directory with a longer
        name, so that its difference from without shows that noise.
        Needs valgrind (Debian package valgrind); --cpu-only skips this
        measure.
      - CPU time (secondary): R times each (--reps, default 3; 0 with
        instructions only), taking turns so that load changes on the host
        hit all three alike, one at a time; user + sys of the command's
        processes from wait4(), which a busy host disturbs less than wall
        time, but still by up to +-20 % per object.
      Features:
        gcc-stackleak        -fplugin=...stackleak_plugin.so and its args
        gcc-latent-entropy   the latent_entropy plugin
        gcc-structleak       the structleak plugin
        gcc-randstruct       the randomize_layout plugin
        gcc-all              every -fplugin (the GCC plugins together)
        passport             every passport flag (the LLVM plugin and all its
                             features) and the passport-finalize step
        passport-stackleak   stackleak's -mllvm options, -fstack-size-section
                             and passport-finalize (the plugin stays loaded)
        passport-structleak, passport-latent-entropy, passport-randstruct
                             that feature's -mllvm options
      OUT.tsv, tab-separated, one measurement a line after a header line
      (`# object variant rep cpu_s instructions processes (feature F, ...)`):
        OBJECT VARIANT REP CPU_S -    -           a CPU-time run, REP 0..R-1
        OBJECT VARIANT -   -     INSN PROG=N,...  the instruction count, and
                                                  its split by program
      VARIANT is with, without or control. Files written before instruction
      counts have four columns (object, variant, rep, cpu seconds): CPU
      time only; bench/report_read.py reads both.

Standard library only.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile


# ---- static ---------------------------------------------------------------

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
import kelf  # noqa: E402
import kfacts  # noqa: E402

FUNC_RE = re.compile(r"^([0-9a-f]+) <(.+)>:$")


def head_nop_starts(elf):
    """Start addresses of the functions of ELF whose straight-line head (up
    to the first jump, call or return, at most 16 instructions) has the
    5-byte NOP passport-finalize writes over a removed tracking call."""
    objdump = subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", elf], stdout=subprocess.PIPE,
                               text=True, errors="replace", env=dict(os.environ, LC_ALL="C"))
    starts, start, insns, head = set(), None, 0, False
    for line in objdump.stdout:
        m = FUNC_RE.match(line)
        if m:
            start, insns, head = int(m.group(1), 16), 0, True
            continue
        if not head or "\t" not in line:
            continue
        insn = line.split("\t")[-1].strip()
        insns += 1
        if insn.startswith("nopl") and insn.endswith("0x0(%rax,%rax,1)"):
            starts.add(start)
            head = False
        elif insn.startswith(("j", "call", "ret")) or insns > 16:
            head = False
    if objdump.wait() != 0:
        sys.exit("collect: objdump -d %s failed" % elf)
    return starts


def object_frames(objs, build, tms):
    """({name: largest final frame}, {names of untracked large frames}) of
    the objects, by kfacts' coverage rule."""
    cov = kfacts.stackleak_coverage(objs, tms, build)
    frames = {}
    for f in cov.funcs:
        if f.frame is not None:
            frames[f.name] = max(f.frame, frames.get(f.name, f.frame))
    return frames, {f.name for f, _ in cov.untracked}


def cmd_static(target, out, objects=None, tms=None):
    if os.path.isdir(target):
        build, elf = target, os.path.join(target, "vmlinux")
        objects, vm = kfacts.linked_objects(build)
        cfg = kelf.read_config(build)
        if tms is None and kfacts.stackleak_enabled(cfg):
            tms = kfacts.track_min_size(build)
    else:
        build, elf, vm = None, target, kelf.Elf(target)
    frames, untracked = object_frames(objects or [], build, tms)
    names, _ = kfacts.image_functions(vm)
    tracked = kfacts.tracker_callers(vm)
    latent = kfacts.latent_entropy_users(vm)
    nops = head_nop_starts(elf)
    sizes = {}
    for y in vm.functions():
        sizes[y.value] = max(y.size, sizes.get(y.value, 0))
    with open(out + ".tmp", "w") as f:
        f.write("# name\tsection\tbytes\ttracked\tlatent\tframe\tpushes\tnop_entry\tuntracked"
                "\t(threshold %s)\n" % tms)
        for addr, name in sorted(names.items()):
            sec = vm.section_at(addr)
            if sec is None or not sec.flags & kelf.SHF_EXECINSTR:
                continue
            f.write("%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n" % (
                name, sec.name, sizes[addr], name in tracked, name in latent, frames.get(name, -1),
                kelf.prologue_pushes(vm.read_at(addr, min(sizes[addr], 64))), addr in nops,
                name in untracked))
    os.replace(out + ".tmp", out)
    size = subprocess.run(["size", elf], capture_output=True, text=True, check=True).stdout
    with open(out + ".size", "w") as f:
        f.write(size.splitlines()[-1] + "\n")


# ---- buildcost ------------------------------------------------------------

def feature_filter(feature):
    """A function from argv to (argv without the feature's flags)."""
    # The macro Kbuild defines next to each GCC plugin: without the plugin
    # the source must not use its attributes (e.g. __latent_entropy).
    defines = {"stackleak": "-DSTACKLEAK_PLUGIN", "latent_entropy": "-DLATENT_ENTROPY_PLUGIN",
               "structleak": "-DSTRUCTLEAK_PLUGIN", "randomize_layout": "-DRANDSTRUCT"}

    def gcc_plugin(names):
        drop_defs = set(defines.values()) if names is None else {defines[n] for n in names if n in defines}

        def drop(args):
            res = []
            for a in args:
                if a in drop_defs:
                    continue
                if a.startswith("-fplugin="):
                    base = os.path.basename(a.split("=", 1)[1])
                    if names is None or any(base.startswith(n + "_plugin") or base.startswith(n) for n in names):
                        continue
                if a.startswith("-fplugin-arg-"):
                    plugin = a[len("-fplugin-arg-"):].split("-", 1)[0]
                    if names is None or any(plugin.startswith(n) for n in names):
                        continue
                res.append(a)
            return res
        return drop

    # The macros passport's Kbuild flags define next to the -mllvm options.
    passport_defines = {"latent-entropy": "-DLATENT_ENTROPY_PLUGIN", "structleak": "-DSTRUCTLEAK_LLVM_PASS",
                        "randstruct": "-DRANDSTRUCT"}

    def passport(args):
        res, skip = [], False
        for a in args:
            if skip:
                skip = False
                continue
            if a in passport_defines.values():
                continue
            if a == "-mllvm":
                skip = True
                continue
            if "passport" in a and (a.startswith("-fplugin=") or a.startswith("-fpass-plugin=")):
                continue
            if a == "-fstack-size-section":
                continue
            res.append(a)
        return res

    def passport_feature(name):
        """Drop one passport feature's -mllvm options (the plugin stays
        loaded for the others); stackleak also takes -fstack-size-section."""
        def drop(args):
            res, i = [], 0
            while i < len(args):
                a = args[i]
                if a == "-mllvm" and i + 1 < len(args) and args[i + 1].startswith("-passport-" + name):
                    i += 2
                    continue
                if (a == "-fstack-size-section" and name == "stackleak") or a == passport_defines.get(name):
                    i += 1
                    continue
                res.append(a)
                i += 1
            return res
        return drop

    table = {
        "passport-stackleak": passport_feature("stackleak"),
        "passport-structleak": passport_feature("structleak"),
        "passport-latent-entropy": passport_feature("latent-entropy"),
        "passport-randstruct": passport_feature("randstruct"),
        "gcc-stackleak": gcc_plugin(["stackleak"]),
        "gcc-latent-entropy": gcc_plugin(["latent_entropy"]),
        "gcc-structleak": gcc_plugin(["structleak"]),
        "gcc-randstruct": gcc_plugin(["randomize_layout"]),
        "gcc-all": gcc_plugin(None),
        "passport": passport,
    }
    if feature not in table:
        sys.exit("collect: unknown --feature %s (%s)" % (feature, ", ".join(sorted(table))))
    return table[feature]


def compile_commands(kdir):
    """(object, compile argv, post-step argv or None) for every C object."""
    res = []
    for root, _, files in os.walk(kdir):
        for name in files:
            if not (name.startswith(".") and name.endswith(".o.cmd")):
                continue
            with open(os.path.join(root, name), errors="replace") as f:
                first = f.readline()
            m = re.match(r"(?:saved)?cmd_(\S+\.o) := (.*)$", first.rstrip("\n"))
            if not m or " -c " not in m.group(2) or not re.search(r"\S+\.c(\s|$)", m.group(2)):
                continue
            steps = [s.strip() for s in m.group(2).split(" ; ")]
            try:
                argv = shlex.split(steps[0])
            except ValueError:
                continue
            post = None
            for s in steps[1:]:
                if "passport-finalize" in s:
                    post = shlex.split(s)
            if argv and argv[0] == "ccache":
                argv = argv[1:]
            res.append((m.group(1), argv, post))
    res.sort()
    return res


def redirect(argv, post, tmp):
    """The command writing its object and dependency file into tmp."""
    out = os.path.join(tmp, "x.o")
    res, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a == "-o":
            res += ["-o", out]
            i += 2
            continue
        if a.startswith("-Wp,-MMD,") or a.startswith("-Wp,-MD,"):
            a = "-Wp,-MMD," + os.path.join(tmp, "x.d")
        res.append(a)
        i += 1
    newpost = None
    if post:
        newpost = [p for p in post if not p.endswith(".o")] + [out]
    return res, newpost


def cpu_seconds(argv, post, cwd):
    """CPU time of the compile (and the post-step); None if it failed."""
    total = 0.0
    for cmd in (argv, post):
        if not cmd:
            continue
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = 0
        if status != 0:
            return None
        total += ru.ru_utime + ru.ru_stime
    return total


# cachegrind without its cache simulation only counts instructions; its
# per-process output file is not needed (the summary is in the log).
CACHEGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
              "--trace-children=yes"]
# "I   refs:" up to valgrind 3.20, "I refs:" later; thousands separators.
IREFS_RE = re.compile(r"^==\d+== I\s+refs:\s+([0-9,]+)\s*$")
COMMAND_RE = re.compile(r"^==\d+== Command: (\S+)")
PARENT_RE = re.compile(r"^==\d+== Parent PID: (\d+)")


def valgrind_version():
    """valgrind's version line, or exit naming the package to install."""
    try:
        return subprocess.run(["valgrind", "--version"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        sys.exit("collect: buildcost: valgrind not found: install the valgrind package "
                 "(or pass --cpu-only for CPU time alone)")


def log_instructions(path):
    """(program, I refs, parent PID or None) of one process's cachegrind log."""
    program = refs = parent = None
    with open(path, errors="replace") as f:
        for line in f:
            m = COMMAND_RE.match(line)
            if m and program is None:
                program = os.path.basename(m.group(1))
            m = PARENT_RE.match(line)
            if m and parent is None:
                parent = int(m.group(1))
            m = IREFS_RE.match(line)
            if m:
                refs = int(m.group(1).replace(",", ""))
    if program is None or refs is None:
        # a process that did not finish (or a log format this does not
        # know): a silent undercount would pass for a cheaper compile
        sys.exit("collect: buildcost: no instruction count in the cachegrind log %s" % path)
    return program, refs, parent


def processes_in_start_order(logdir):
    """[(program, I refs)] of the cachegrind logs of one command, parents
    before their children and siblings in the order they ran. Not by PID:
    after the PID counter wraps, an assembler can get a smaller PID than
    its driver. A driver runs its children one after another, so the order
    in which their logs were last written (at exit) is the order in which
    they started."""
    procs = {}
    for name in os.listdir(logdir):
        path = os.path.join(logdir, name)
        program, refs, parent = log_instructions(path)
        procs[int(name.rpartition(".")[2])] = (program, refs, parent, os.stat(path).st_mtime_ns)
    children = {}
    for pid, (_, _, parent, _) in procs.items():
        children.setdefault(parent if parent in procs else None, []).append(pid)
    order = []

    def visit(pids):
        for pid in sorted(pids, key=lambda p: (procs[p][3], p)):
            order.append(procs[pid][:2])
            visit(children.get(pid, []))
    visit(children.get(None, []))
    return order


def instructions(argv, post, cwd, logdir):
    """({program: instructions} over every process of the compile and the
    post-step, each process's own count), or (None, stderr) if it failed."""
    per = {}
    for step, cmd in enumerate((argv, post)):
        if not cmd:
            continue
        d = os.path.join(logdir, str(step))
        os.makedirs(d)
        r = subprocess.run(CACHEGRIND + ["--log-file=" + os.path.join(d, "vg.%p")] + cmd, cwd=cwd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
        if r.returncode != 0:
            return None, r.stderr
        # driver, compiler, assembler: the order in which they ran
        for program, refs in processes_in_start_order(d):
            per[program] = per.get(program, 0) + refs
    return per, ""


def variants(argv, post, feature, drop):
    """[(variant, compile argv, post-step argv or None)]: the recorded
    command, without the feature's flags, and that again."""
    without = drop(argv)
    if feature not in ("passport", "passport-stackleak"):
        post = None
    return [("with", argv, post), ("without", without, None), ("control", without, None)]


# A compiler's count moves a little with its memory layout (hash tables
# keyed by addresses, allocation sizes): with and without differ in their
# arguments, so their layouts differ too, and an exact repeat of without
# would hide that. The control writes into a directory with a longer name,
# one more such change of layout, so that the A/A shows its size.
CONTROL_PAD = "-control-" + "x" * 27


def count_instructions(sample, feature, drop, kdir, tmp, jobs):
    """{(object, variant): {program: instructions}}, one cachegrind run
    each, jobs at a time: counts do not depend on what else runs."""
    tasks = []
    for i, (obj, argv, post) in enumerate(sample):
        for j, (variant, cmd, p) in enumerate(variants(argv, post, feature, drop)):
            # each run its own directory; the control's name is longer
            d = os.path.join(tmp, "i%04d%d" % (i, j) + (CONTROL_PAD if variant == "control" else ""))
            tasks.append((obj, variant, d, redirect(cmd, p, d)))

    def run(task):
        obj, variant, d, (cmd, p) = task
        os.makedirs(d)
        per, err = instructions(cmd, p, kdir, os.path.join(d, "vg"))
        if per is None:
            tail = err.strip().splitlines()[-1:] or ["no error output"]
            sys.exit("collect: buildcost: compiling %s (%s) under cachegrind failed in %s: %s"
                     % (obj, variant, kdir, tail[0]))
        print("buildcost: %s %s: %s %s: %d instructions" % (
            os.path.basename(kdir), feature, obj, variant, sum(per.values())), file=sys.stderr)
        return (obj, variant), per

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(pool.map(run, tasks))


def time_cpu(sample, feature, drop, kdir, tmp, reps):
    """[(object, variant, rep, cpu seconds)], one compile at a time."""
    rows = []
    for obj, argv, post in sample:
        for r in range(reps):
            # rotate the order per repetition
            order = variants(argv, post, feature, drop)
            order = order[r % 3:] + order[:r % 3]
            for variant, c, p in order:
                t = cpu_seconds(*redirect(c, p, tmp), kdir)
                if t is None:
                    sys.exit("collect: buildcost: compiling %s (%s) failed in %s" % (obj, variant, kdir))
                rows.append((obj, variant, r, t))
        print("buildcost: %s %s: %s: CPU time, %d reps" % (os.path.basename(kdir), feature, obj, reps),
              file=sys.stderr)
    return rows


def sample_commands(kdir, feature, drop, n):
    """(n compile commands spread evenly over those carrying the feature's
    flags, how many carry them)."""
    changed = [c for c in compile_commands(kdir) if drop(c[1]) != c[1]]
    if not changed:
        sys.exit("collect: buildcost: no compile command in %s carries %s's flags" % (kdir, feature))
    n = min(n, len(changed))
    return [changed[(i * len(changed)) // n] for i in range(n)], len(changed)


def write_buildcost(out, header, counts, rows):
    """OUT.tsv as the module docstring describes it."""
    with open(out + ".tmp", "w") as f:
        f.write("# object\tvariant\trep\tcpu_s\tinstructions\tprocesses\t(%s)\n" % header)
        for (obj, variant), per in counts.items():
            f.write("%s\t%s\t-\t-\t%d\t%s\n" % (obj, variant, sum(per.values()),
                                                ",".join("%s=%d" % kv for kv in per.items())))
        for obj, variant, r, t in rows:
            f.write("%s\t%s\t%d\t%.4f\t-\t-\n" % (obj, variant, r, t))
    os.replace(out + ".tmp", out)


def cmd_buildcost(argv):
    ap = argparse.ArgumentParser(prog="collect.py buildcost", usage=__doc__)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--feature", required=True)
    ap.add_argument("--objects", type=int, default=8)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--cpu-only", action="store_true")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    if a.objects < 1 or a.jobs < 1 or a.reps < 0 or (a.cpu_only and a.reps < 1):
        sys.exit("collect: buildcost: --objects and --jobs want N >= 1, --reps N >= 0 (>= 1 with --cpu-only)")
    version = None if a.cpu_only else valgrind_version()
    drop = feature_filter(a.feature)
    sample, carrying = sample_commands(a.dir, a.feature, drop, a.objects)
    with tempfile.TemporaryDirectory() as tmp:
        counts = {} if a.cpu_only else count_instructions(sample, a.feature, drop, a.dir, tmp, a.jobs)
        rows = time_cpu(sample, a.feature, drop, a.dir, tmp, a.reps)
    header = "feature %s, %d of %d objects carrying its flags; instructions: %s" % (
        a.feature, len(sample), carrying,
        "not counted (--cpu-only)" if a.cpu_only else "cachegrind I refs of every process, " + version)
    write_buildcost(a.out, header, counts, rows)


def main(argv):
    if len(argv) >= 2 and argv[1] == "static":
        ap = argparse.ArgumentParser(prog="collect.py static", usage=__doc__)
        ap.add_argument("target")
        ap.add_argument("out")
        ap.add_argument("--objects", nargs="+", default=[])
        ap.add_argument("--track-min-size", type=int)
        a = ap.parse_args(argv[2:])
        cmd_static(a.target, a.out, a.objects, a.track_min_size)
    elif len(argv) >= 2 and argv[1] == "buildcost":
        cmd_buildcost(argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
