#!/usr/bin/env bash
# The real-config layer: a user's kind of kernel (defconfig, Debian's own
# config, or any .config) built with passport and, as the control, with plain
# Clang; both booted in QEMU with passport's init; KUnit, LKDTM and
# latent_entropy compared; a report written.
#
# usage: scripts/real-config.sh [--config defconfig|debian|FILE]
#            [--features LIST] [--llvm N] [--jobs N] [--timeout S]
#            [--modules LIST] [--no-control] [--no-boot] [--report DIR]
#            [--dry-run]
#
#   --config C     defconfig (the default): the tree's x86_64_defconfig;
#                  debian: Debian's amd64 config (config.amd64_none_amd64
#                  from the linux-config-6.1 package; its built-in part is
#                  built: bzImage, no modules); FILE: a full .config
#   --features L   what passport turns on, comma-separated: stackleak,
#                  structleak (byref-all), latent-entropy, randstruct (full);
#                  all (the default) = the four; config = map the config's own
#                  GCC plugin and randstruct choices to passport's, same modes
#                  and stackleak threshold (written to REPORT/mapped.config;
#                  a config with none of them is an error)
#   --llvm N       the Clang major of both kernels (default 19)
#   --jobs N       make -jN (default: nproc)
#   --timeout S    per-boot QEMU timeout (default 1200: a defconfig kernel
#                  runs its ~45 KUnit suites in about a minute under TCG)
#   --modules L    the modules to build and load, comma-separated .ko paths
#                  of the tree (e.g. drivers/block/loop.ko); default: all of
#                  the config's modules, except for debian (thousands): a
#                  sample of independent ones (loop, nbd, dummy, tun, isofs,
#                  squashfs, nls_utf8). `none` builds no module.
#   --no-control   build and boot only the passport kernel (no KUnit diff,
#                  no build time/size comparison)
#   --no-boot      build (and run the static checks) only
#   --report DIR   where the report goes (default build/real-config/NAME)
#   --dry-run      print the kernels it would build (names, trees, configs,
#                  targets, the mapped fragment) and stop
#
# The kernels: build/kernel/rc-CONFIG-FEATURES (the patched tree, the
# passport features on top of the config) and build/kernel/rc-CONFIG-control
# (the unpatched tree, the same config, plain Clang). Both add the test hooks
# of qemu/configs/real-tests.config (every built-in KUnit suite, LKDTM,
# KASLR, no DWARF). Builds are incremental and share ccache: a second run is
# quick. When neither kernel is built yet, the two build side by side, each
# with make -j(N/2) and compiling every object (ccache's recache mode); the
# report compares build times only between such builds, which ran at the
# same time under the same load (to measure another feature set against the
# control, remove the control's build directory first).
#
# Output: progress on stderr; the report DIR/report.md (also printed), the
# boot logs DIR/{passport,control}.boot.log, the KUnit results per case
# DIR/{passport,control}.kunit.tsv. Exit status 0 when every verdict holds:
# builds and boots, no build warning that the control does not have, KUnit
# per case as the control's (the feature's own suite, stackinit, may differ,
# but no case fails), LKDTM STACKLEAK_ERASING OK, latent_entropy changing,
# KASLR on, stackleak's static coverage (no untracked frame at or above the
# threshold) and randstruct's probe (the layouts of ten core translation
# units equal the GCC plugin's on the same config, and types are randomized).
set -euo pipefail
{ # the whole script is parsed before it runs: editing it does not disturb a running copy

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=real-config
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit "${1:-2}"; }
die() { echo "$prog: error: $*" >&2; exit 1; }
say() { echo "[$prog] $*" >&2; }

config=defconfig features=all llvm=19 jobs=$(nproc) timeout=1200 control=1 boot=1 report='' modules='' dry_run=0
while [ $# -gt 0 ]; do
  case $1 in
    --config) config=${2:?}; shift ;;
    --features) features=${2:?}; shift ;;
    --llvm) llvm=${2:?}; shift ;;
    --jobs|-j) jobs=${2:?}; shift ;;
    --timeout) timeout=${2:?}; shift ;;
    --modules) modules=${2:?}; shift ;;
    --no-control) control=0 ;;
    --no-boot) boot=0 ;;
    --dry-run) dry_run=1 ;;
    --report) report=${2:?}; shift ;;
    -h|--help) usage 0 ;;
    *) echo "$prog: unknown argument: $1" >&2; usage ;;
  esac
  shift
done
[[ $llvm =~ ^[0-9]+$ ]] || die "--llvm wants an LLVM major (e.g. 19)"
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout wants whole seconds"

