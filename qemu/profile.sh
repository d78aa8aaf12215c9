#!/usr/bin/env bash
# Profile one benchmark op in the guest: the instructions each kernel
# function executes per call, counted by QEMU itself.
#
# usage: qemu/profile.sh --kernel NAME [--op OP] [--calls N] [--out DIR]
#            [--timeout S] [--keep-log]
#
#   --kernel NAME  a built kernel, build/kernel/NAME (bzImage and vmlinux)
#   --op OP        a benchmark op of bench/guest-bench.c: getpid, uname, poll,
#                  select, procfs, fork (default fork)
#   --calls N      calls of OP in the window (default 20)
#   --out DIR      where the results go (default build/profile/NAME-OP)
#   --timeout S    QEMU timeout (default 900)
#   --keep-log     keep QEMU's log (DIR/qemu.log, hundreds of MB)
#
# How: one TCG boot with -icount, nokaslr (so vmlinux's addresses are
# the running ones), norandmaps (user-space layout fixed, as in ./passport
# compare's boots: otherwise how many page-table pages a fork copies
# varies from boot to boot) and QEMU's log of every translation block
# (-d in_asm, nochain: blocks never chain, so each execution passes
# QEMU's loop). The
# benchmark (passport.bench_profile=OP) prints "profile start", sleeps, and
# then runs the window between two getppid() calls; this script switches
# QEMU's execution log on through the monitor when it reads "profile
# start" on the serial console, and off at "profile stop".
# analysis/exec-profile.py then charges every block execution in the
# window to its function. Compare two kernels with
#   analysis/exec-profile.py diff DIR_A/profile.tsv DIR_B/profile.tsv
#
# Output: DIR/profile.tsv (analysis/exec-profile.py read's), DIR/serial.log.
# Exit status 0 when the boot finished and the window was found.
set -euo pipefail
{ # the whole script is parsed before it runs: editing it does not disturb a running copy

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=profile
usage() { sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "$prog: error: $*" >&2; exit 1; }

name='' op=fork calls=20 out='' timeout=900 keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --kernel) name=${2:?}; shift ;;
    --op) op=${2:?}; shift ;;
    --calls) calls=${2:?}; shift ;;
    --out) out=${2:?}; shift ;;
    --timeout) timeout=${2:?}; shift ;;
    --keep-log) keep=1 ;;
    -h|--help) usage ;;
    *) echo "$prog: unknown argument: $1" >&2; usage ;;
  esac
  shift
done
[ -n "$name" ] || usage
[[ $calls =~ ^[1-9][0-9]*$ ]] || die "--calls wants a positive number"
# The ops are guest-bench.c's table: one '{ "NAME", op_NAME, ...' line each.
ops=$(sed -n 's/^[[:space:]]*{ "\([a-z]*\)", op_.*/\1/p' "$repo/bench/guest-bench.c" | tr '\n' ' ')
case " $ops" in *" $op "*) ;; *) die "--op: no benchmark op '$op' (bench/guest-bench.c has: ${ops% })" ;; esac
kdir=$repo/build/kernel/$name
[ -f "$kdir/arch/x86/boot/bzImage" ] && [ -f "$kdir/vmlinux" ] ||
  die "build/kernel/$name has no bzImage and vmlinux (scripts/kernel-build.sh --kernel $name)"
out=${out:-$repo/build/profile/$name-$op}
mkdir -p "$out"
rm -f "$out"/{qemu.log,serial.log,profile.tsv,monitor.sock}
initrd=$repo/build/qemu/initramfs.cpio.gz
"$repo/qemu/mkinitramfs.sh" "$initrd" >/dev/null || die "qemu/mkinitramfs.sh failed"

# monitor CMD: one command to QEMU's human monitor
monitor() {
  python3 - "$out/monitor.sock" "$1" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(2)
s.recv(4096)                       # the greeting and prompt
s.sendall(sys.argv[2].encode() + b"\n")
time.sleep(0.2)
s.recv(4096)
s.close()
EOF
}

"$repo/qemu/boot.sh" --kernel "$kdir/arch/x86/boot/bzImage" --initrd "$initrd" --icount \
  --run bench --append "nokaslr norandmaps passport.bench_profile=$op passport.bench_calls=$calls" \
  --timeout "$timeout" --log "$out/serial.log" --monitor "$out/monitor.sock" \
  --qemu-arg -d --qemu-arg in_asm,nochain --qemu-arg -D --qemu-arg "$out/qemu.log" &
boot=$!
state=off
while kill -0 $boot 2>/dev/null; do
  if [ $state = off ] && grep -q 'passport: bench: profile start' "$out/serial.log" 2>/dev/null; then
    monitor "log in_asm,exec,nochain" || die "the QEMU monitor did not answer"
    state=on
  elif [ $state = on ] && grep -q 'passport: bench: profile stop' "$out/serial.log" 2>/dev/null; then
    monitor "log in_asm,nochain" || true
    state=done
  fi
  sleep 0.1
done
rc=0
wait $boot || rc=$?
[ $rc = 0 ] || die "the boot failed (rc $rc; $out/serial.log)"
[ $state = done ] || die "no profile window on the console ($out/serial.log)"
"$repo/analysis/exec-profile.py" read --vmlinux "$kdir/vmlinux" --calls "$calls" "$out/qemu.log" \
  > "$out/profile.tsv" || die "analysis/exec-profile.py failed on $out/qemu.log"
[ $keep = 1 ] || rm -f "$out/qemu.log"
echo "$prog: $name $op: $(sed -n 's/^# instructions per call: \([0-9.]*\).*/\1/p' "$out/profile.tsv") instructions per call ($out/profile.tsv)"
exit
}
