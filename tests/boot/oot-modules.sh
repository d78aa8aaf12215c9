#!/usr/bin/env bash
# Out-of-tree modules built with another compiler than their kernel's, then
# loaded in QEMU (issue: kernel series, "OOT modules").
#
# usage: tests/boot/oot-modules.sh [--all | --only CASE[,CASE...]] [--timeout S]
#
#   (default)    the cases whose kernel is of tier ci in qemu/kernels.txt
#                (what ./passport test runs)
#   --all        the cases of tier extra kernels too (tests/boot/run.sh --all
#                passes it; those kernels must be built)
#   --only CASES these cases, whatever their kernel's tier
#   --timeout S  per-boot QEMU timeout (default 300)
#
# Each case builds tests/boot/modules/passport_probe.c, under the module name
# pp_CASE, against a kernel of qemu/kernels.txt (already built by
# tests/boot/run.sh) with make M=..., or against that kernel's linux-headers
# package (KERNEL:deb: make bindeb-pkg, the .deb unpacked into a scratch root
# as dpkg installs it, make -C ROOT/usr/src/linux-headers-VERSION M=...,
# the way a distro's DKMS builds a module), asserts the build's outcome and its
# messages (scripts/Makefile.plugin-checks of the kernel series), and, for
# the modules that build, boots the kernel once with all of them in the
# initramfs (qemu/init.c action "modules"), asserting what each module says
# about the randstruct layouts it shares with the kernel.
#
# Output: PASS:/FAIL: lines, then "N passed, N failed"; exit 0 only if none
# failed.  Logs: build/boot-tests/oot/.
set -uo pipefail
{ # parsed whole before it runs
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
only='' all=0 timeout=300
while [ $# -gt 0 ]; do
  case $1 in
    --only) only=${2:?}; shift ;;
    --all) all=1 ;;
    --timeout) timeout=${2:?}; shift ;;
    -h|--help) sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "oot-modules.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

# CASE  KERNEL[:deb]  CC  PLUGIN  EXPECT
#   :deb    build against the kernel's linux-headers package, not its tree
#   PLUGIN  LLVM major of the passport plugin given as LLVM_PASSES_PLUGIN
#           (build/lib/passport-llvmN.so), or - for none
#   EXPECT  ;-separated: build | error=TEXT | warn=TEXT | nowarn | agree | differ | twins
#           (differ: the module reports other layouts, or the kernel refuses
#           to load it with EINVAL; twins: of two structs with the same
#           members, one __randomize_layout, some members moved)
#           (warn/error TEXT is matched against the make output)
#           | packaged-passes (every object of the module was compiled with
#           the passport plugin and post-step of the kernel tree it was built
#           against, and the .ko calls stackleak_track_stack)
#           | lto-finalized (an LTO_CLANG kernel: the module's objects were
#           compiled to bitcode; its linked object pp_CASE.o is machine code
#           on which passport-finalize ran (series 0013); no function with a
#           final frame >= track-min-size lacks the call; with _multi, the
#           bitcode of passport_frames.c has the call in both functions and
#           the linked object only in pp_frames_large)
# A case named *_multi builds its module from two objects (passport_probe.c
# and tests/boot/modules/passport_frames.c: Kbuild's multi-object link),
# the others from one.
# The "-norand" case switches passport's randstruct off again with KCFLAGS:
# the negative control, whose module must see other layouts.
# GCC: gcc-12 for the gcc-11 kernel, not gcc-11 for the gcc-12 one: that
# kernel's INIT_STACK_ALL_ZERO adds -ftrivial-auto-var-init=zero, which
# gcc-11 does not have (a Kbuild limitation the plugins do not change).
cases="
same_clang19    clang19  clang-19  -   build;nowarn;agree;twins
same_clang14    clang14  clang-14  -   build;nowarn;agree;twins
clang14_by_19   clang14  clang-19  19  build;warn=LLVM pass stackleak disabled;warn=LLVM pass structleak disabled;warn=LLVM pass latent_entropy disabled;warn=randstruct: layouts identical;agree;twins
clang14_by_19_noplugin clang14 clang-19 - error=randstruct: this module's compiler
gcc11_by_clang19 gcc11-structleak clang-19 19 build;warn=GCC plugin stackleak disabled;warn=GCC plugin structleak disabled;warn=GCC plugin latent_entropy disabled;warn=randstruct: layouts identical;agree;twins
gcc11_by_clang19_norand gcc11-structleak clang-19 19 build;differ
gcc11_by_gcc12  gcc11-structleak gcc-12 - build;warn=GCC plugin stackleak disabled;warn=GCC plugin structleak disabled;warn=GCC plugin latent_entropy disabled;warn=randstruct: layouts identical to the kernel's: its randomize_layout plugin rebuilt;agree;twins
same_gcc11      gcc11-structleak gcc-11 - build;nowarn;agree;twins
hdr_clang19     clang19:deb clang-19 - build;nowarn;packaged-passes;agree;twins
hdr_clang22_612 clang22-612:deb clang-22 - build;nowarn;packaged-passes;agree;twins
lto_clang19     clang19-lto clang-19 - build;nowarn;lto-finalized;agree;twins
lto_clang19_multi clang19-lto clang-19 - build;nowarn;lto-finalized;agree;twins
same_clang19_612 clang19-612 clang-19 - build;nowarn;agree;twins
same_clang22_612 clang22-612 clang-22 - build;nowarn;agree;twins
lto_clang22_612 clang22-612-lto clang-22 - build;nowarn;lto-finalized;agree;twins
lto_clang22_612_multi clang22-612-lto clang-22 - build;nowarn;lto-finalized;agree;twins
hdr_clang22_612_lto clang22-612-lto:deb clang-22 - build;nowarn;packaged-passes;lto-finalized;agree;twins
gcc11_by_clang19_612 gcc11-structleak-612 clang-19 19 build;warn=GCC plugin stackleak disabled;warn=GCC plugin structleak disabled;warn=GCC plugin latent_entropy disabled;warn=randstruct: layouts identical;agree;twins
"

