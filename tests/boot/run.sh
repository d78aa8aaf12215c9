#!/usr/bin/env bash
# Boot tests: build (or reuse) the kernels of qemu/kernels.txt, boot
# each in QEMU with qemu/init.c as PID 1, and assert the in-guest verdicts
# from the serial logs.
#
# usage: tests/boot/run.sh [--kernels FILE] [--all | --only NAME[,NAME...]]
#            [--reuse | --build-only] [--jobs N] [--timeout S] [--no-oot]
#
#   --kernels FILE  kernel list (default qemu/kernels.txt)
#   (default)       the kernels of tier ci (what ./passport test runs)
#   --all           every kernel of the list, tier extra too
#   --only NAMES    run only these kernels, whatever their tier
#   --reuse         do not call kernel-build.sh when the bzImage exists
#                   (default: call it; make is incremental, a no-op rebuild
#                   costs tens of seconds)
#   --build-only    build the kernels (and check that they built), nothing
#                   else: ctest's kernel-NAME entries, so that a kernel
#                   compiles while another boots; boot-NAME then runs with
#                   --reuse
#   --jobs N        make -jN (default: nproc)
#   --timeout S     per-boot QEMU timeout (default 300)
#   --no-oot        skip the out-of-tree module tests (tests/boot/oot-modules.sh,
#                   run after all kernels when --only is not given; with
#                   --all, its cases against extra kernels too)
#
# Output: one "PASS: NAME: CHECK ..." or "FAIL: NAME: CHECK ..." line per
# check, a "== NAME: done in Ns" line after each kernel, then a recap (the
# time each kernel took and every FAIL line again, so that a log cut in
# the middle still names them) and "N passed, N failed". Exit status 0
# only if nothing failed.
# Logs: build/boot-tests/NAME.{build,boot,off}.log
set -uo pipefail
{ # the whole script is parsed before it runs: editing it does not disturb a running copy

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kernels=$repo/qemu/kernels.txt
only='' all=0 reuse=0 build_only=0 jobs=$(nproc) timeout=300 oot=1
while [ $# -gt 0 ]; do
  case $1 in
    --kernels) kernels=${2:?}; shift ;;
    --only) only=${2:?}; shift ;;
    --all) all=1 ;;
    --reuse) reuse=1 ;;
    --build-only) build_only=1 oot=0 ;;
    --no-oot) oot=0 ;;
    --jobs|-j) jobs=${2:?}; shift ;;
    --timeout) timeout=${2:?}; shift ;;
    -h|--help) sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
[ -f "$kernels" ] || { echo "run.sh: $kernels not found" >&2; exit 2; }

logdir=$repo/build/boot-tests
mkdir -p "$logdir"
initrd=$repo/build/qemu/initramfs.cpio.gz
passed=0

failures=() timings=()  # every FAIL line (their count is the failures), "NAME Ns" per kernel
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failures+=("FAIL: $*"); }
check() {  # check NAME WHAT CONDITION-STATUS DETAIL
  if [ "$3" = 0 ]; then pass "$1: $2${4:+ ($4)}"; else fail "$1: $2${4:+ ($4)}"; fi
}

if [ $build_only = 0 ] && ! "$repo/qemu/mkinitramfs.sh" "$initrd"; then
  fail "initramfs: qemu/mkinitramfs.sh"
  echo "$passed passed, ${#failures[@]} failed"
  exit 1
fi

# The "poisoned: N bytes" values of the LKDTM runs in a log, on one line.
poisoned() {
  grep -a -o 'poisoned: *[0-9]*' "$1" | grep -o '[0-9]*$' | paste -sd' '
}

# The warning lines of a kernel's from-scratch build (compiler, objtool,
# linker, modpost), one per line: the rule of analysis/kfacts.py's
# build_warnings(), which the Python checks use.
build_warnings() {
  grep -aiE '(^|[ :])warning:' "$1/build-full.log"
}

# The functions of the first stack trace in a log ("Call Trace:" up to
# "</TASK>"), one per line, "? " kept in front of the unreliable ones.
trace_functions() {
  sed -n '/Call Trace:/,/<\/TASK>/p' "$1" | sed 's/^.*\] *//' | grep -v -e 'Call Trace:' -e '<' \
    | sed -n 's/^\(? \)\{0,1\}\([A-Za-z0-9_.]*\)+0x.*/\1\2/p' | awk '!seen[$0]++'
}

# The stackinit KUnit cases of a log as "ok|not ok NAME [SKIP]", in order.
stackinit_cases() {
  sed -n 's/^.*\] *\(\(not \)\{0,1\}ok\) [0-9]* \(test_[a-z0-9_]*\)\( # SKIP\)\{0,1\}.*$/\1 \3\4/p' "$1"
}

