#!/usr/bin/env bash
# Layout differential: the same generated corpus (gen-corpus.py) compiled
# by gcc-12 + the kernel's randomize_layout_plugin.so and by clang +
# passport, for each seed file and both modes; the printed sizes,
# alignments, offsets and bitfield positions must be identical.
#
# usage: differential.sh OUT ROOT GCC_PLUGINS CLANG LLVM COUNT SEEDFILE...
# The GCC plugin compiles its seed in: gcc-plugins/build.sh builds one per
# seed (the default build in GCC_PLUGINS/gcc-12 already has test.seed).
set -euo pipefail
out=$1 root=$2 gccp=$3 clang=$4 llvm=$5 count=$6
shift 6
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
fail=0
n=0
for seed in "$@"; do
	n=$((n + 1))
	name=$(basename "$seed")
	if cmp -s <(tr -d '\n' < "$seed") <(sed -n 's/.*randstruct_seed = "\([0-9a-f]*\)".*/\1/p' "$gccp/gcc-12/randomize_layout_seed.h" | tr -d '\n'); then
		plugin=$gccp/gcc-12/randomize_layout_plugin.so
	else
		"$root/gcc-plugins/build.sh" --seed-file "$seed" --src "$gccp/../kernel/src" \
			"$out/gcc-$name" > "$out/build-$name.log" 2>&1 ||
			{ cat "$out/build-$name.log" >&2; exit 1; }
		plugin=$out/gcc-$name/randomize_layout_plugin.so
	fi
	corpus=$out/corpus-$n.c
	python3 "$here/gen-corpus.py" "$n" "$count" > "$corpus"
	for mode in full performance; do
		garg=()
		[ $mode = performance ] && garg=(-fplugin-arg-randomize_layout_plugin-performance-mode)
		gcc-12 -w -Wno-packed-bitfield-compat -fplugin="$plugin" "${garg[@]}" "$corpus" -o "$out/gcc-$n-$mode"
		"$out/gcc-$n-$mode" > "$out/gcc-$n-$mode.txt"
		# shellcheck disable=SC2046
		"$clang" -w $("$root/passport" flags --llvm "$llvm" --randstruct=$mode --seed-file="$seed") \
			"$corpus" -o "$out/clang-$n-$mode"
		"$out/clang-$n-$mode" > "$out/clang-$n-$mode.txt"
		structs=$(grep -c ' size ' "$out/gcc-$n-$mode.txt")
		lines=$(wc -l < "$out/gcc-$n-$mode.txt")
		if diff "$out/gcc-$n-$mode.txt" "$out/clang-$n-$mode.txt" > "$out/diff-$n-$mode.txt"; then
			echo "$name $mode: identical: $structs structs, $lines lines"
		else
			echo "$name $mode: DIFFERENT ($out/diff-$n-$mode.txt)"
			head -20 "$out/diff-$n-$mode.txt"
			fail=1
		fi
	done
	# the corpus really is randomized: full differs from declaration order
	"$clang" -w "$corpus" -o "$out/plain-$n" && "$out/plain-$n" > "$out/plain-$n.txt"
	if cmp -s "$out/plain-$n.txt" "$out/clang-$n-full.txt"; then
		echo "$name: layouts equal the declared ones: nothing was randomized"
		fail=1
	fi
done
exit $fail