out=$repo/build/boot-tests/oot
mkdir -p "$out"
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
check_() { if [ $? = 0 ]; then pass "$*"; else fail "$*"; fi; }

# headers_tree KERNEL: make bindeb-pkg of the built kernel (its own
# kernel-build.sh arguments: the same compiler and ccache; the package
# revision 1 is kernel-build.sh's KBUILD_BUILD_VERSION, so nothing is
# recompiled, and the packages are not compressed, which took ~100 CPU s
# of xz), unpack its linux-headers .deb into $out/deb-KERNEL/root as
# dpkg would, and print ROOT/usr/src/linux-headers-VERSION. dpkg-buildpackage
# writes the packages next to the build directory (build/kernel/); they are
# moved to $out/deb-KERNEL. Log: $out/deb-KERNEL/bindeb-pkg.log.
headers_tree() {
  local k=$1 d=$out/deb-$1 kdir=$repo/build/kernel release
  rm -rf "$d" "$kdir"/linux-*_*.deb "$kdir"/linux-*_*.buildinfo "$kdir"/linux-*_*.changes
  mkdir -p "$d/root"
  release=$(cat "$kdir/$k/include/config/kernel.release") ||
    { echo "$kdir/$k has no kernel release: not built?" >&2; return 1; }
  KDEB_PKGVERSION=$release-1 KDEB_COMPRESS=none \
    "$repo/scripts/kernel-build.sh" --kernel "$k" --target bindeb-pkg > "$d/bindeb-pkg.log" 2>&1 ||
    { echo "make bindeb-pkg failed (log: $d/bindeb-pkg.log)" >&2; return 1; }
  mv "$kdir"/linux-*_*.deb "$kdir"/linux-*_*.buildinfo "$kdir"/linux-*_*.changes "$d/"
  dpkg-deb -x "$(ls "$d"/linux-headers-*.deb)" "$d/root" ||
    { echo "no linux-headers package in $d" >&2; return 1; }
  ls -d "$d"/root/usr/src/linux-headers-*
}

