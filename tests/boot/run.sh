#!/usr/bin/env bash
# Boot tests: build (or reuse) the kernels of tests/boot/kernels.txt, boot
# each in QEMU with qemu/init.c as PID 1, and assert the in-guest verdicts
# from the serial logs.
#
# usage: tests/boot/run.sh [--kernels FILE] [--only NAME[,NAME...]] [--reuse]
#            [--jobs N] [--timeout S]
#
#   --kernels FILE  kernel list (default tests/boot/kernels.txt)
#   --only NAMES    run only these kernels
#   --reuse         do not call kernel-build.sh when the bzImage exists
#                   (default: call it; make is incremental, a no-op rebuild
#                   costs tens of seconds)
#   --jobs N        make -jN (default: nproc)
#   --timeout S     per-boot QEMU timeout (default 300)
#
# Output: one "PASS: NAME: CHECK ..." or "FAIL: NAME: CHECK ..." line per
# check, then "N passed, N failed". Exit status 0 only if nothing failed.
# Logs: build/boot-tests/NAME.{build,boot,off}.log
set -uo pipefail
{ # the whole script is parsed before it runs: editing it does not disturb a running copy

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kernels=$repo/tests/boot/kernels.txt
only='' reuse=0 jobs=$(nproc) timeout=300
while [ $# -gt 0 ]; do
  case $1 in
    --kernels) kernels=${2:?}; shift ;;
    --only) only=${2:?}; shift ;;
    --reuse) reuse=1 ;;
    --jobs|-j) jobs=${2:?}; shift ;;
    --timeout) timeout=${2:?}; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
[ -f "$kernels" ] || { echo "run.sh: $kernels not found" >&2; exit 2; }

logdir=$repo/build/boot-tests
mkdir -p "$logdir"
initrd=$repo/build/qemu/initramfs.cpio.gz
passed=0 failed=0

pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() {  # check NAME WHAT CONDITION-STATUS DETAIL
  if [ "$3" = 0 ]; then pass "$1: $2${4:+ ($4)}"; else fail "$1: $2${4:+ ($4)}"; fi
}

if ! "$repo/qemu/mkinitramfs.sh" "$initrd"; then
  fail "initramfs: qemu/mkinitramfs.sh"
  echo "$passed passed, $failed failed"
  exit 1
fi

# The "poisoned: N bytes" values of the LKDTM runs in a log, on one line.
poisoned() {
  grep -a -o 'poisoned: *[0-9]*' "$1" | grep -o '[0-9]*$' | paste -sd' '
}

# verdicts NAME CHECKS BOOTLOG OFFLOG OUTDIR
verdicts() {
  local name=$1 checks=$2 log=$3 off=$4 out=$5 c n detail
  local IFS=,
  for c in $checks; do
    IFS=$' \t\n'
    case $c in
      stackleak)
        n=$(grep -ac 'lkdtm: OK: the rest of the thread stack is properly erased' "$log")
        local nfail
        nfail=$(grep -acE 'lkdtm: .*FAIL|XFAIL: stackleak' "$log")
        check "$name" "stackleak: LKDTM STACKLEAK_ERASING OK before and after stack-heavy syscalls" \
          "$([ "$n" = 2 ] && [ "$nfail" = 0 ]; echo $?)" "$n OK lines, $nfail FAIL/XFAIL lines"
        # The stack-heavy syscalls' residue was erased on their return: the
        # second run sees at least as many poisoned bytes as the first.
        local q1 q2
        read -r q1 q2 < <(poisoned "$log")
        check "$name" "stackleak: stack re-poisoned after stack-heavy syscalls" \
          "$([ -n "$q1" ] && [ -n "$q2" ] && [ "$q2" -ge "$q1" ]; echo $?)" "poisoned bytes before/after: ${q1:-?}/${q2:-?}"
        n=$(grep -ac '^passport: stack_depth: ' "$log")
        check "$name" "stackleak: /proc/self/stack_depth readable" "$([ "$n" -ge 1 ]; echo $?)" \
          "$(grep -a '^passport: stack_depth: ' "$log" | sed 's/^passport: stack_depth: //' | paste -sd';' | tr -s ' ')"
        ;;
      stackleak-off)
        # With erasing off the deep syscalls' residue stays: fewer poisoned
        # bytes at the second LKDTM run than at the first. (LKDTM itself still
        # says OK: below lowest_stack the stack was never used.)
        local p1 p2
        read -r p1 p2 < <(poisoned "$off")
        grep -aq 'stackleak: kernel stack erasing is disabled' "$off" \
          && [ -n "$p1" ] && [ -n "$p2" ] && [ "$p2" -lt "$p1" ]
        check "$name" "stackleak-off: with stack_erasing=0 the stack-heavy syscalls leave residue" "$?" \
          "poisoned bytes before/after: ${p1:-?}/${p2:-?}"
        ;;
      latent-entropy)
        detail=$(grep -a -m1 'passport: latent-entropy: latent_entropy at' "$log" | sed 's/^passport: latent-entropy: //')
        grep -aq 'passport: latent-entropy: latent_entropy at .*: changed$' "$log"
        check "$name" "latent-entropy: latent_entropy changes across fork()" "$?" \
          "${detail:-$(grep -a -m1 'passport: latent-entropy:' "$log" || echo 'no latent-entropy line')}"
        ;;
      autoinit=*)
        detail=$(grep -a -m1 -o 'mem auto-init: .*' "$log" | tr -d '\r')
        [[ $detail == "mem auto-init: stack:${c#autoinit=},"* ]]
        check "$name" "autoinit: mem auto-init stack:${c#autoinit=}" "$?" "${detail:-no mem auto-init line}"
        ;;
      stackinit=*)
        local want=${c#stackinit=} summary p s f
        summary=$(grep -a -m1 -o '# stackinit: pass:[0-9]* fail:[0-9]* skip:[0-9]* total:[0-9]*' "$log")
        p=$(sed -n 's/.*pass:\([0-9]*\).*/\1/p' <<<"$summary")
        f=$(sed -n 's/.*fail:\([0-9]*\).*/\1/p' <<<"$summary")
        s=$(sed -n 's/.*skip:\([0-9]*\).*/\1/p' <<<"$summary")
        n=$(grep -acE '^\s*(\[[ 0-9.]*\] )?\s*not ok ' "$log")
        grep -aqE 'ok 1 stackinit$' "$log" && ! grep -aqE 'not ok 1 stackinit' "$log" \
          && [ "$n" = 0 ] && [ "$f" = 0 ] && [ "$p/$s" = "$want" ]
        check "$name" "stackinit: KUnit stackinit ok, pass/skip = $want" "$?" \
          "${summary:-no stackinit summary}; $n 'not ok' lines"
        ;;
      randstruct-seed)
        local seed hash got
        seed=$(tr -d ' \n' < "$repo/gcc-plugins/test.seed")
        hash=$(echo -n "$seed" | sha256sum | cut -d' ' -f1)
        got=$(sed -n 's/.*RANDSTRUCT_HASHED_SEED "\(.*\)"/\1/p' "$out/include/generated/randstruct_hash.h" 2>/dev/null)
        [ "$(tr -d ' \n' < "$out/scripts/basic/randstruct.seed" 2>/dev/null)" = "$seed" ] && [ "$got" = "$hash" ] \
          && grep -q '^CONFIG_RANDSTRUCT_FULL=y' "$out/.config"
        check "$name" "randstruct-seed: RANDSTRUCT_FULL with the fixed seed gcc-plugins/test.seed" "$?" "hash ${got:-missing}"
        ;;
      stackleak-absent)
        grep -aq 'lkdtm: XFAIL: stackleak is not enabled' "$log" \
          && ! grep -aq 'lkdtm: OK: the rest of the thread stack' "$log"
        check "$name" "stackleak-absent: LKDTM reports stackleak not enabled" "$?" \
          "$(grep -a -m1 -o 'lkdtm: .*stackleak.*' "$log" || echo 'no LKDTM stackleak line')"
        ;;
      latent-entropy-absent)
        grep -aq 'passport: latent-entropy: symbol latent_entropy not in /proc/kallsyms' "$log"
        check "$name" "latent-entropy-absent: no latent_entropy symbol" "$?" \
          "$(grep -a -m1 '^passport: latent-entropy:' "$log" | sed 's/^passport: //' || true)"
        ;;
      *) fail "$name: unknown check '$c' in $kernels" ;;
    esac
    IFS=,
  done
}

