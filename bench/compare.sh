#!/usr/bin/env bash
# compare.sh: ./passport compare - build (or reuse) the GCC and Clang test
# kernels, boot each under QEMU -icount with the in-guest benchmark, measure
# the erase loop natively, collect static instrumentation and compile-time
# cost, and write the report.
#
# usage: ./passport compare [--linux V | --kernels NAMES] [--reuse] [--no-build] [--jobs N]
#            [--boots N] [--samples N] [--timeout S] [--native-reps N]
#            [--buildcost-objects N] [--buildcost-reps N] [--buildcost-cpu-only]
#            [--no-buildcost]
#            [--run DIR] [--out DIR] [--report-only] [--verbose]
#
#   --linux V        the kernel tree: 6.1 (the default) or 6.12; the run takes
#                    every kernel of qemu/kernels.txt and bench/kernels.txt
#                    on that tree (TREE patched[-V] or plain[-V], read as
#                    kernel-build.sh reads it); a V with no kernel is refused
#   --kernels NAMES  comma-separated kernel names instead, all on one tree:
#                    the report judges each Clang kernel against the run's
#                    GCC kernels, so a run mixing 6.1 and 6.12 is refused
#   --reuse          use an existing build/kernel/NAME/bzImage as it is
#                    (default: run kernel-build.sh, incremental)
#   --no-build       never build: a kernel without a bzImage is reported missing
#   --jobs N         make -jN for kernel builds (default: nproc; the builds
#                    finish before anything is measured), and as many
#                    cachegrind runs at once for the compile-time cost
#   --boots N        benchmark boots per kernel (default 2)
#   --samples N      override the in-guest samples per op (default: the
#                    benchmark's own, 51 per syscall)
#   --timeout S      per-boot QEMU timeout (default 900)
#   --native-reps N  samples per variant of the native erase benchmark (default 1000)
#   --buildcost-objects N, --buildcost-reps N
#                    compile-time cost: objects per kernel (default 6),
#                    each variant (with, without, control) counted once
#                    in instructions under cachegrind (valgrind; --jobs
#                    runs at once, since counts do not depend on load),
#                    then timed N times, one compile at a time, for the
#                    secondary CPU-time figure (default 3: a multiple of
#                    3, so with, without and control each take every
#                    place in the rotation equally often; 0: none)
#   --buildcost-cpu-only
#                    no instruction counts (no valgrind needed): CPU time
#                    only, and the ≤ 1 % target judged on it
#   --no-buildcost   skip the compile-time measurement
#   --run DIR        raw data directory (default build/compare/run; the
#                    previous one is kept as DIR.prev)
#   --out DIR        report directory (default report/)
#   --report-only    only regenerate the report from an existing --run DIR
#   --verbose        show the commands' own output
#
# Everything in the report comes from DIR (boot logs, native.txt, static/,
# buildcost/, kernels.tsv, meta.txt): bench/report.py reads nothing else.
set -euo pipefail
{ # parsed whole before it runs: editing it does not disturb a running copy

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=compare
die() { echo "$prog: error: $*" >&2; exit 1; }
usage() { sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }

kernels_opt='' linux='' reuse=0 nobuild=0 jobs=$(nproc) boots=2 samples='' timeout=900 native_reps=1000
bc_objects=6 bc_reps=3 bc_cpu_only=0 buildcost=1 run=$repo/build/compare/run out=$repo/report
report_only=0 verbose=0
while [ $# -gt 0 ]; do
  case $1 in
    --kernels) kernels_opt=${2:?}; shift ;;
    --linux) linux=${2:?}; shift ;;
    --reuse) reuse=1 ;;
    --no-build) nobuild=1 ;;
    --jobs|-j) jobs=${2:?}; shift ;;
    --boots) boots=${2:?}; shift ;;
    --samples) samples=${2:?}; shift ;;
    --timeout) timeout=${2:?}; shift ;;
    --native-reps) native_reps=${2:?}; shift ;;
    --buildcost-objects) bc_objects=${2:?}; shift ;;
    --buildcost-reps) bc_reps=${2:?}; shift ;;
    --buildcost-cpu-only) bc_cpu_only=1 ;;
    --no-buildcost) buildcost=0 ;;
    --run) run=${2:?}; shift ;;
    --out) out=${2:?}; shift ;;
    --report-only) report_only=1 ;;
    --verbose|-v) verbose=1 ;;
    -h|--help) sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "$prog: unknown argument: $1" >&2; usage ;;
  esac
  shift