# build_case CASE KERNEL CC PLUGIN [KDIR]: make M=... against the kernel's
# build directory (or KDIR, a headers package's tree); output in
# $out/CASE.build.log
build_case() {
  local c=$1 k=$2 cc=$3 plugin=$4 kdir=${5:-} kout=$repo/build/kernel/$2 dir=$out/$1 vars=()
  rm -rf "$dir" && mkdir -p "$dir"
  if [[ $c == *_multi ]]; then
    cp "$repo/tests/boot/modules/passport_probe.c" "$dir/pp_main.c"
    cp "$repo/tests/boot/modules/passport_frames.c" "$dir/pp_frames.c"
    printf 'obj-m += pp_%s.o\npp_%s-y := pp_main.o pp_frames.o\n' "$c" "$c" > "$dir/Kbuild"
  else
    cp "$repo/tests/boot/modules/passport_probe.c" "$dir/pp_$c.c"
    echo "obj-m += pp_$c.o" > "$dir/Kbuild"
  fi
  case $cc in
    clang-*) vars+=("LLVM=-${cc#clang-}") ;;
    gcc-*) vars+=("CC=$cc") ;;
  esac
  [ "$plugin" = - ] || vars+=("LLVM_PASSES_PLUGIN=$repo/build/lib/passport-llvm$plugin.so")
  [[ $c != *_norand ]] || vars+=("KCFLAGS=-mllvm -passport-randstruct-disable")
  if [ -n "$kdir" ]; then
    make -C "$kdir" M="$dir" ARCH=x86_64 "${vars[@]}" modules > "$out/$c.build.log" 2>&1
  else
    make -C "$kout/source" O="$kout" M="$dir" ARCH=x86_64 "${vars[@]}" modules \
      > "$out/$c.build.log" 2>&1
  fi
}

# packaged_passes CASE KDIR: every object of the module was compiled with
# KDIR's passport plugin (-fpass-plugin) and its post-step
# (passport-finalize), both files of the headers tree, and the module calls
# stackleak_track_stack; prints what it found
packaged_passes() {
  local c=$1 kdir=$2 dir=$out/$1 so=scripts/llvm-passes/passport-llvm.so fin=scripts/llvm-passes/passport-finalize
  local cmd=$dir/.pp_$c.o.cmd
  [ -f "$kdir/$so" ] && [ -x "$kdir/$fin" ] || { echo "the headers tree has no $so or $fin"; return 1; }
  grep -q -- "-fpass-plugin=\./$so " "$cmd" || { echo "$cmd: no -fpass-plugin=./$so"; return 1; }
  grep -q -- "\./$fin " "$cmd" || { echo "$cmd: no ./$fin"; return 1; }
  # a call, not a symbol: the post-step keeps the symbol of a call it made a NOP.
  # grep reads all of readelf's output (no -q): under pipefail, a grep that
  # stops at the first match can leave readelf a SIGPIPE, and the check fails.
  readelf -rW "$dir/pp_$c.ko" | grep -E 'R_X86_64_(PLT32|PC32) +[0-9a-f]+ +stackleak_track_stack' >/dev/null ||
    { echo "pp_$c.ko does not call stackleak_track_stack"; return 1; }
  echo "the package's ${kdir#"$out"/deb-*/root} has $so and $fin; pp_$c.o was compiled with both and calls stackleak_track_stack"
}

