#!/usr/bin/env bash
# Soak run of the csmith differential for one feature, beyond CI's count:
#   tests/csmith/soak.sh [--llvm N] [--count 2000] [--first 1000] -- FEATURE-FLAGS
# e.g. tests/csmith/soak.sh --llvm 19 --count 2000 -- --stackleak=100
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
llvm=14 count=2000 first=1000
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case $1 in
	-h|--help) sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	--llvm) llvm=$2; shift ;;
	--count) count=$2; shift ;;
	--first) first=$2; shift ;;
	*) echo "soak: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ "${1:-}" = -- ] && shift
out=${PASSPORT_BUILD:-$root/build}/soak/llvm$llvm
mkdir -p "$out"
clang -O2 -c "$root/tests/csmith/stackleak-rt.c" -o "$out/stackleak-rt.o"
exec "$root/tests/csmith/csmith-diff.sh" --clang "clang-$llvm" \
	--flags "$("$root/passport" flags --llvm "$llvm" "$@")" --link "$out/stackleak-rt.o" \
	--count "$count" --first "$first" --out "$out/run"