# ---- the base config ----------------------------------------------------------
debian_configs=/usr/src/linux-config-6.1
case $config in
  defconfig) base=defconfig cname=defconfig ;;
  debian)
    src_xz=$debian_configs/config.amd64_none_amd64.xz
    [ -f "$src_xz" ] || die "--config debian: $src_xz not found (apt-get install linux-config-6.1)"
    base=$repo/build/real-config/debian-amd64.config cname=debian
    mkdir -p "$(dirname "$base")"
    xz -dc "$src_xz" > "$base.tmp" && mv "$base.tmp" "$base" ;;
  *)
    [ -f "$config" ] || die "--config $config: neither defconfig, debian nor a file"
    grep -q '^CONFIG_' "$config" || die "--config $config: no CONFIG_ line in it (not a kernel .config)"
    base=$(realpath "$config")
    cname=$(basename "$config"); cname=${cname%.config}; cname=${cname//[^A-Za-z0-9_-]/_} ;;
esac

[ -n "$modules" ] || [ "$config" != debian ] ||
  modules=drivers/block/loop.ko,drivers/block/nbd.ko,drivers/net/dummy.ko,drivers/net/tun.ko,fs/isofs/isofs.ko,fs/squashfs/squashfs.ko,fs/nls/nls_utf8.ko
# The make targets: everything the config builds, or bzImage and the sample.
targets=()
if [ -n "$modules" ]; then
  targets=(--target bzImage)
  if [ "$modules" != none ]; then
    IFS=, read -ra mlist <<<"$modules"
    for m in "${mlist[@]}"; do
      [[ $m == *.ko ]] || die "--modules: '$m' is not a .ko path of the tree (e.g. drivers/block/loop.ko)"
      targets+=(--target "$m")
    done
  fi
fi

# ---- the features ---------------------------------------------------------------
# mapped_fragment CONFIG: the passport symbols that stand for a config's own
# hardening choices: stackleak as KSTACK_ERASE (the series' name, Linux
# 6.17's) with the config's threshold and options, which the series gives
# passport's pass under Clang (LLVM_PASS_STACKLEAK, listed so that
# kernel-build.sh checks it); the other GCC plugins by their LLVM passes with
# the same mode (Kconfig drops the GCC_PLUGIN_* symbols under Clang);
# randstruct's mode as it is (the series routes it to passport under Clang).
# A config may name stackleak's options either way (6.1's STACKLEAK_* or
# 6.17's KSTACK_ERASE_*).
mapped_fragment() {
  local c=$1 v
  echo "# passport's features mapped from $(basename "$c") (scripts/real-config.sh --features config)"
  if grep -qE '^CONFIG_(GCC_PLUGIN_STACKLEAK|KSTACK_ERASE)=y' "$c"; then
    echo "CONFIG_LLVM_PASSES=y"
    echo "CONFIG_KSTACK_ERASE=y"
    echo "CONFIG_LLVM_PASS_STACKLEAK=y"
    v=$(sed -n -E 's/^CONFIG_(STACKLEAK|KSTACK_ERASE)_TRACK_MIN_SIZE=//p' "$c" | tail -n 1)
    echo "CONFIG_KSTACK_ERASE_TRACK_MIN_SIZE=${v:-100}"
    for v in METRICS RUNTIME_DISABLE; do
      grep -qE "^CONFIG_(STACKLEAK|KSTACK_ERASE)_$v=y" "$c" && echo "CONFIG_KSTACK_ERASE_$v=y"
    done
  fi
  for v in USER BYREF BYREF_ALL; do
    grep -q "^CONFIG_GCC_PLUGIN_STRUCTLEAK_$v=y" "$c" &&
      printf 'CONFIG_LLVM_PASSES=y\nCONFIG_LLVM_PASS_STRUCTLEAK_%s=y\n' "$v"
  done
  grep -q '^CONFIG_GCC_PLUGIN_LATENT_ENTROPY=y' "$c" &&
    printf 'CONFIG_LLVM_PASSES=y\nCONFIG_LLVM_PASS_LATENT_ENTROPY=y\n'
  for v in FULL PERFORMANCE; do
    grep -qE "^CONFIG_(GCC_PLUGIN_)?RANDSTRUCT_$v=y" "$c" &&
      printf 'CONFIG_LLVM_PASSES=y\nCONFIG_RANDSTRUCT_%s=y\n' "$v"
  done
  return 0
}
# features_of_fragment TEXT: the feature names a fragment's text turns on
features_of_fragment() {
  local f=()
  grep -q '^CONFIG_KSTACK_ERASE=y' <<<"$1" && f+=(stackleak)
  grep -q '^CONFIG_LLVM_PASS_STRUCTLEAK_[A-Z_]*=y' <<<"$1" && f+=(structleak)
  grep -q '^CONFIG_LLVM_PASS_LATENT_ENTROPY=y' <<<"$1" && f+=(latent-entropy)
  grep -q '^CONFIG_RANDSTRUCT_[A-Z]*=y' <<<"$1" && f+=(randstruct)
  local IFS=,; echo "${f[*]}"
}
frags=(--config real-tests)
if [ "$features" = config ]; then
  [ "$base" != defconfig ] || die "--features config: defconfig has no GCC plugin or randstruct choice to map"
  mapped_text=$(mapped_fragment "$base" | awk '!seen[$0]++')
  features=$(features_of_fragment "$mapped_text")
  [ -n "$features" ] || die "--features config: $config turns on no GCC plugin and no randstruct: nothing to map (name the features)"
  IFS=, read -ra flist <<<"$features"
else
  [ "$features" = all ] && features=stackleak,structleak,latent-entropy,randstruct
  IFS=, read -ra flist <<<"$features"
  for f in "${flist[@]}"; do
    case $f in
      stackleak|structleak|latent-entropy|randstruct) frags+=(--config "llvm-$f") ;;
      *) die "--features: unknown feature '$f' (stackleak, structleak, latent-entropy, randstruct, all, config)" ;;
    esac
  done
