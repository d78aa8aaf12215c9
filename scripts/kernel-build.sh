#!/usr/bin/env bash
# Build an x86_64 kernel (a base config + config fragments) for QEMU.
#
# usage: scripts/kernel-build.sh --name NAME --cc gcc-12|gcc-11|clang-N
#            --config FRAG [--config FRAG...] [--base BASE] [--patched]
#            [--linux V] [--jobs N] [--no-ccache] [--make-var VAR=VALUE...]
#            [--force-config] [--configure-only] [--target T...]
#        scripts/kernel-build.sh --kernel NAME [--kernels FILE] [OPTIONS]
#
#   --kernel NAME   the kernel NAME as a kernel list defines it (NAME CC TREE
#                   FRAGMENTS ...): its --name, --cc, --config's and, for
#                   TREE patched, --patched (TREE plain-V or patched-V:
#                   --linux V too). The lists are qemu/kernels.txt
#                   then bench/kernels.txt (the first definition wins), or
#                   FILE (--kernels). Not together with --name, --cc,
#                   --config or --patched; the other options add to it.
#   --name NAME     build directory build/kernel/NAME (kept between runs: make
#                   is incremental, nothing is wiped)
#   --cc CC         the compiler; clang-N builds with LLVM=-N (clang-N, ld.lld-N,
#                   llvm-*-N)
#   --base BASE     the config the fragments go on top of: tinyconfig (the
#                   default: the small test kernels), defconfig (the tree's
#                   x86_64_defconfig), or a path to a full .config file (a
#                   distro's or a user's; olddefconfig fills in what the
#                   tree has and the file does not)
#   --config FRAG   a Kconfig fragment: a path (absolute, or relative to the
#                   current directory or to the repository), or a name under
#                   qemu/configs/ (with or without .config). Applied in order on top of
#                   the base; a later fragment overrides an earlier one.
#   --patched       use the tree build/kernel/src-patched instead of
#                   build/kernel/src, after kernel-patches/apply.sh (a no-op
#                   when the tree already holds this series)
#   --linux V       the kernel version: 6.1 (the default) or 6.12, whose
#                   trees are build/kernel/src-6.12 (linux-source-6.12) and
#                   build/kernel/src-6.12-patched (kernel-patches/6.12/)
#   --jobs N        make -jN (default: nproc)
#   --no-ccache     do not use ccache even if it is installed (its cache:
#                   $CCACHE_DIR, by default ~/.cache/passport; see below)
#   --make-var V=X  extra make variable (repeatable), e.g. for the patched tree
#   --force-config  reconfigure even if the inputs did not change
#   --configure-only  stop after configuring and verifying the .config
#   --target T      make these targets (repeatable; e.g. kernel/fork.o, or
#                   bzImage and a few drivers/x/y.ko) instead of bzImage
#                   (and modules when MODULES=y); without bzImage among
#                   them there is no vmlinux: no instrumentation counts
#
# Every symbol of the merged fragments must keep its value in the final
# .config; otherwise the script lists the symbols that did not stick and
# fails (e.g. structleak on gcc-12, where Kconfig hides it). On the patched
# tree a renamed option's old name (6.1's GCC_PLUGIN_STACKLEAK, STACKLEAK_*)
# is checked against its new one (KSTACK_ERASE*), which takes its value. A later fragment
# overrides the same symbol of an earlier one; for a Kconfig choice, select a
# member (=y) only in the last fragment that touches the choice, and write the
# other members as "is not set" in earlier ones (see qemu/configs/base.config).
#
# The randstruct seed is fixed: gcc-plugins/test.seed is installed as
# O/scripts/basic/randstruct.seed (and the matching randstruct_hash.h), so all
# kernels lay out structs the same way.
#
# A build that compiled every object keeps make's output in O/build-full.log
# (the boot layer counts its warnings; O/build.log is the last run's), and
# its wall time, CPU time and ccache hits in O/build-full.time. A from-scratch
# build that is interrupted and resumed keeps collecting both (the marker
# O/.passport-full-build counts the interruptions; a compile cut short shows
# twice in the log).
#
# After the build, O/instrumentation.txt holds static counts of vmlinux:
# functions calling stackleak_track_stack and functions referencing
# latent_entropy, per section (analysis/instrumentation-detail.py --counts).
#
# ccache: CCACHE_DIR defaults to ~/.cache/passport ($XDG_CACHE_HOME/passport;
# outside the clone, shared by clones), with compiler_check=content
# (so a rebuilt but identical GCC plugin still hits), base_dir = the
# repository (so different build directories share entries) and depend mode
# (unless CCACHE_NODEPEND is set): a miss then costs the compile alone.
set -euo pipefail
{ # the whole script is parsed before it runs: editing it does not disturb a running copy

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=kernel-build

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
  exit 2
}
die() { echo "$prog: error: $*" >&2; exit 1; }