# static CHECKER ARGS...: run an analysis/*.py static check on a built
# kernel, counting its PASS:/FAIL: lines (FAIL-DETAIL: lines are evidence).
static() {
  local out rc line
  out=$("$repo/analysis/$1" "${@:2}" 2>&1); rc=$?
  while IFS= read -r line; do
    case $line in
      PASS:*) echo "$line"; passed=$((passed + 1)) ;;
      FAIL:*) echo "$line"; failures+=("$line") ;;
      FAIL-DETAIL:*) echo "  $line" ;;
    esac
  done <<<"$out"
  if [ $rc != 0 ] && ! grep -q '^FAIL:' <<<"$out"; then
    fail "$1 ${*:2}: exit $rc: $(tail -n 3 <<<"$out" | paste -sd' ')"
  fi
}

# coverage_agrees NAME OUT: ./passport compare's report judges stackleak
# coverage from bench/collect.py's per-function table; that table must name
# the same tracked and untracked functions as stackleak-coverage.py (one
# rule, analysis/kfacts.py, on this vmlinux).
coverage_agrees() {
  local name=$1 out=$2 tsv=$logdir/$1.static.tsv
  if ! python3 "$repo/bench/collect.py" static "$out" "$tsv" > "$logdir/$name.static.log" 2>&1; then
    fail "$name: coverage-agrees: bench/collect.py static failed ($logdir/$name.static.log)"; return
  fi
  local t_tab t_cov u_tab u_cov
  t_tab=$(awk -F'\t' '!/^#/ && $4 == 1 { print $1 }' "$tsv" | sort -u)
  t_cov=$(awk '{ print $1 }' "$out/stackleak-tracked.txt" | sort -u)
  u_tab=$(awk -F'\t' '!/^#/ && $9 == 1 { print $1 }' "$tsv" | sort -u)
  u_cov=$(awk '{ print $1 }' "$out/stackleak-untracked.txt" | sort -u)
  check "$name" "coverage-agrees: the report's table and stackleak-coverage name the same tracked and untracked functions" \
    "$([ "$t_tab" = "$t_cov" ] && [ "$u_tab" = "$u_cov" ]; echo $?)" \
    "tracked $(grep -c . <<<"$t_tab") vs $(grep -c . <<<"$t_cov"), untracked $(grep -c . <<<"$u_tab") vs $(grep -c . <<<"$u_cov")$(
      [ "$t_tab" = "$t_cov" ] || echo "; tracked differ: $(comm -3 <(echo "$t_tab") <(echo "$t_cov") | head -n 5 | paste -sd' ')")"
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
      latent-entropy-boots)
        # Two boots of the same kernel start init with different values, and
        # neither is the compile-time initialiser in vmlinux: the boot's
        # __latent_entropy initcalls changed it.
        local b1 b2 addr init
        b1=$(grep -a -m1 -o 'latent_entropy at 0x[0-9a-f]*: before=0x[0-9a-f]*' "$log" | sed 's/.*before=//')
        b2=$(grep -a -m1 -o 'latent_entropy at 0x[0-9a-f]*: before=0x[0-9a-f]*' "$off" | sed 's/.*before=//')
        addr=$(nm "$out/vmlinux" | awk '$3 == "latent_entropy" { print $1 }')
        init=$(objdump -s --start-address=0x$addr --stop-address=$(printf '0x%x' $((0x$addr + 8))) "$out/vmlinux" 2>/dev/null \
               | awk '/^ [0-9a-f]+ / { print $2 $3 }' | head -n 1 | sed 's/\(..\)/\1 /g' | awk '{ for (i = NF; i; i--) printf "%s", $i }')
        [ -n "$b1" ] && [ -n "$b2" ] && [ -n "$init" ] && [ "$b1" != "$b2" ] \
          && [ "$b1" != "0x$init" ] && [ "$b2" != "0x$init" ]
        check "$name" "latent-entropy-boots: differs between two boots and from its initialiser after the initcalls" "$?" \
          "vmlinux initialiser 0x${init:-?}, boot 1 ${b1:-?}, boot 2 ${b2:-?}"
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
      stackinit-as=*)
        # Per-case KUnit results ("ok N name" / "ok N name # SKIP ...") equal
        # those of the reference kernel's boot log.
        local ref=${c#stackinit-as=} rlog diffs
        rlog=$logdir/$ref.boot.log
        if [ -s "$rlog" ]; then
          diffs=$(diff <(stackinit_cases "$rlog") <(stackinit_cases "$log") | grep -c '^[<>]')
          [ "$(stackinit_cases "$log" | wc -l)" -gt 0 ] && [ "$diffs" = 0 ]
          check "$name" "stackinit-as: per-case results equal $ref's" "$?" \
            "$(stackinit_cases "$log" | wc -l) cases, $diffs differing lines"
        else
          fail "$name: stackinit-as: no boot log of $ref (run it first, in the same run.sh call)"
        fi
        ;;
      config-other-tree)
        # The same fragments configured on the other tree (plain <-> patched):
        # the series may only add the toolchain-neutral symbols it derives
        # from a GCC plugin option (KSTACK_ERASE, STRUCTLEAK*, LATENT_ENTROPY)
        # and rename options (6.1's STACKLEAK_* are KSTACK_ERASE_* there,
        # with the same values): the plain .config's former names are
        # renamed as the patched tree declares ("formerly") before comparing.
        local other=plain flag=() d extra sedargs o n state plaincfg patchedcfg
        [ "$tree" = plain ] && { other=patched; flag=(--patched); }
        if "$repo/scripts/kernel-build.sh" --name "$name.$other-config" --cc "$cc" "${flag[@]}" \
             --linux "$linux" "${cfg_args[@]}" --configure-only > "$logdir/$name.$other-config.log" 2>&1; then
          plaincfg=$out/.config patchedcfg=$repo/build/kernel/$name.$other-config/.config
          [ "$tree" = plain ] || { plaincfg=$patchedcfg; patchedcfg=$out/.config; }
          # the former names that are gone (pure renames) take their new names;
          # the patched tree is the one Kbuild linked as source into its build
          sedargs=(-e '')
          while read -r o n state; do
            [ "$state" = gone ] || continue
            sedargs+=(-e "s/^CONFIG_$o=/CONFIG_$n=/" -e "s/^# CONFIG_$o is not set\$/# CONFIG_$n is not set/")
          done < <("$repo/scripts/kconfig-formerly.sh" "$(readlink -f "$(dirname "$patchedcfg")/source")")
          d=$(diff <(grep '^CONFIG_\|^# CONFIG_' "$plaincfg" | sed "${sedargs[@]}") \
                   <(grep '^CONFIG_\|^# CONFIG_' "$patchedcfg"))
          extra=$(grep '^[<>]' <<<"$d" | grep -v '^[<>] CONFIG_\(KSTACK_ERASE\|STRUCTLEAK[A-Z_]*\|LATENT_ENTROPY\)=y$')
          [ -z "$extra" ]
          check "$name" "config-other-tree: the $other tree's .config differs only by derived symbols" "$?" \
            "$(grep -c '^[<>]' <<<"$d") differing lines$([ -z "$d" ] || echo ": $(grep '^[<>]' <<<"$d" | head -n 5 | paste -sd' ')")"
        else
          fail "$name: config-other-tree: configuring on the $other tree failed ($logdir/$name.$other-config.log)"
        fi
        ;;
      randstruct-as=*)
        # The struct layouts this kernel's compiler gives ten of its own
        # translation units equal those of kernel NAME's (offsetof/sizeof/
        # bitfields of every type they define, compiled with each kernel's
        # own command; the GCC plugin's DWARF keeps the unrandomized offsets,
        # so DWARF cannot be compared), and some types are randomized.
        local ref=${c#randstruct-as=} plog=$logdir/$name.randstruct-probe.log
        python3 "$repo/analysis/randstruct-probe.py" --baseline-none "$repo/build/kernel/$ref" "$out" > "$plog" 2>&1
        check "$name" "randstruct-as: struct layouts of the probe's translation units equal $ref's" "$?" \
          "$(grep -E '^(PASS|FAIL): ' "$plog" | tail -n 2 | sed 's/^[A-Z]*: //' | paste -sd';'); log: $plog"
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
      quiet-as=*)
        # As quiet as the same config without passport: no more warnings
        # in the from-scratch build than kernel NAME's (built earlier).
        local ref=${c#quiet-as=} mine theirs
        if [ -f "$out/build-full.log" ] && [ -f "$repo/build/kernel/$ref/build-full.log" ]; then
          mine=$(build_warnings "$out" | wc -l)
          theirs=$(build_warnings "$repo/build/kernel/$ref" | wc -l)
          [ "$mine" -le "$theirs" ]
          check "$name" "quiet-as: no more build warnings than $ref" "$?" \
            "$mine vs $theirs$([ "$mine" -le "$theirs" ] || echo ": $(build_warnings "$out" | head -n 3 | paste -sd' ')")"
        else
          fail "$name: quiet-as: no from-scratch build log of $name or $ref (build/kernel/NAME/build-full.log: rebuild from scratch)"
        fi
        ;;
      quiet-objects=*)
        # As quiet as without passport, where the control kernel NAME (same
        # compiler and config, no passport) is not built in full: every
        # warning line must also come from NAME's build of the same object.
        local ref=${c#quiet-objects=} qlog=$logdir/$name.quiet-objects.log qout
        qout=$(python3 "$repo/tests/boot/quiet-objects.py" --kernels "$kernels" --log "$qlog" "$out" "$ref" 2>&1)
        check "$name" "quiet-objects: every build warning also comes from $ref's build of its object" "$?" \
          "$(grep -E '^(PASS|FAIL): ' <<<"$qout" | sed 's/^[A-Z]*: //')"
        grep '^FAIL-DETAIL: ' <<<"$qout" | sed 's/^/  /'
        ;;
      kaslr)
        # The kernel ran at a random base: latent_entropy's address in
        # /proc/kallsyms differs between the two boots and from vmlinux's.
        local a1 a2 link
        a1=$(grep -a -m1 -o 'latent_entropy at 0x[0-9a-f]*' "$log" | sed 's/.* at //')
        a2=$(grep -a -m1 -o 'latent_entropy at 0x[0-9a-f]*' "$off" | sed 's/.* at //')
        link=0x$(nm "$out/vmlinux" | awk '$3 == "latent_entropy" { print $1 }')
        grep -q '^CONFIG_RANDOMIZE_BASE=y' "$out/.config" && [ -n "$a1" ] && [ -n "$a2" ] \
          && [ "$a1" != "$a2" ] && [ "$a1" != "$link" ] && [ "$a2" != "$link" ]
        check "$name" "kaslr: the kernel runs at a different base on each boot" "$?" \
          "latent_entropy linked at $link, boot 1 ${a1:-?}, boot 2 ${a2:-?}"
        ;;
      unwind)
        # The ORC unwinder walks passport-instrumented code: LKDTM WARNING's
        # trace runs from lkdtm_WARNING (RIP) to do_syscall_64 with every frame
        # reliable (no "? "), and the stacks of tasks blocked in poll and
        # select (/proc/PID/stack) run from the scheduler through the
        # stackleak-tracked do_sys_poll/do_select frames to the syscall entry.
        local frames unreliable call stack t ok=0 detail
        frames=$(trace_functions "$log")
        unreliable=$(grep -c '^? ' <<<"$frames")
        grep -q '^CONFIG_UNWINDER_ORC=y' "$out/.config" && grep -aq 'RIP: 0010:lkdtm_WARNING+' "$log" \
          && grep -qx 'do_syscall_64' <<<"$frames" && [ "$unreliable" = 0 ] || ok=1
        detail="WARN: $(wc -l <<<"$frames") frames, $unreliable unreliable"
        for call in poll select; do
          stack=$(sed -n "s/^passport: stack: $call: \[<[0-9a-f]*>\] \([A-Za-z0-9_.]*\)+0x.*/\1/p" "$log")
          t=$(grep -xF -f <(awk '{ print $1 }' "$out/stackleak-tracked.txt" 2>/dev/null) <<<"$stack" | paste -sd' ')
          grep -qx 'entry_SYSCALL_64_after_hwframe' <<<"$stack" && [ -n "$t" ] || ok=1
          detail+="; $call: $(grep -c . <<<"$stack") frames, tracked: ${t:-none}"
        done
        check "$name" "unwind: ORC traces (a WARN; tasks blocked in poll/select) reach the syscall entry through tracked functions" "$ok" "$detail"
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