fi
fname=$(IFS=+; echo "${flist[*]}")
[ ${#flist[@]} = 4 ] && fname=all

pname=rc-$cname-$fname ctl=rc-$cname-control
report=${report:-$repo/build/real-config/$cname-$fname}
mkdir -p "$report"
report=$(cd "$report" && pwd)
if [ -n "${mapped_text:-}" ]; then
  mapped=$report/mapped.config
  echo "$mapped_text" > "$mapped"
  say "features mapped from $config: $features ($mapped)"
  frags+=(--config "$mapped")
fi
initrd=$repo/build/qemu/initramfs.cpio.gz

# ---- build ----------------------------------------------------------------------
# build NAME ARGS...: scripts/kernel-build.sh with make -j$bjobs, its output
# in REPORT/NAME.build.log
bjobs=$jobs
build() {
  local name=$1; shift
  say "build $name: scripts/kernel-build.sh --name $name --jobs $bjobs $*"
  if ! "$repo/scripts/kernel-build.sh" --name "$name" --jobs "$bjobs" "$@" > "$report/$name.build.log" 2>&1; then
    tail -n 20 "$report/$name.build.log" >&2
    die "building $name failed (log: $report/$name.build.log)"
  fi
  grep -E '\] (build: done|done:)' "$report/$name.build.log" | sed 's/^/  /' >&2
}
# The GCC reference (randstruct's oracle): its fragments and targets.
gref='' gfrags=() gtargets=()
if [[ ",$features," == *,randstruct,* ]]; then
  gref=rc-$cname-$fname-gcc
  # the GCC plugins standing for passport's layout-relevant features:
  # randstruct in the same mode, stackleak (task_struct's fields)
  gfrag=$report/gcc-reference.config
  {
    echo "# the GCC reference of build/kernel/$pname (scripts/real-config.sh)"
    echo "CONFIG_GCC_PLUGINS=y"
    if grep -qs '^CONFIG_RANDSTRUCT_PERFORMANCE=y' "${mapped:-/dev/null}"; then
      echo "CONFIG_RANDSTRUCT_PERFORMANCE=y"
    else
      echo "CONFIG_RANDSTRUCT_FULL=y"
    fi
    if [[ ",$features," == *,stackleak,* ]]; then
      echo "CONFIG_KSTACK_ERASE=y"
      echo "CONFIG_GCC_PLUGIN_STACKLEAK=y"
      # KSTACK_ERASE_METRICS adds a task_struct field: the same options as passport's
      grep -h '^CONFIG_KSTACK_ERASE_' "${mapped:-$repo/qemu/configs/llvm-stackleak.config}"
    fi
  } > "$gfrag"
  gfrags=(--config real-tests --config "$gfrag")
  while read -r tu; do gtargets+=(--target "${tu%.c}.o"); done \
    < <(python3 "$repo/analysis/randstruct-probe.py" --print-tus)
fi
if [ $dry_run = 1 ]; then
  echo "features: $features"
  echo "passport: $pname: clang-$llvm, patched tree, --base $base ${frags[*]} ${targets[*]}"
  [ $control = 0 ] || echo "control: $ctl: clang-$llvm, unpatched tree, --base $base --config real-tests ${targets[*]}"
  [ -z "$gref" ] || echo "gcc-reference: $gref: gcc-12, patched tree, --base $base ${gfrags[*]} ${gtargets[*]}"
  [ -z "${mapped:-}" ] || sed 's/^/mapped: /' "$mapped"
  echo "report: $report"
  exit 0
fi

"$repo/kernel-patches/apply.sh" >&2 || die "kernel-patches/apply.sh failed"
build_passport() { build "$pname" --cc "clang-$llvm" --patched --base "$base" "${frags[@]}" "${targets[@]}"; }
build_control() { build "$ctl" --cc "clang-$llvm" --base "$base" --config real-tests "${targets[@]}"; }
# Build time is compared between from-scratch builds that ran side by side
# only: on this kind of machine CPU time swings by a fifth between runs, and
# a ratio taken at one time under one load is what holds. So when neither
# kernel is built yet, both build at once, each with half the jobs;
# otherwise one after the other (an up-to-date kernel costs seconds).
built() { [ -f "$repo/build/kernel/$1/arch/x86/boot/bzImage" ]; }
if [ $control = 1 ] && ! built "$pname" && ! built "$ctl"; then
  bjobs=$(( jobs / 2 > 0 ? jobs / 2 : 1 ))
  say "neither kernel is built: building both side by side, make -j$bjobs each, compiling every object (ccache recache)"
  # both compile everything, however warm the cache: a measurement, not a
  # reuse (ccache still stores the results for the next incremental run)
  export CCACHE_RECACHE=1
  # the control in a process group of its own (set -m), so that a failed
  # or interrupted passport build takes the control's make down with it
  set -m; build_control & cpid=$!; set +m
  trap 'kill -- -$cpid 2>/dev/null' EXIT
  build_passport
  wait $cpid || die "building $ctl failed (log: $report/$ctl.build.log)"
  trap - EXIT
  bjobs=$jobs; unset CCACHE_RECACHE
else
  build_passport
  [ $control = 0 ] || build_control
fi
# randstruct's oracle: the GCC plugin on the same config and seed, compiling
# only the translation units the probe compares (minutes, not an hour)
[ -z "$gref" ] || build "$gref" --cc gcc-12 --patched --base "$base" "${gfrags[@]}" "${gtargets[@]}"

# ---- boot -----------------------------------------------------------------------
# boot NAME ROLE: one boot with every built-in KUnit suite, LKDTM
# STACKLEAK_ERASING, the latent_entropy check and the kernel's built modules
# loaded in name order (qemu/add-modules.sh puts them under /modules); the
# log is REPORT/ROLE.boot.log
boot() {
  local name=$1 role=$2 out=$repo/build/kernel/$1 rd=$initrd run=lkdtm-stackleak,latent-entropy kos=()
  mapfile -t kos < <(find "$out" -name '*.ko' -not -path "$out/scripts/*" | sort)
  # --modules none: no /modules, so no modules action (it fails on an empty one)
  if [ ${#kos[@]} -gt 0 ]; then
    rd=$report/$role.initrd.cpio.gz run+=,modules
    "$repo/qemu/add-modules.sh" "$initrd" "$rd" "${kos[@]}" >&2 || die "qemu/add-modules.sh failed"
  fi
  say "boot $name (${#kos[@]} modules in the initramfs)"
  "$repo/qemu/boot.sh" --kernel "$repo/build/kernel/$name/arch/x86/boot/bzImage" --initrd "$rd" \
    --timeout "$timeout" --run "$run" --log "$report/$role.boot.log" >&2 \
    || say "boot $name: did not reach the end (the report says what is missing)"
}
if [ $boot = 1 ]; then
  "$repo/qemu/mkinitramfs.sh" "$initrd" >&2 || die "qemu/mkinitramfs.sh failed"
  boot "$pname" passport
  [ $control = 0 ] || boot "$ctl" control
fi

# ---- report ---------------------------------------------------------------------
args=(--passport "$repo/build/kernel/$pname" --features "$features" --config-name "$config" --out "$report")
[ $control = 0 ] || args+=(--control "$repo/build/kernel/$ctl")
[ $boot = 1 ] || args+=(--no-boot)
[ -z "$gref" ] || args+=(--gcc-reference "$repo/build/kernel/$gref")
exec python3 "$repo/scripts/real-config-report.py" "${args[@]}"
}