while read -r name cc tree frags checks rest; do
  case $name in ''|'#'*) continue ;; esac
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
  if [ -z "$checks" ] || [ -n "$rest" ]; then
    fail "$name: malformed line in $kernels"; continue
  fi
  out=$repo/build/kernel/$name
  bz=$out/arch/x86/boot/bzImage
  args=(--name "$name" --cc "$cc" --jobs "$jobs")
  case $tree in
    plain) ;;
    patched)
      # The series applied to a fresh tree (a no-op when it already is).
      "$repo/kernel-patches/apply.sh" || { fail "$name: kernel-patches/apply.sh failed"; continue; }
      args+=(--patched) ;;
    *) fail "$name: tree must be plain or patched, not '$tree'"; continue ;;
  esac
  IFS=, read -ra fl <<<"$frags"
  for f in "${fl[@]}"; do args+=(--config "$f"); done

  if [ $reuse = 1 ] && [ -f "$bz" ]; then
    echo "== $name: reusing $bz"
  else
    echo "== $name: scripts/kernel-build.sh ${args[*]}"
    if ! "$repo/scripts/kernel-build.sh" "${args[@]}" 2>&1 | tee "$logdir/$name.build.log" | grep -E '\] (configure: all|build: done|instrumentation|done:)|error'; then :; fi
    if [ "${PIPESTATUS[0]}" != 0 ] || [ ! -f "$bz" ]; then
      fail "$name: build (log: $logdir/$name.build.log)"
      continue
    fi
  fi
  pass "$name: build ($(grep -v '^#' "$out/instrumentation.txt" 2>/dev/null | paste -sd' '))"

  log=$logdir/$name.boot.log off=$logdir/$name.off.log
  actions=lkdtm-stackleak,latent-entropy
  [[ ",$checks," != *",stackleak,"* ]] || actions=lkdtm-stackleak,stack-depth,latent-entropy
  if "$repo/qemu/boot.sh" --kernel "$bz" --initrd "$initrd" --timeout "$timeout" \
       --run "$actions" --append 'kunit.filter_glob=stackinit' --log "$log"; then
    pass "$name: boot"
  else
    fail "$name: boot (log: $log)"
  fi
  : > "$off"
  if [[ ",$checks," == *",stackleak-off,"* ]]; then
    if "$repo/qemu/boot.sh" --kernel "$bz" --initrd "$initrd" --timeout "$timeout" \
         --run stack-erasing-off,lkdtm-stackleak,stack-erasing-on --append 'kunit.filter_glob=none' --log "$off"; then
      pass "$name: boot with stack_erasing=0"
    else
      fail "$name: boot with stack_erasing=0 (log: $off)"
    fi
  fi
  verdicts "$name" "$checks" "$log" "$off" "$out"
done < "$kernels"

echo "$passed passed, $failed failed"
[ $failed = 0 ]
exit
}
