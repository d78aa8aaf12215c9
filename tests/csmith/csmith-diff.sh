#!/usr/bin/env bash
# csmith differential: random C programs must print the same checksum with
# and without a passport feature.  Shared by every feature's csmith test.
#
#   csmith-diff.sh --clang CLANG --flags "FLAGS" [--link OBJ] [--count N]
#                  [--first SEED] [--slice K/N] [--levels "-O0 -O2"]
#                  [--edit SEDFILE] [--keep] --out DIR
#
# The reference output of each program comes from gcc -O1 (built once per
# seed and cached in $PASSPORT_BUILD/csmith-ref, shared by all features and
# LLVM majors);
# each level in --levels builds the program with `passport cc -- CLANG FLAGS`
# and links OBJ (e.g. a user-space stackleak_track_stack).  --edit rewrites
# each program with `sed -E -f SEDFILE` (into DIR) before those builds, e.g.
# to mark its functions with an attribute; the reference is built from the
# unedited program.  --keep leaves each compared program's objects (e.g.
# DIR/p7-O2.o) and executables, for checks on them.  Programs whose reference
# run times out are skipped and counted.  --slice K/N takes every N-th of the
# COUNT seeds from FIRST, starting with the K-th (0-based): lit gives each
# LLVM major its own slice (%csmith_slice), so the majors share one budget of
# programs instead of each repeating it.  Exit 1 on any mismatch.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
passport=$here/../../passport
count=${CSMITH_COUNT:-200} first=1 slice=0/1 levels="-O0 -O2" link="" clang="" flags="" out="" edit="" keep=""
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	--clang) clang=$2; shift ;;
	--flags) flags=$2; shift ;;
	--link) link=$2; shift ;;
	--count) count=$2; shift ;;
	--first) first=$2; shift ;;
	--slice) slice=$2; shift ;;
	--levels) levels=$2; shift ;;
	--out) out=$2; shift ;;
	--edit) edit=$(realpath "$2"); shift ;;
	--keep) keep=1 ;;
	*) echo "csmith-diff: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$clang" ] && [ -n "$out" ] || { echo "csmith-diff: --clang and --out are required" >&2; exit 2; }
command -v csmith >/dev/null || { echo "csmith-diff: csmith is not installed (apt-get install csmith libcsmith-dev)" >&2; exit 2; }
ref=${PASSPORT_BUILD:-$here/../../build}/csmith-ref
mkdir -p "$out" "$ref"
inc=/usr/include/csmith

# One program: prints "ok", "skip" or "MISMATCH ..." on one line.
check_one() {
	local seed=$1 lvl exe want got
	local src=$ref/p$seed.c
	if [ ! -s "$ref/p$seed.out" ]; then
		# Every LLVM major's lit run may build the same seed at once:
		# private temporary names, then atomic renames.
		local tmp=$ref/p$seed.$BASHPID
		csmith --seed "$seed" --max-funcs 6 --max-block-depth 3 > "$tmp.c"
		gcc -O1 -w -I"$inc" "$tmp.c" -o "$tmp.exe"
		# 1 s: of the 300 references the tests build, the slowest that
		# finished took 0.01 s; the other 39 still ran at 5 s (two
		# tried ran past 40 s), so a longer limit only burns CPU, the
		# whole limit once per skipped seed (39 x 5 s on a new machine).
		timeout 1 "$tmp.exe" > "$tmp.out" 2>/dev/null || echo skip > "$tmp.out"
		mv "$tmp.c" "$src"
		mv "$tmp.out" "$ref/p$seed.out"
		rm -f "$tmp.exe"
	fi
	want=$(cat "$ref/p$seed.out")
	[ "$want" = skip ] && { echo skip; return; }
	if [ -n "$edit" ]; then
		sed -E -f "$edit" "$src" > "$out/p$seed.c" ||
			{ echo "MISMATCH seed $seed: sed -f $edit failed"; return; }
		src=$out/p$seed.c
	fi
	for lvl in $levels; do
		exe=$out/p$seed$lvl
		# shellcheck disable=SC2086
		"$passport" cc -- "$clang" -w -I"$inc" $flags $lvl -c "$src" -o "$exe.o" 2>"$exe.err" ||
			{ echo "MISMATCH seed $seed $lvl: compile failed: $(head -c 300 "$exe.err")"; return; }
		"$clang" "$exe.o" $link -o "$exe" 2>>"$exe.err" ||
			{ echo "MISMATCH seed $seed $lvl: link failed: $(head -c 300 "$exe.err")"; return; }
		got=$(timeout 10 "$exe" 2>&1) || true
		[ "$got" = "$want" ] || { echo "MISMATCH seed $seed $lvl: got '${got:0:80}' want '${want:0:80}'"; return; }
		[ -n "$keep" ] || rm -f "$exe" "$exe.o" "$exe.err"
	done
	echo ok
}
export -f check_one
export ref out inc clang flags link levels passport edit keep

[[ $slice =~ ^([0-9]+)/([1-9][0-9]*)$ ]] && [ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ] ||
	{ echo "csmith-diff: --slice wants K/N with 0 <= K < N, not '$slice'" >&2; exit 2; }
seeds=$(seq $((first + BASH_REMATCH[1])) "${BASH_REMATCH[2]}" $((first + count - 1)))
count=$(wc -l <<<"$seeds")
results=$(xargs -P "$(nproc)" -I{} bash -c 'check_one {}' <<<"$seeds")
ok=$(grep -c '^ok$' <<<"$results" || true)
skip=$(grep -c '^skip$' <<<"$results" || true)
bad=$(grep -c '^MISMATCH' <<<"$results" || true)
grep '^MISMATCH' <<<"$results" || true
echo "csmith: $count programs x ($levels): $ok identical, $skip skipped (reference timed out), $bad mismatches"
[ "$bad" = 0 ]