kernel='' kernel_lists=("$repo/qemu/kernels.txt" "$repo/bench/kernels.txt")
name='' cc='' base=tinyconfig patched=0 linux=6.1 jobs=$(nproc) use_ccache=1 force_config=0 configure_only=0
frags=() make_vars=() user_targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --kernel) kernel=${2:?}; shift ;;
    --kernels) kernel_lists=("${2:?}"); shift ;;
    --name) name=${2:?}; shift ;;
    --cc) cc=${2:?}; shift ;;
    --config) frags+=("${2:?}"); shift ;;
    --base) base=${2:?}; shift ;;
    --patched) patched=1 ;;
    --linux) linux=${2:?}; shift ;;
    --jobs|-j) jobs=${2:?}; shift ;;
    --no-ccache) use_ccache=0 ;;
    --make-var) make_vars+=("${2:?}"); shift ;;
    --force-config) force_config=1 ;;
    --configure-only) configure_only=1 ;;
    --target) user_targets+=("${2:?}"); shift ;;
    -h|--help) usage ;;
    *) echo "$prog: unknown argument: $1" >&2; usage ;;
  esac
  shift
done

# kernel_line NAME: the first "NAME CC TREE FRAGMENTS ..." line of the lists
kernel_line() {
  awk -v k="$1" '!/^[ \t]*(#|$)/ && $1 == k { print $1, $2, $3, $4; exit }' "${kernel_lists[@]}"
}
if [ -n "$kernel" ]; then
  [ -z "$name$cc" ] && [ ${#frags[@]} = 0 ] && [ $patched = 0 ] ||
    die "--kernel $kernel: not together with --name, --cc, --config or --patched (the list defines them)"
  for f in "${kernel_lists[@]}"; do [ -f "$f" ] || die "kernel list $f not found"; done
  read -r name cc tree kfrags <<<"$(kernel_line "$kernel")"
  [ -n "$name" ] || die "--kernel $kernel: not in ${kernel_lists[*]#$repo/}"
  case $tree in
    plain|plain-*) ;;
    patched|patched-*) patched=1 ;;
    *) die "--kernel $kernel: TREE must be plain, patched, plain-V or patched-V, not '$tree'" ;;
  esac
  [[ $tree != *-* ]] || linux=${tree#*-}
  IFS=, read -ra frags <<<"$kfrags"
fi
[ -n "$name" ] || { echo "$prog: --name is required" >&2; usage; }
[ -n "$cc" ] || { echo "$prog: --cc is required" >&2; usage; }
[ ${#frags[@]} -gt 0 ] || { echo "$prog: at least one --config is required" >&2; usage; }
case $name in */*|.*|'') die "bad --name '$name' (a plain directory name)";; esac

# ---- toolchain -------------------------------------------------------------
case $cc in
  gcc-[0-9]*)
    ver=${cc#gcc-}
    command -v "$cc" >/dev/null || die "$cc not found (apt-get install $cc)"
    hostcxx=g++-$ver
    command -v "$hostcxx" >/dev/null || die "$hostcxx not found (needed to build the GCC plugins; apt-get install g++-$ver gcc-$ver-plugin-dev)"
    tool_vars=("HOSTCXX=$hostcxx")
    cc_cmd=$cc hostcc_cmd=$cc
    ;;
  clang-[0-9]*)
    ver=${cc#clang-}
    command -v "$cc" >/dev/null || die "$cc not found (apt-get install clang-$ver)"
    command -v "ld.lld-$ver" >/dev/null || die "ld.lld-$ver not found (apt-get install lld-$ver)"
    tool_vars=("LLVM=-$ver")
    cc_cmd=$cc hostcc_cmd=$cc
    ;;
  *) die "unsupported --cc '$cc' (gcc-12, gcc-11, or clang-N: clang-14, clang-19, clang-22)" ;;
esac

# default_ccache_dir: passport/ in the per-user cache directory (XDG), or
# build/ccache for a user without a writable home
default_ccache_dir() {
  if [ -n "${XDG_CACHE_HOME:-}" ]; then echo "$XDG_CACHE_HOME/passport"
  elif [ -n "${HOME:-}" ] && [ -d "$HOME" ] && [ -w "$HOME" ]; then echo "$HOME/.cache/passport"
  else echo "$repo/build/ccache"
  fi
}
if [ $use_ccache = 1 ] && command -v ccache >/dev/null; then
  # Outside the clone, so that a new clone of the repository (CI's, or a
  # second worktree) starts from the objects an earlier one compiled: a
  # test kernel's build took 864 to 1,212 CPU s cold and 497 to 632 warm
  # (97 % hits; MODVERSIONS' preprocessor runs, the plugins' C++, objtool
  # and the links are not cached). The
  # entries are keyed by content (base_dir makes the paths relative), so
  # clones at other paths share them and nothing goes stale.
  export CCACHE_DIR=${CCACHE_DIR:-$(default_ccache_dir)}
  export CCACHE_COMPILERCHECK=${CCACHE_COMPILERCHECK:-content}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$repo}
  export CCACHE_NOHASHDIR=1
  # In its default mode ccache runs the preprocessor once more on every miss
  # to key the result; depend mode keys it on the include list the compiler
  # writes anyway (Kbuild always passes -Wp,-MMD). A cold build misses on
  # every compile: over 60 of a test kernel's compile commands a miss cost
  # 51 % (clang-19) and 57 % (gcc-11) more CPU than no ccache in the default
  # mode, 9 % and 12 % in depend mode. Hits are direct-mode hits either way.
  [ -n "${CCACHE_NODEPEND:-}" ] || export CCACHE_DEPEND=${CCACHE_DEPEND:-true}
  mkdir -p "$CCACHE_DIR"
  cc_cmd="ccache $cc_cmd" hostcc_cmd="ccache $hostcc_cmd"
  ccache_on=1
else
  ccache_on=0
fi
# CC/HOSTCC are always given explicitly so the recorded command lines (and
# thus the incremental build) only change when --cc or ccache use changes.
tool_vars+=("CC=$cc_cmd" "HOSTCC=$hostcc_cmd")
# A fixed build number (uname -v "#1"), as make bindeb-pkg passes its
# package revision: KDEB_PKGVERSION=RELEASE-1 then rebuilds nothing
# (tests/boot/oot-modules.sh), where any other number recompiles
# init/version.o and relinks vmlinux.o, the whole link-time compile with LTO.
tool_vars+=("KBUILD_BUILD_VERSION=1")
# The GCC plugins are built with -ggdb: without the map their DWARF and
# __FILE__ strings hold the clone's absolute path, and ccache, which keys
# an -fplugin= on the plugin's content, would miss every compile of a GCC
# kernel in another clone.
tool_vars+=("HOSTCXXFLAGS=-ffile-prefix-map=$repo/=")

# ---- source tree -----------------------------------------------------------
case $linux in
  6.1) tree_dir=$repo/build/kernel/src ;;
  6.12) tree_dir=$repo/build/kernel/src-$linux ;;
  *) die "--linux $linux: passport has a series for 6.1 and 6.12 only" ;;
esac
if [ $patched = 1 ]; then
  src=$tree_dir-patched
  "$repo/kernel-patches/apply.sh" --linux "$linux" "$src" || die "kernel-patches/apply.sh failed"
  [ -f "$src/Makefile" ] || die "--patched: kernel-patches/apply.sh left no Makefile in $src"
else
  src=$tree_dir
  "$repo/scripts/kernel-src.sh" --linux "$linux" --full "$src" >/dev/null || die "scripts/kernel-src.sh --full $src failed"
fi
[ -f "$src/arch/x86/Makefile" ] || die "$src is not a full kernel tree (run scripts/kernel-src.sh --full)"
[ ! -f "$src/.config" ] || die "$src has a .config: the source tree must stay clean for O= builds (make -C $src mrproper)"

# ---- base config -----------------------------------------------------------
case $base in
  tinyconfig|defconfig) base_file='' ;;
  *)
    [ -f "$base" ] || die "--base $base: neither tinyconfig, defconfig nor a config file"
    grep -q '^CONFIG_' "$base" || die "--base $base: no CONFIG_ line in it (not a kernel .config)"
    base_file=$(cd "$(dirname "$base")" && pwd)/$(basename "$base") ;;
esac

# ---- fragments -------------------------------------------------------------
frag_paths=()
for f in "${frags[@]}"; do
  p=''
  for c in "$f" "$repo/$f" "$repo/$f.config" "$repo/qemu/configs/$f" "$repo/qemu/configs/$f.config"; do
    if [ -f "$c" ]; then p=$(cd "$(dirname "$c")" && pwd)/$(basename "$c"); break; fi
  done
  [ -n "$p" ] || die "config fragment '$f' not found (as a path or under qemu/configs/)"
  frag_paths+=("$p")
done

out=$repo/build/kernel/$name
mkdir -p "$out"
log=$out/build.log
t0=$SECONDS
say() { printf '[%s %s +%ds] %s\n' "$prog" "$name" $((SECONDS - t0)) "$*"; }

full_log=''  # set while a from-scratch build runs: make's output goes there too
mk() {  # make in O= with the toolchain; output appended to the log
  if [ -n "$full_log" ]; then
    make -C "$src" O="$out" ARCH=x86_64 "${tool_vars[@]}" "${make_vars[@]}" "$@" 2>&1 | tee -a "$full_log" >>"$log"
  else
    make -C "$src" O="$out" ARCH=x86_64 "${tool_vars[@]}" "${make_vars[@]}" "$@" >>"$log" 2>&1
  fi
}
mk_or_die() {
  local what=$1; shift
  if ! mk "$@"; then
    echo "$prog: error: $what failed for $name; last lines of $log:" >&2
    grep -E 'error|Error' "$log" | tail -n 15 >&2 || true
    tail -n 15 "$log" >&2
    exit 1
  fi
}

: > "$log"
say "kernel $name: cc=$cc$([ $ccache_on = 1 ] && echo ' (ccache)') src=${src#$repo/} base=$base fragments: ${frags[*]} jobs=$jobs"

# ---- configure (skipped when nothing changed) -------------------------------
cfg_key=$( {
  echo "cc=$cc ccache=$ccache_on src=$src"
  # (tinyconfig, the default, adds nothing: its kernels keep their stamps)
  [ "$base" = tinyconfig ] || echo "base=$base"
  [ -z "$base_file" ] || cat "$base_file"
  cat "$src/.kernel-src.stamp" 2>/dev/null || stat -c '%Y' "$src/Makefile"
  # the Kconfig files themselves: a re-patched tree must be reconfigured
  (cd "$src" && find . -name 'Kconfig*' -type f -not -path './Documentation/*' | LC_ALL=C sort | xargs cat)
  printf '%s\n' "${make_vars[@]}"
  for p in "${frag_paths[@]}"; do echo "== $p"; cat "$p"; done
  "$cc" --version | head -n 1
} | sha256sum | cut -d' ' -f1)
stamp=$out/.passport-config.stamp

# Expected values: the merged fragments, a later fragment winning.
expected=$out/.passport-expected
for p in "${frag_paths[@]}"; do
  sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1 \2/p' \
         -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1 n/p' "$p"
done | awk '{ v[$1] = substr($0, length($1) + 2); if (!($1 in o)) o[$1] = n++ }
            END { for (k in o) print o[k], k, v[k] }' | sort -n | cut -d' ' -f2- > "$expected"

if [ $force_config = 0 ] && [ -f "$out/.config" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$cfg_key" ]; then
  say "configure: inputs unchanged, keeping $out/.config"
else
  rm -f "$stamp"
  if [ -n "$base_file" ]; then
    say "configure: base ${base_file}"
    cp "$base_file" "$out/.config"
  else
    say "configure: $base"
    mk_or_die "make $base" "$base"
  fi
  say "configure: merge ${#frag_paths[@]} fragment(s)"
  (cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m .config "${frag_paths[@]}") >>"$log" 2>&1 \
    || die "merge_config.sh failed (see $log)"
  say "configure: olddefconfig"
  mk_or_die "make olddefconfig" olddefconfig
fi

# ---- verify that every fragment line stuck ---------------------------------
# A line for a renamed option (a former name: the series' "formerly") that the
# .config no longer has is checked against the option that took it over, e.g.
# 6.1's CONFIG_STACKLEAK_TRACK_MIN_SIZE against CONFIG_KSTACK_ERASE_TRACK_MIN_SIZE.
# Only for names no Kconfig defines any more ("gone"): a former name that is
# still a symbol of its own (LLVM_PASS_STACKLEAK, derived from KSTACK_ERASE) is
# absent from the .config when it is n, and then means n, not its successor.
renames=$("$repo/scripts/kconfig-formerly.sh" "$src")
missing=()
while read -r sym want; do
  line=$(grep -E "^($sym=|# $sym is not set\$)" "$out/.config" || true)
  if [ -z "$line" ]; then
    for new in $(awk -v old="${sym#CONFIG_}" '$1 == old && $3 == "gone" { print $2 }' <<<"$renames"); do
      line=$(grep -E "^(CONFIG_$new=|# CONFIG_$new is not set\$)" "$out/.config" || true)
      [ -z "$line" ] || { line=${line/CONFIG_$new/$sym}; break; }
    done
  fi
  case $line in
    "$sym="*) got=${line#"$sym="} ;;
    *) got=n ;;   # "is not set", or absent (hidden symbol)
  esac
  if [ "$got" != "$want" ]; then
    note=''
    [ -n "$line" ] || note=' (symbol not visible: a dependency is off or hidden)'
    missing+=("$sym: wanted $want, got $got$note")
  fi
done < "$expected"
if [ ${#missing[@]} -gt 0 ]; then
  echo "$prog: error: ${#missing[@]} fragment line(s) did not stick in $out/.config:" >&2
  printf '  %s\n' "${missing[@]}" >&2
  echo "$prog: (a dependency is missing or the compiler hides the option; e.g. GCC >= 12 hides structleak)" >&2
  exit 1
fi
echo "$cfg_key" > "$stamp"
say "configure: all $(wc -l < "$expected") fragment symbols verified in .config"
if [ $configure_only = 1 ]; then
  say "done: configured only ($out/.config)"
  exit 0
fi

# ---- fixed randstruct seed ---------------------------------------------------
if grep -q '^CONFIG_RANDSTRUCT=y' "$out/.config"; then
  seedfile=$repo/gcc-plugins/test.seed
  seed=$(tr -d ' \n' < "$seedfile")
  [[ $seed =~ ^[0-9a-f]{64}$ ]] || die "$seedfile: not 64 hex characters"
  # scripts_basic generates a seed (and its .cmd) if there is none yet;
  # then ours replaces it, newer than the generator so it is kept.
  mk_or_die "make scripts_basic" scripts_basic
  if [ "$(tr -d ' \n' < "$out/scripts/basic/randstruct.seed")" != "$seed" ]; then
    echo "$seed" > "$out/scripts/basic/randstruct.seed"
    mkdir -p "$out/include/generated"
    echo "#define RANDSTRUCT_HASHED_SEED \"$(echo -n "$seed" | sha256sum | cut -d' ' -f1)\"" \
      > "$out/include/generated/randstruct_hash.h"
    say "randstruct: installed the fixed seed from gcc-plugins/test.seed"
  else
    say "randstruct: fixed seed already in place"
  fi
fi

# ---- build -----------------------------------------------------------------
targets=(bzImage)
# modules: its modpost step writes Module.symvers (symbol CRCs with
# MODVERSIONS), which out-of-tree modules are built against
grep -q '^CONFIG_MODULES=y' "$out/.config" && targets+=(modules)
[ ${#user_targets[@]} = 0 ] || targets=("${user_targets[@]}")
# A build that compiles every object (none existed when it started, but the
# host tools configuring built under scripts/) keeps make's output as
# build-full.log: an incremental build's log only shows the warnings of what
# it recompiled, so the boot layer counts them there. A from-scratch build
# that was interrupted (an hour-long real config) goes on collecting when it
# is resumed: the marker file counts the interrupted runs. Only a build of
# the whole kernel (bzImage among the targets) counts.
full=0 interrupted=0 marker=$out/.passport-full-build
if [[ " ${targets[*]} " == *" bzImage "* ]]; then
  if [ -z "$(find "$out" -path "$out/scripts" -prune -o -name '*.o' -print -quit)" ]; then
    full=1
    rm -f "$out/build-full.log" "$out/build-full.time" "$out/build-full.partial"
    echo 0 > "$marker"
  elif [ -f "$marker" ]; then
    full=1 interrupted=$(( $(cat "$marker") + 1 ))
    echo "$interrupted" > "$marker"
  fi
fi
# Per-build ccache statistics through a stats log (the counters of the
# shared cache directory mix concurrent builds).
if [ $ccache_on = 1 ]; then
  export CCACHE_STATSLOG=$out/ccache-stats.log
  # a resumed from-scratch build adds to the interrupted runs' statistics
  [ $interrupted != 0 ] || : > "$CCACHE_STATSLOG"
fi
# The objects do not depend on the pass plugin in Kbuild, and ccache only
# hashes the loader named by -fplugin=: when the tree's pass sources change,
# drop the objects and make ccache hash those sources (CCACHE_EXTRAFILES).
if grep -q '^CONFIG_LLVM_PASSES=y' "$out/.config"; then
  passes_hash=$out/.passport-passes.hash
  new_hash=$(cat "$src"/scripts/llvm-passes/* | sha256sum | cut -d' ' -f1)
  if [ -f "$passes_hash" ] && [ "$(cat "$passes_hash")" != "$new_hash" ]; then
    say "llvm-passes: the pass sources changed since the last build: recompiling every object"
    find "$out" -name '*.o' -delete
    if [[ " ${targets[*]} " == *" bzImage "* ]]; then  # now a from-scratch build
      full=1 interrupted=0
      rm -f "$out/build-full.log" "$out/build-full.time" "$out/build-full.partial"
      echo 0 > "$marker"
      [ $ccache_on = 0 ] || : > "$CCACHE_STATSLOG"  # its statistics start anew too
    fi
  fi
  echo "$new_hash" > "$passes_hash"
  export CCACHE_EXTRAFILES=$passes_hash
fi

# children_cpu: user+sys CPU seconds of this script's finished children
# (bash's times; call it as `children_cpu > FILE`, never in $(...): a
# subshell has no children of its own. times' second line is the children's
# "XmY.YYYs XmY.YYYs")
children_cpu() {
  times > "$out/.times"
  sed -n 2p "$out/.times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d\n", t }'
}
children_cpu > "$out/.cpu0"; cpu0=$(cat "$out/.cpu0")
tb=$SECONDS started=$(date +%s)
[ $full = 0 ] || full_log=$out/build-full.partial
say "build: make -j$jobs ${targets[*]} (log: $log)"
mk_or_die "make ${targets[*]}" -j"$jobs" "${targets[@]}"
if [ -n "${seed:-}" ] && [ "$(tr -d ' \n' < "$out/scripts/basic/randstruct.seed")" != "$seed" ]; then
  die "the randstruct seed was regenerated during the build; $out is not using gcc-plugins/test.seed"
fi
if [[ " ${targets[*]} " != *" bzImage "* ]]; then
  say "build: done in $((SECONDS - tb))s: ${targets[*]}"
  say "done: kernel $name (targets only) in $((SECONDS - t0))s"
  exit 0
fi
say "build: done in $((SECONDS - tb))s: $out/arch/x86/boot/bzImage ($(stat -c %s "$out/arch/x86/boot/bzImage") bytes)"
hits=0 misses=0
if [ $ccache_on = 1 ]; then
  stats=$(ccache --show-log-stats -v 2>/dev/null || true)
  hits=$(awk '$1 == "Hits:" { print $2; exit }' <<<"$stats")
  misses=$(awk '$1 == "Misses:" { print $2; exit }' <<<"$stats")
  say "ccache: hits ${hits:-?} misses ${misses:-?}"
fi
if [ $full = 1 ]; then
  mv "$out/build-full.partial" "$out/build-full.log"
  children_cpu > "$out/.cpu1"
  # what a from-scratch build cost (the real-config report compares it;
  # the times of a resumed build are its last run's only; started and
  # finished, in seconds since the epoch, tell whether two builds ran side
  # by side, under the same load)
  printf 'seconds %d\ncpu_seconds %d\njobs %s\nccache_hits %s\nccache_misses %s\ninterrupted_runs %s\nstarted %s\nfinished %s\n' \
    $((SECONDS - tb)) $(( $(cat "$out/.cpu1") - cpu0 )) "$jobs" "${hits:-0}" "${misses:-0}" \
    "$interrupted" "$started" "$(date +%s)" > "$out/build-full.time"
  rm -f "$marker"
  say "build: every object compiled$([ $interrupted = 0 ] || echo " (over $((interrupted + 1)) runs)"): make's output kept as $out/build-full.log"
fi

# ---- static instrumentation counts ----------------------------------------
ti=$SECONDS
python3 "$repo/analysis/instrumentation-detail.py" --counts "$out" > "$out/instrumentation.txt"
say "instrumentation ($((SECONDS - ti))s): $(grep -v '^#' "$out/instrumentation.txt" | paste -sd' ')"
say "done: kernel $name in $((SECONDS - t0))s"
exit
}