done
for v in jobs boots timeout native_reps bc_objects; do
  [[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -ge 1 ] || die "--${v//_/-} wants a positive integer"
done
[[ $bc_reps =~ ^[0-9]+$ ]] || die "--buildcost-reps wants an integer >= 0"
[ $bc_cpu_only = 0 ] || [ "$bc_reps" -ge 1 ] || die "--buildcost-cpu-only needs --buildcost-reps >= 1"
[ -z "$samples" ] || [[ $samples =~ ^[0-9]+$ ]] || die "--samples wants a positive integer"
run=$(realpath -m "$run") out=$(realpath -m "$out")

t0=$SECONDS
step() { printf '[%s +%ds] %s\n' "$prog" $((SECONDS - t0)) "$*"; }
# quiet CMD...: run CMD, its output to LOG (or the terminal with --verbose)
quiet() {
  local log=$1; shift
  if [ $verbose = 1 ]; then "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; fi
  "$@" >>"$log" 2>&1
}

# report: write it, then check it against the raw data with the test's
# independent checker (bench/check-report.py)
report() {
  step "report: bench/report.py --run ${run#"$repo"/} --out ${out#"$repo"/}"
  python3 "$repo/bench/report.py" --run "$run" --out "$out"
  python3 "$repo/bench/check-report.py" "$run" "$out" | tail -n 5 |
    sed "s/^/[$prog] /"
  return "${PIPESTATUS[0]}"
}
# the compile-time cost counts instructions under valgrind: say so before
# hours of kernel builds, not after them
if [ $report_only = 0 ] && [ $buildcost = 1 ] && [ $bc_cpu_only = 0 ] && ! command -v valgrind >/dev/null; then
  die "valgrind not found: install the valgrind package (or pass --buildcost-cpu-only or --no-buildcost)"
fi
if [ $report_only = 1 ]; then
  [ -f "$run/kernels.tsv" ] || die "--report-only: $run has no kernels.tsv (no run there)"
  report
  exit
fi

# ---- the kernel list ----------------------------------------------------------
# list_kernels: "NAME CC TREE FRAGMENTS" lines, tests/boot first; a name
# listed twice keeps its first definition (the test kernel).
list_kernels() {
  cat "$repo/qemu/kernels.txt" "$repo/bench/kernels.txt" |
    awk '!/^[ \t]*(#|$)/ && !seen[$1]++ { print $1, $2, $3, $4 }'
}
all=$(list_kernels)
if [ -n "$kernels_opt" ]; then
  sel=''
  IFS=, read -ra want <<<"$kernels_opt"
  for k in "${want[@]}"; do
    line=$(awk -v k="$k" '$1 == k' <<<"$all")
    [ -n "$line" ] || die "--kernels: '$k' is in neither qemu/kernels.txt nor bench/kernels.txt"
    sel+=$line$'\n'
  done
  all=${sel%$'\n'}
fi
# linux_of(TREE): a kernel line's Linux version, read as kernel-build.sh
# reads TREE (plain-V or patched-V: V; plain or patched: 6.1)
linux_of='function linux_of(tree, t) { return split(tree, t, "-") > 1 ? t[2] : "6.1" }'
# on_linux V: the kernel lines on Linux V
on_linux() { awk -v v="$1" "$linux_of"' linux_of($3) == v'; }
# by_linux: "Linux V (NAME,...) and W (NAME,...)", the kernels per version
by_linux() {
  awk "$linux_of"'
       { v = linux_of($3); if (!(v in k)) order[++m] = v; k[v] = k[v] (k[v] == "" ? "" : ",") $1 }
       END { for (i = 1; i <= m; i++) printf "%s%s (%s)", (i == 1 ? "Linux " : " and "), order[i], k[order[i]] }'
}
if [ -n "$kernels_opt" ]; then
  [[ $(by_linux <<<"$all") != *' and '* ]] ||
    die "--kernels: $(by_linux <<<"$all") in one run: the report judges each Clang kernel against the run's GCC kernels; compare one tree at a time"
  versions=$(by_linux <<<"$all" | sed 's/^Linux \([^ ]*\) .*/\1/')
  [ -z "$linux" ] || [ "$linux" = "$versions" ] || die "--kernels are Linux $versions kernels, not --linux $linux"
  linux=$versions
else
  linux=${linux:-6.1}
  all=$(on_linux "$linux" <<<"$all")
  [ -n "$all" ] || die "--linux $linux: no kernel of qemu/kernels.txt or bench/kernels.txt is on that tree"
fi

# ---- run directory ------------------------------------------------------------
if [ -d "$run" ]; then rm -rf "$run.prev"; mv "$run" "$run.prev"; fi
mkdir -p "$run"/{boot,static,buildcost,logs,bin}
{
  echo "date $(date -u +%FT%TZ)"
  echo "commit $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "host_cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
  echo "host_cores $(nproc)"
  echo "qemu $(qemu-system-x86_64 --version | head -n1)"
  echo "boot_variation passport.boot=N on the command line of boot N"
  echo "linux $linux"
  echo "options boots=$boots samples=${samples:-default} native_reps=$native_reps buildcost=$buildcost objects=$bc_objects reps=$bc_reps cpu_only=$bc_cpu_only jobs=$jobs"
} > "$run/meta.txt"
: > "$run/kernels.tsv"
# the pairs of this run's tree: a pair of the other tree's kernels can never
# be measured in it (a pair of this tree left out by --kernels is reported
# as missing)
tree_kernels=" $(list_kernels | on_linux "$linux" | cut -d' ' -f1 | paste -sd' ') "
awk -v names="$tree_kernels" '/^[ \t]*(#|$)/ || index(names, " " $2 " ")' "$repo/bench/pairs.txt" > "$run/pairs.txt"
kstatus() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$run/kernels.tsv"; }

# ---- build ----------------------------------------------------------------------
# build_kernel NAME CC TREE FRAGMENTS: prints the status (built|reused|missing: why)
build_kernel() {
  local name=$1 cc=$2 tree=$3 frags=$4 bz=$repo/build/kernel/$1/arch/x86/boot/bzImage
  local log=$run/logs/$name.build.log args
  if { [ $reuse = 1 ] || [ $nobuild = 1 ]; } && [ -f "$bz" ]; then echo reused; return; fi
  if [ $nobuild = 1 ]; then echo "missing: not built (--no-build)"; return; fi
  args=(--kernel "$name" --jobs "$jobs")
  # kernel-build.sh's own progress lines (phase, +seconds) go to the
  # terminal; pipefail (set above) makes its failure the pipeline's
  if "$repo/scripts/kernel-build.sh" "${args[@]}" 2>&1 | tee -a "$log" |
       { grep --line-buffered '^\[kernel-build' || true; } | sed -u 's/^/    /' >&2 &&
     [ -f "$bz" ]; then
    echo built
  else
    echo "missing: build failed ($(grep -a -m1 -E 'error' "$log" | cut -c1-120 || true); logs/$name.build.log)"
  fi
}

step "kernels: $(awk '{ printf "%s ", $1 }' <<<"$all")"
while read -r -u 3 name cc tree frags; do
  step "$name: build ($cc, $tree, $frags)"
  ts=$SECONDS
  st=$(build_kernel "$name" "$cc" "$tree" "$frags")
  step "$name: $st ($((SECONDS - ts))s)"
  kstatus "$name" "$cc" "$tree" "$frags" "$st"
done 3<<<"$all"

# ---- boots and static data ----------------------------------------------------
initrd=$run/bin/initramfs.cpio.gz
step "initramfs: qemu/mkinitramfs.sh (init + bench/guest-bench.c)"
quiet "$run/logs/initramfs.log" "$repo/qemu/mkinitramfs.sh" "$initrd" || die "mkinitramfs failed (see $run/logs/initramfs.log)"

append="norandmaps printk.time=1 kunit.filter_glob=none"
[ -z "$samples" ] || append+=" passport.bench_samples=$samples"
# boot_bench NAME N: one benchmark boot; retried once (a kernel being rebuilt
# by someone else at that moment has no bzImage for a few seconds)
boot_bench() {
  local name=$1 n=$2 bz=$repo/build/kernel/$1/arch/x86/boot/bzImage try
  for try in 1 2; do
    # passport.boot=N: under icount identical inputs replay bit for bit, so
    # two identical boots would only show that; a different command line
    # shifts memory layout a little and makes the boots real repetitions
    if quiet "$run/logs/$name.boot.log" "$repo/qemu/boot.sh" --kernel "$bz" --initrd "$initrd" \
         --icount --run bench --append "$append passport.boot=$n" --timeout "$timeout" --log "$run/boot/$name.$n.log"; then
      return 0
    fi
    [ $try = 2 ] || { step "$name: boot $n failed, retrying in 30s"; sleep 30; }
  done
  return 1
}
# in_run NAME: NAME is a kernel of this run that was built or reused
in_run() { grep -q "^$1	" "$run/kernels.tsv" && ! grep -q "^$1	.*	missing" "$run/kernels.tsv"; }
# static_data NAME: per-function table, size and .config of the kernel just
# booted (right after its boots: someone may rebuild it later in the run)
static_data() {
  local name=$1 k=$repo/build/kernel/$1 ts=$SECONDS
  python3 "$repo/bench/collect.py" static "$k" "$run/static/$name.tsv"
  cp "$k/instrumentation.txt" "$run/static/$name.instrumentation.txt" 2>/dev/null || true
  # the configuration that was booted (with --reuse it may predate the
  # fragments listed in kernels.txt): the report derives features from it
  cp "$k/.config" "$run/static/$name.config"
  # a .config newer than the bzImage: a rebuild was configured (and maybe
  # interrupted) after the booted image was made; the report says so
  if [ "$k/.config" -nt "$k/arch/x86/boot/bzImage" ]; then
    echo "config newer than bzImage: .config $(date -u -r "$k/.config" +%FT%TZ), bzImage $(date -u -r "$k/arch/x86/boot/bzImage" +%FT%TZ)" \
      > "$run/static/$name.config-stale"
  fi
  step "$name: static instrumentation ($((SECONDS - ts))s)"
}
while IFS=$'\t' read -r -u 3 name cc tree frags st; do
  case $st in missing*) continue ;; esac
  # The verdict boot: the boot tests' in-guest checks (LKDTM stackleak,
  # latent_entropy across fork, KUnit stackinit), without icount; cheap.
  ts=$SECONDS
  if quiet "$run/logs/$name.boot.log" "$repo/qemu/boot.sh" --kernel "$repo/build/kernel/$name/arch/x86/boot/bzImage" \
       --initrd "$initrd" --run lkdtm-stackleak,latent-entropy --append 'kunit.filter_glob=stackinit' \
       --timeout 300 --log "$run/boot/$name.verdict.log"; then
    step "$name: verdict boot ok ($((SECONDS - ts))s)"
  else
    step "$name: verdict boot FAILED ($((SECONDS - ts))s; logs/$name.boot.log)"
  fi
  for n in $(seq 1 "$boots"); do
    ts=$SECONDS
    if boot_bench "$name" "$n"; then
      step "$name: benchmark boot $n/$boots ok ($((SECONDS - ts))s)"
    else
      step "$name: benchmark boot $n/$boots FAILED ($((SECONDS - ts))s; logs/$name.boot.log)"
      rm -f "$run/boot/$name.$n.log"
    fi
  done
  static_data "$name"