if [ -n "$only" ]; then
  for n in ${only//,/ }; do
    awk -v n="$n" '$1 == n { found = 1 } END { exit !found }' "$kernels" ||
      { echo "run.sh: error: --only: no kernel '$n' in $kernels" >&2; exit 2; }
  done
fi

while read -r name cc tree frags checks tier rest; do
  case $name in ''|'#'*) continue ;; esac
  if [ -z "$checks" ] || [ -n "$rest" ] || [[ ! ${tier:-ci} =~ ^(ci|extra)$ ]]; then
    fail "$name: malformed line in $kernels"; continue
  fi
  if [ -n "$only" ]; then
    [[ ",$only," == *",$name,"* ]] || continue
  elif [ "${tier:-ci}" = extra ] && [ $all = 0 ]; then
    continue
  fi
  out=$repo/build/kernel/$name
  bz=$out/arch/x86/boot/bzImage
  started=$SECONDS
  # A kernel that fails to build leaves no boot log of an earlier run
  # behind, for a later kernel's stackinit-as= to compare with.
  rm -f "$logdir/$name.boot.log" "$logdir/$name.off.log"
  case $tree in
    plain|patched) linux=6.1 ;;
    plain-6.12|patched-6.12) linux=${tree#*-} tree=${tree%%-*} ;;
    *) fail "$name: tree must be plain, patched, plain-6.12 or patched-6.12, not '$tree'"; continue ;;
  esac
  args=(--kernel "$name" --kernels "$kernels" --jobs "$jobs")
  IFS=, read -ra fl <<<"$frags"
  cfg_args=()  # for config-other-tree
  for f in "${fl[@]}"; do cfg_args+=(--config "$f"); done

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
  if [ $build_only = 1 ]; then
    timings+=("$name $((SECONDS - started))s")
    echo "== $name: built in ${timings[-1]#* }"
    continue
  fi
  # Every kernel: passport leaves no trace in the build's warnings
  # (lld's orphan-section warnings, modpost's non-allocatable sections).
  if [ -f "$out/build-full.log" ]; then
    n=$(build_warnings "$out" | grep -ciE 'stack_sizes|passport')
    check "$name" "build warnings: none mentions .stack_sizes or passport" "$([ "$n" = 0 ]; echo $?)" \
      "$(build_warnings "$out" | wc -l) warnings in build-full.log, $n of them$([ "$n" = 0 ] || echo ": $(build_warnings "$out" | grep -iE 'stack_sizes|passport' | head -n 2 | paste -sd' ')")"
  else
    fail "$name: build warnings: no from-scratch build log ($out/build-full.log: rebuild from scratch)"
  fi
  # Static checks of the vmlinux: stackleak coverage (on Clang kernels: no
  # frame >= KSTACK_ERASE_TRACK_MIN_SIZE without the call), and the per-feature
  # instrumentation lists for ./passport compare.
  : > "$out/stackleak-untracked.txt"
  static stackleak-coverage.py "$out" --list "$out/stackleak-tracked.txt" \
    --list-untracked "$out/stackleak-untracked.txt"
  static instrumentation-detail.py "$out"
  coverage_agrees "$name" "$out"

  log=$logdir/$name.boot.log off=$logdir/$name.off.log
  actions=lkdtm-stackleak,latent-entropy
  [[ ",$checks," != *",stackleak,"* ]] || actions=lkdtm-stackleak,stack-depth,latent-entropy
  [[ ",$checks," != *",unwind,"* ]] || actions+=,lkdtm-warning,blocked-stacks
  if "$repo/qemu/boot.sh" --kernel "$bz" --initrd "$initrd" --timeout "$timeout" \
       --run "$actions" --append 'kunit.filter_glob=stackinit' --log "$log"; then
    pass "$name: boot"
  else
    fail "$name: boot (log: $log)"
  fi
  : > "$off"
  if [[ ",$checks," == *",stackleak-off,"* ]]; then
    if "$repo/qemu/boot.sh" --kernel "$bz" --initrd "$initrd" --timeout "$timeout" \
         --run stack-erasing-off,lkdtm-stackleak,stack-erasing-on,latent-entropy --append 'kunit.filter_glob=none' --log "$off"; then
      pass "$name: boot with stack_erasing=0"
    else
      fail "$name: boot with stack_erasing=0 (log: $off)"
    fi
  fi
  verdicts "$name" "$checks" "$log" "$off" "$out"
  timings+=("$name $((SECONDS - started))s")
  echo "== $name: done in ${timings[-1]#* }"
done < "$kernels"

# Out-of-tree modules against the kernels just built (all must be there).
if [ -z "$only" ] && [ "$oot" = 1 ]; then
  echo "== out-of-tree modules: tests/boot/oot-modules.sh"
  started=$SECONDS
  oot_out=$("$repo/tests/boot/oot-modules.sh" --timeout "$timeout" $([ $all = 1 ] && echo --all))
  grep -E '^(PASS|FAIL):' <<<"$oot_out"
  passed=$((passed + $(grep -c '^PASS:' <<<"$oot_out")))
  while IFS= read -r line; do failures+=("$line"); done < <(grep '^FAIL:' <<<"$oot_out")
  timings+=("out-of-tree-modules $((SECONDS - started))s")
fi

echo "== recap: ${timings[*]:-no kernel}; ${SECONDS}s in all"
[ ${#failures[@]} = 0 ] || printf '%s\n' "${failures[@]}"
echo "$passed passed, ${#failures[@]} failed"
[ ${#failures[@]} = 0 ]
exit
}
