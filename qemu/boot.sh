#!/usr/bin/env bash
# Boot a passport test kernel in QEMU and run init actions.
#
# usage: qemu/boot.sh --kernel BZIMAGE --initrd CPIO --run ACTIONS --log FILE
#            [--append EXTRA] [--timeout S] [--icount] [--accel auto|tcg|kvm]
#            [--monitor SOCKET] [--qemu-arg ARG...]
#
#   --run ACTIONS  comma-separated init actions (qemu/init.c), passed as
#                  passport.run=ACTIONS; may be empty
#   --append EXTRA more kernel command-line parameters
#   --timeout S    kill QEMU after S seconds (default 300) and fail
#   --icount       deterministic guest time: -icount shift=0 and
#                  tsc_early_khz=1000000 (TCG only)
#   --accel A      auto (default): KVM only if a probe boot with -enable-kvm
#                  finishes within 20 s (the result is cached in
#                  build/qemu/kvm-probe.txt; delete it to probe again), else TCG
#   --log FILE     the serial console log
#   --monitor SOCKET  QEMU's human monitor on this Unix socket (default: no
#                  monitor), e.g. to switch QEMU's logging during the boot
#                  (qemu/profile.sh)
#   --qemu-arg ARG one more QEMU argument (repeatable), e.g. -d and -D
#
# Exit status: 0 when the guest's init printed "passport: done: 0 action(s)
# failed" and QEMU exited; 1 on timeout, a QEMU error, a failed or unknown
# action, or a guest that never reached the end (e.g. a kernel panic, which
# with panic=-1 and -no-reboot also exits QEMU).
set -euo pipefail
{ # the whole script is parsed before it runs: editing it does not disturb a running copy

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=boot
usage() { sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "$prog: error: $*" >&2; exit 1; }

kernel='' initrd='' run='' run_set=0 append='' timeout=300 icount=0 log='' accel=auto
monitor=none qemu_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --kernel) kernel=${2:?}; shift ;;
    --initrd) initrd=${2:?}; shift ;;
    --run) run=${2?}; run_set=1; shift ;;
    --append) append=${2?}; shift ;;
    --timeout) timeout=${2:?}; shift ;;
    --icount) icount=1 ;;
    --accel) accel=${2:?}; shift ;;
    --log) log=${2:?}; shift ;;
    --monitor) monitor=unix:${2:?},server,nowait; shift ;;
    --qemu-arg) qemu_args+=("${2:?}"); shift ;;
    -h|--help) usage ;;
    *) echo "$prog: unknown argument: $1" >&2; usage ;;
  esac
  shift
done
[ -n "$kernel" ] && [ -n "$initrd" ] && [ -n "$log" ] && [ $run_set = 1 ] || usage
[ -f "$kernel" ] || die "kernel $kernel not found"
[ -f "$initrd" ] || die "initrd $initrd not found"
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout wants whole seconds"
case $accel in auto|tcg|kvm) ;; *) die "--accel: auto, tcg or kvm" ;; esac
qemu=${QEMU:-qemu-system-x86_64}
command -v "$qemu" >/dev/null || die "$qemu not found (apt-get install qemu-system-x86)"
mkdir -p "$(dirname "$log")"

# run_qemu LOG TIMEOUT ACCEL-ARGS... -- CMDLINE
run_qemu() {
  local qlog=$1 t=$2; shift 2
  local args=()
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  timeout -k 5 "$t" "$qemu" -m 512 -nodefaults -display none -no-reboot \
    -monitor "$monitor" -serial "file:$qlog" "${qemu_args[@]}" "${args[@]}" \
    -kernel "$kernel" -initrd "$initrd" -append "$*" </dev/null
}

# ---- KVM probe (cached) -----------------------------------------------------
probe=$repo/build/qemu/kvm-probe.txt
use_kvm=0
if [ $accel = kvm ]; then
  use_kvm=1
elif [ $accel = auto ] && [ $icount = 0 ]; then
  if [ ! -f "$probe" ]; then
    mkdir -p "$(dirname "$probe")"
    result=tcg reason="/dev/kvm not usable"
    if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
      plog=$(mktemp)
      if run_qemu "$plog" 20 -enable-kvm -cpu host -- console=ttyS0 panic=-1 passport.run= >/dev/null 2>&1 \
         && grep -q 'passport: done' "$plog"; then
        result=kvm reason="probe boot with -enable-kvm -cpu host finished"
      else
        reason="probe boot with -enable-kvm -cpu host did not finish within 20 s ($(grep -a -m1 -iE 'error|fail' "$plog" 2>/dev/null || echo 'no output'))"
      fi
      rm -f "$plog"
    fi
    # written whole, then renamed: a boot started beside this one reads it
    printf '%s\n# %s (%s)\n' "$result" "$reason" "$(date -u +%FT%TZ)" > "$probe.$$"
    mv "$probe.$$" "$probe"
    echo "$prog: KVM probe: $result: $reason (cached in $probe)"
  fi
  [ "$(head -n1 "$probe")" = kvm ] && use_kvm=1
fi

accel_args=()
if [ $use_kvm = 1 ]; then
  accel_args=(-enable-kvm -cpu host)
  accel_name=kvm
else
  accel_args=(-accel tcg)
  accel_name=tcg
fi
cmdline="console=ttyS0 panic=-1 passport.run=$run"
if [ $icount = 1 ]; then
  [ $use_kvm = 0 ] || die "--icount needs TCG"
  accel_args+=(-icount shift=0)
  cmdline+=" tsc_early_khz=1000000"
  accel_name+="+icount"
fi
[ -z "$append" ] || cmdline+=" $append"

echo "$prog: $(basename "$kernel") ($accel_name) run=$run timeout=${timeout}s"
t0=$(date +%s.%N)
rc=0
qerr=$(mktemp)
run_qemu "$log" "$timeout" "${accel_args[@]}" -- $cmdline 2>"$qerr" || rc=$?
t1=$(date +%s.%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
# The serial console writes CRLF line ends; keep the log as plain text.
[ ! -f "$log" ] || sed -i 's/\r$//' "$log"
if [ -s "$qerr" ]; then sed 's/^/qemu: /' "$qerr" >&2; fi
rm -f "$qerr"
if [ $rc = 124 ] || [ $rc = 137 ]; then
  echo "$prog: TIMEOUT: QEMU killed after ${timeout}s; log: $log" >&2
  exit 1
elif [ $rc != 0 ]; then
  echo "$prog: FAILED: QEMU exited with status $rc after ${secs}s; log: $log" >&2
  exit 1
elif ! grep -aq '^passport: done' "$log"; then
  echo "$prog: FAILED: the guest did not reach 'passport: done' ($(grep -a -m1 -E 'Kernel panic|BUG:|Oops' "$log" || echo 'no panic line')); ${secs}s; log: $log" >&2
  exit 1
fi
nf=$(sed -n 's/^passport: done: \([0-9]*\) action(s) failed.*/\1/p' "$log" | tail -n1)
if [ "${nf:-0}" != 0 ]; then
  echo "$prog: FAILED: $nf init action(s) failed ($(grep -a '^passport: end .* rc=[1-9]' "$log" | sed 's/^passport: end //' | paste -sd' ')); ${secs}s; log: $log" >&2
  exit 1
fi
echo "$prog: ok in ${secs}s; log: $log"
exit
}
