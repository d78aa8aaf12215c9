#!/usr/bin/env bash
# small-run.sh: a small but real ./passport compare run directory, made
# from measurements taken here and now, for the report test.
#
# usage: small-run.sh RUN ROOT GCC_STACKLEAK_PLUGIN CLANG LLVM_MAJOR
#
# - kgcc / kclang: the stackleak differential corpus (tests/stackleak/Inputs/
#   corpus) compiled with gcc-12 + the kernel's stackleak plugin and with
#   clang + passport stackleak, each linked into one ELF with a tracker stub;
#   bench/collect.py static analyses them (with their objects) as it
#   analyses a vmlinux
# - their "boot logs": bench/guest-bench.c run on this host (no stackleak
#   here, so phase "none"), twice for kgcc, once for kclang
# - native.txt: bench/erase-native.c, few samples
# - kabsent: a kernel listed as missing, to check how the report says so
# - kup: the same corpus with clang-22's own stack-depth tracking
#   (-fsanitize-coverage=stack-depth, series patch 0012's flags), for the
#   report's "passport instead of upstream Clang" stackleak row: its
#   untracked large frames beside kclang's (the pairs have no boots: their
#   WITHOUT kernel is kabsent)
# - buildcost/: bench/collect.py buildcost, for real, on a tiny "kernel
#   build directory" per compiler: .o.cmd files whose cmd_ lines compile two
#   corpus files as Kbuild records them (kclang: passport's stackleak flags
#   and its passport-finalize step; kgcc: the kernel's stackleak plugin),
#   with instruction counts (cachegrind) and one CPU-time repetition; kgcc
#   measures one of its two objects (each cachegrind run of a compiler
#   takes ~8 s of CPU however small the file, valgrind translating it)
set -euo pipefail
run=$1 root=$2 plugin=$3 clang=$4 llvm=$5
rm -rf "$run"
mkdir -p "$run"/{boot,static,buildcost,logs,bin}
tmp=$run/tmp
mkdir -p "$tmp"/{gcc,clang}
corpus=$root/tests/stackleak/Inputs/corpus
kflags=(-MD -O2 -fno-pic -mno-red-zone -fno-stack-protector -fno-asynchronous-unwind-tables -fcf-protection=none -I"$corpus")

# The tracker stub and the ELFs.
echo 'void stackleak_track_stack(void) {} void __sanitizer_cov_stack_depth(void) {}' > "$tmp/stub.c"
gcc-12 -O2 -fno-pic -c -o "$tmp/stub.o" "$tmp/stub.c"
mkdir -p "$tmp/up"
for src in "$corpus"/*.c; do
  b=$(basename "$src" .c)
  gcc-12 "${kflags[@]}" -fplugin="$plugin" -fplugin-arg-stackleak_plugin-track-min-size=100 \
    -fplugin-arg-stackleak_plugin-arch=x86 -c -o "$tmp/gcc/$b.o" "$src"
  # shellcheck disable=SC2046
  "$root/passport" cc -- "$clang" "${kflags[@]}" $("$root/passport" flags --llvm "$llvm" --stackleak=100) \
    -c -o "$tmp/clang/$b.o" "$src"
  clang-22 "${kflags[@]}" -fsanitize-coverage=stack-depth -fsanitize-coverage-stack-depth-callback-min=100 \
    -fstack-size-section -c -o "$tmp/up/$b.o" "$src"
done
for k in gcc clang up; do
  ld -o "$tmp/k$k.elf" -e 0 --unresolved-symbols=ignore-all "$tmp/$k"/*.o "$tmp/stub.o"
  python3 "$root/bench/collect.py" static "$tmp/k$k.elf" "$run/static/k$k.tsv" \
    --objects "$tmp/$k"/*.o --track-min-size 100
done

# The benchmarks, for real, on this host.
gcc -O2 -mgeneral-regs-only -c -o "$run/bin/erase-loops.o" "$root/bench/erase-loops.c"
gcc -O2 -o "$run/bin/guest-bench" "$root/bench/guest-bench.c" "$run/bin/erase-loops.o"
gcc -O2 -o "$run/bin/erase-native" "$root/bench/erase-native.c" "$run/bin/erase-loops.o"
"$run/bin/guest-bench" > "$run/boot/kgcc.1.log"
"$run/bin/guest-bench" > "$run/boot/kgcc.2.log"
"$run/bin/guest-bench" > "$run/boot/kclang.1.log"
"$run/bin/erase-native" --reps 20 --sizes 1,4 > "$run/native.txt"

# The compile-time cost: two objects for kclang, one of two for kgcc.
finalize=${PASSPORT_BUILD:-$root/build}/bin/passport-finalize
mkdir -p "$tmp"/kbuild-{gcc,clang}
for b in frames spills; do
  src=$corpus/$b.c
  echo "cmd_$b.o := gcc-12 -Wp,-MMD,.$b.o.d ${kflags[*]} -fplugin=$plugin -DSTACKLEAK_PLUGIN" \
    "-fplugin-arg-stackleak_plugin-track-min-size=100 -fplugin-arg-stackleak_plugin-arch=x86 -c -o $b.o $src" \
    > "$tmp/kbuild-gcc/.$b.o.cmd"
  echo "cmd_$b.o := $clang -Wp,-MMD,.$b.o.d ${kflags[*]} $("$root/passport" flags --llvm "$llvm" --stackleak=100)" \
    "-c -o $b.o $src ; $finalize --track-min-size=100 $b.o" > "$tmp/kbuild-clang/.$b.o.cmd"
done
python3 "$root/bench/collect.py" buildcost --dir "$tmp/kbuild-gcc" --feature gcc-stackleak --objects 1 --reps 1 \
  --jobs 2 --out "$run/buildcost/kgcc.gcc-stackleak.tsv" 2>> "$run/logs/buildcost.log"
python3 "$root/bench/collect.py" buildcost --dir "$tmp/kbuild-clang" --feature passport-stackleak --objects 2 \
  --reps 1 --jobs 2 --out "$run/buildcost/kclang.passport-stackleak.tsv" 2>> "$run/logs/buildcost.log"

printf 'date %s\ncommit test\nhost_cpu test host\nhost_cores %s\nqemu none (host run)\noptions test\n' \
  "$(date -u +%FT%TZ)" "$(nproc)" > "$run/meta.txt"
printf 'kgcc\tgcc-12\tplain\tcorpus\treused\nkclang\tclang-%s\tpatched\tcorpus\treused\nkup\tclang-22\tpatched\tcorpus\treused\nkabsent\tgcc-12\tplain\tnone\tmissing: not built (test)\n' \
  "$llvm" > "$run/kernels.tsv"
printf 'all kclang kgcc clang vs gcc on the host\nstackleak kgcc kabsent a pair with a missing kernel\nstackleak kclang kabsent passport\nstackleak:upstream kup kabsent clang-22 stack-depth\n' > "$run/pairs.txt"
rm -rf "$tmp"