# lto_finalized CASE KERNEL LLVM_MAJOR: the checks of expectation lto-finalized (see
# the case table); prints what it found
lto_finalized() {
  local c=$1 k=$2 major=$3 dir=$out/$1 kout=$repo/build/kernel/$2 tms src srcs=() tracked f ir
  tms=$(sed -n 's/^CONFIG_KSTACK_ERASE_TRACK_MIN_SIZE=//p' "$kout/.config")
  [ -n "$tms" ] || { echo "$kout/.config has no CONFIG_KSTACK_ERASE_TRACK_MIN_SIZE"; return 1; }
  if [[ $c == *_multi ]]; then srcs=(pp_main pp_frames); else srcs=("pp_$c"); fi
  for src in "${srcs[@]}"; do
    grep -q -- '-flto' "$dir/.$src.o.cmd" || { echo "$src.o was not compiled with -flto"; return 1; }
  done
  [ "$(head -c4 "$dir/pp_$c.o" | od -An -c | tr -d ' ')" = 177ELF ] ||
    { echo "pp_$c.o is not machine code"; return 1; }
  grep -q -- 'passport-finalize ' "$dir/.pp_$c.o.cmd" || { echo "pp_$c.o: passport-finalize did not run"; return 1; }
  python3 "$repo/analysis/stackleak-coverage.py" --track-min-size "$tms" --objects "$dir/pp_$c.o" \
    --list "$dir/tracked.txt" > "$dir/coverage.log" 2>&1 ||
    { echo "$(grep -m1 '^FAIL' "$dir/coverage.log")"; return 1; }
  tracked=$(cut -d' ' -f1 "$dir/tracked.txt" | tr '\n' ' ')
  if [[ $c == *_multi ]]; then
    ir=$("llvm-dis-$major" -o - "$dir/pp_frames.o") || { echo "llvm-dis-$major pp_frames.o failed"; return 1; }
    for f in pp_frames_small pp_frames_large; do
      [[ $(sed -n "/^define .*@$f(/,/^}/p" <<<"$ir") == *"call stackleak_track_stack"* ]] ||
        { echo "the bitcode pp_frames.o: $f has no call"; return 1; }
    done
    [[ " $tracked " == *" pp_frames_large "* && " $tracked " != *" pp_frames_small "* ]] ||
      { echo "pp_$c.o: tracked functions '$tracked': want pp_frames_large, not pp_frames_small"; return 1; }
  fi
  echo "bitcode objects (${srcs[*]/%/.o}), pp_$c.o machine code after passport-finalize; $(grep -m1 -o '[0-9]* of [0-9]* functions with final frame >= [0-9]* lack the call' "$dir/coverage.log"); tracked: $tracked"
}

# case_tier CASE's KERNEL: the kernel's tier in qemu/kernels.txt (ci or extra)
case_tier() {
  awk -v k="$1" '$1 == k { print ($6 == "" ? "ci" : $6); found = 1 } END { if (!found) print "ci" }' \
    "$repo/qemu/kernels.txt"
}

modules=()
declare -A boot_expect kernels_used twins
while read -r c k cc plugin expect; do
  [ -n "$c" ] || continue
  if [ -n "$only" ] && [[ ",$only," != *",$c,"* ]]; then continue; fi
  kdir='' deb=${k#*:}; k=${k%:deb}
  if [ -z "$only" ] && [ $all = 0 ] && [ "$(case_tier "$k")" = extra ]; then continue; fi
  if [ ! -f "$repo/build/kernel/$k/Module.symvers" ]; then
    fail "$c: kernel $k is not built (with modules) yet: run tests/boot/run.sh first"; continue
  fi
  if [ "$deb" = deb ]; then
    if kdir=$(headers_tree "$k" 2>"$out/$c.headers.err"); then
      pass "$c: make bindeb-pkg of $k: $(cd "$out/deb-$k" && ls linux-headers-*.deb) unpacked into a scratch root"
    else
      fail "$c: the headers package of $k: $(cat "$out/$c.headers.err")"; continue
    fi
  fi
  build_case "$c" "$k" "$cc" "$plugin" "$kdir"; rc=$?
  log=$out/$c.build.log
  IFS=';' read -ra ex <<<"$expect"
  for e in "${ex[@]}"; do
    case $e in
      build) [ $rc = 0 ] && [ -f "$out/$c/pp_$c.ko" ]
             pass_or=$?; [ $pass_or = 0 ] && pass "$c: builds against $k with $cc" || fail "$c: build against $k with $cc (log: $log)" ;;
      error=*) if [ $rc != 0 ] && grep -qF "${e#error=}" "$log"; then
                 pass "$c: build stops: $(grep -m1 -oF "${e#error=}" "$log")... ($(grep -m1 -o 'randstruct: .*' "$log" | cut -c1-140))"
               else fail "$c: expected the build to stop with '${e#error=}' (rc=$rc, log: $log)"; fi ;;
      warn=*) if grep -qF "${e#warn=}" "$log"; then pass "$c: says '$(grep -m1 -F "${e#warn=}" "$log" | sed 's/^.*Makefile.plugin-checks:[0-9]*: //' | cut -c1-150)'"
              else fail "$c: no '${e#warn=}' in the build output ($log)"; fi ;;
      nowarn) if grep -q 'disabled for this module\|compiler differs' "$log"; then fail "$c: unexpected mismatch warning ($log)"
              else pass "$c: same compiler: no mismatch warning"; fi ;;
      agree|differ) boot_expect[$c]=$e; kernels_used[$k]+=" $c" ;;
      twins) twins[$c]=1 ;;
      packaged-passes)
        if r=$(packaged_passes "$c" "$kdir"); then pass "$c: $r"; else fail "$c: packaged passes: $r"; fi ;;
      lto-finalized)
        if r=$(lto_finalized "$c" "$k" "${cc#clang-}"); then pass "$c: $r"; else fail "$c: LTO post-step: $r"; fi ;;
      *) fail "$c: unknown expectation '$e'" ;;
    esac
  done