done 3< "$run/kernels.tsv"

# ---- randstruct layouts against the GCC plugin's ---------------------------------
# Each Clang kernel of a randstruct pair (passport's, and upstream Clang's
# built-in one) through analysis/randstruct-probe.py against the GCC kernel
# its kernels.txt line names (randstruct-as=NAME: the GCC plugin on the same
# configuration; other features change layouts too): is the layout the
# plugin's for the same seed?  The probe's own lines, and its exit status
# (0 same layout, 1 mismatches), into static/NAME.randstruct-probe.txt.
for name in $(awk '$1 ~ /^randstruct(:upstream)?$/ { print $2 }' "$run/pairs.txt"); do
  in_run "$name" || continue
  twin=$(cat "$repo/qemu/kernels.txt" "$repo/bench/kernels.txt" | awk -v k="$name" '$1 == k { print $5; exit }' |
         tr ',' '\n' | sed -n 's/^randstruct-as=//p')
  if [ -z "$twin" ] || ! in_run "$twin"; then
    step "$name: randstruct layout not probed: ${twin:-no randstruct-as= GCC kernel in kernels.txt}${twin:+ is not in this run}"
    continue
  fi
  ts=$SECONDS
  rc=0
  python3 "$repo/analysis/randstruct-probe.py" --baseline-none --jobs "$jobs" \
    "$repo/build/kernel/$twin" "$repo/build/kernel/$name" > "$run/static/$name.randstruct-probe.txt" \
    2>> "$run/logs/randstruct-probe.log" || rc=$?
  echo "# exit $rc against $twin" >> "$run/static/$name.randstruct-probe.txt"
  step "$name: randstruct layout against $twin: exit $rc ($((SECONDS - ts))s)"