done <<<"$cases"

initrd=$repo/build/qemu/initramfs.cpio.gz
"$repo/qemu/mkinitramfs.sh" "$initrd" >/dev/null || fail "initramfs: qemu/mkinitramfs.sh"
for k in "${!kernels_used[@]}"; do
  rd=$out/$k.initrd.cpio.gz blog=$out/$k.boot.log
  "$repo/qemu/add-modules.sh" "$initrd" "$rd" $(for c in ${kernels_used[$k]}; do echo "$out/$c/pp_$c.ko"; done) ||
    fail "$k: qemu/add-modules.sh"
  if "$repo/qemu/boot.sh" --kernel "$repo/build/kernel/$k/arch/x86/boot/bzImage" --initrd "$rd" \
       --run modules --append 'kunit.filter_glob=none' --timeout "$timeout" --log "$blog" >/dev/null 2>&1; then
    pass "$k: boots with$(for c in ${kernels_used[$k]}; do printf ' pp_%s' "$c"; done): $(grep -a -m1 -o 'modules: [0-9]* loaded, [0-9]* refused' "$blog")"
  else
    fail "$k: boot with the out-of-tree modules (log: $blog)"
  fi
  for c in ${kernels_used[$k]}; do
    want=${boot_expect[$c]}
    line=$(grep -a -m1 "pp_$c: randstruct layouts" "$blog" | sed 's/^.*\] //')
    case $want in
      agree) [[ $line == *"agree with the kernel" ]] ;;
      # or the kernel refuses it: struct module is randomized too, and the
      # module's own (.gnu.linkonce.this_module) has another size
      differ) [[ $line == *"DIFFER from the kernel" ]] ||
                { line=$(grep -a -m1 "pp_$c.ko: finit_module: Invalid argument" "$blog"); [ -n "$line" ]; } ;;
    esac
    if [ $? = 0 ]; then
      pass "$c: in the guest: $line ($(grep -a -m1 "pp_$c: task_struct" "$blog" | grep -o 'offsetof.*' | tr -d ')'))"
    else
      fail "$c: in the guest, expected layouts to $want; got '${line:-no line}' (log: $blog)"
    fi
    if [ -n "${twins[$c]:-}" ]; then
      line=$(grep -a -m1 -o "pp_$c: randstruct twins: [0-9]* of 8 members moved" "$blog")
      n=$(grep -o 'twins: [0-9]*' <<<"$line" | grep -o '[0-9]*$')
      [ -n "$n" ] && [ "$n" -gt 0 ]
      check_ "$c: in the guest: ${line:-no twins line} (randomization happened)"
    fi
  done
done

echo "$passed passed, $failed failed"
[ $failed = 0 ]
exit
}