done

# ---- native erase vs memset ------------------------------------------------------
step "native: erase loop vs memset (1-16 KiB, $native_reps samples each)"
gcc -O2 -mgeneral-regs-only -Wall -Wextra -Werror -c -o "$run/bin/erase-loops.o" "$repo/bench/erase-loops.c"
gcc -O2 -Wall -Wextra -Werror -o "$run/bin/erase-native" "$repo/bench/erase-native.c" "$run/bin/erase-loops.o"
{
  echo "# host load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$run/bin/erase-native" --reps "$native_reps"
  echo "# host load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$run/native.txt"

# ---- compile-time cost of the plugins ----------------------------------------
# buildcost KERNEL FEATURE: only when the kernel is in this run.
buildcost() {
  local name=$1 feature=$2 ts=$SECONDS
  in_run "$name" || return 0
  local how="instructions (cachegrind, $jobs at once) and CPU time x $bc_reps" only=()
  [ $bc_cpu_only = 0 ] || { how="CPU time x $bc_reps"; only=(--cpu-only); }
  step "$name: compile-time cost of $feature ($bc_objects objects; with/without/control: $how)"
  if ! python3 "$repo/bench/collect.py" buildcost --dir "$repo/build/kernel/$name" --feature "$feature" \
       --objects "$bc_objects" --reps "$bc_reps" --jobs "$jobs" "${only[@]}" \
       --out "$run/buildcost/$name.$feature.tsv" 2>>"$run/logs/buildcost.log"; then
    step "$name: compile-time cost of $feature FAILED (logs/buildcost.log)"
    rm -f "$run/buildcost/$name.$feature.tsv"
  fi
  step "$name: $feature done ($((SECONDS - ts))s)"
}
if [ $buildcost = 1 ]; then
  # stackleak on both sides, every plugin together on both sides, then the
  # other plugins one by one, GCC's and passport's
  buildcost gcc12 gcc-stackleak
  buildcost clang19 passport-stackleak
  buildcost gcc12 gcc-all
  buildcost clang19 passport
  buildcost gcc12 gcc-latent-entropy
  buildcost clang19 passport-latent-entropy
  buildcost gcc11-structleak gcc-structleak
  buildcost clang19 passport-structleak
  buildcost gcc12 gcc-randstruct
  buildcost clang19 passport-randstruct
fi

report
step "done in $((SECONDS - t0))s: $out/index.md (raw data: ${run#"$repo"/})"
exit
}
