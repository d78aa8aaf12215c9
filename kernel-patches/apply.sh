#!/usr/bin/env bash
# Apply the passport kernel patch series to a freshly extracted Debian
# linux-source tree, checking that every patch applies cleanly.
#
#   kernel-patches/apply.sh [--linux V] [--export DIR] [TREE]
#
# --linux V picks the tree and its series: 6.1 (the default; the series in
# kernel-patches/, against linux-source-6.1) or 6.12 (kernel-patches/6.12/,
# against linux-source-6.12).  TREE defaults to build/kernel/src-patched
# (6.1) or build/kernel/src-V-patched.  The tree is re-extracted from the
# Debian tarball unless it already holds exactly this series (a stamp
# records the hash of the series, its patches and llvm-passes/).  0001 is
# generated from llvm-passes/ (see series), the same for every version;
# --export DIR also writes the whole series, 0001 included, to DIR for
# sending.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export_dir="" linux=6.1
while [ $# -gt 0 ]; do
	case $1 in
		-h|--help) sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
		--export) export_dir=${2:?}; shift 2 ;;
		--linux) linux=${2:?}; shift 2 ;;
		*) break ;;
	esac
done
case $linux in
	6.1) here=$root/kernel-patches tree=${1:-$root/build/kernel/src-patched} ;;
	6.12) here=$root/kernel-patches/$linux tree=${1:-$root/build/kernel/src-$linux-patched} ;;
	*) echo "kernel-patches: error: --linux $linux: there is a series for 6.1 and 6.12 only" >&2; exit 2 ;;
esac
gen=$root/build/kernel-patches
# One apply at a time (the boot layer's kernels build in parallel ctest
# entries, each asking for the patched tree): the second waits, then finds
# the series in place. (kernel-src.sh, called below, has a lock of its own.)
mkdir -p "$gen" "$(dirname "$tree")"
exec 9> "$gen/apply.lock"
flock 9

say() { echo "kernel-patches: $*" >&2; }
die() { echo "kernel-patches: error: $*" >&2; exit 1; }

# 0001: the sources of llvm-passes/ as scripts/llvm-passes/, as a
# git-format-patch with a fixed author and date (reproducible).
sources_patch() {
	local tmp out=$gen/$1
	tmp=$(mktemp -d)
	mkdir -p "$tmp/scripts/llvm-passes"
	cp "$root"/llvm-passes/*.c "$root"/llvm-passes/*.h "$root"/llvm-passes/*.cpp \
		"$tmp/scripts/llvm-passes/"
	(
		cd "$tmp"
		export GIT_AUTHOR_NAME=passport GIT_AUTHOR_EMAIL=passport@localhost \
			GIT_COMMITTER_NAME=passport GIT_COMMITTER_EMAIL=passport@localhost \
			GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
		git init -q && git commit -q --allow-empty -m base
		git add -A && git commit -q -F - <<'MSG'
scripts/llvm-passes: add the passport sources

The LLVM pass plugin that gives Clang builds the hardening of the GCC
plugins: one C file per pass over the LLVM C API (stackleak.c,
structleak.c, latent_entropy.c, randstruct.c), a shared helper layer
(passport.h, helpers.c, frame-bound.c), the C++ registration shim
(shim.cpp), the Clang frontend halves (*-frontend.cpp) and their one
walk over the emitted code (frontend-walk.cpp), the version-checking
loader (loader.c) and stackleak's post-codegen step (finalize.c).

Generated from the passport repository's llvm-passes/; built by the
next patch.
MSG
		git format-patch -q -1 --stdout --start-number 1 > "$out"
	)
	rm -rf "$tmp"
}

patches=$(grep -v '^#' "$here/series" | sed '/^$/d')
first=$(head -n1 <<<"$patches")
sources_patch "$first"

stamp=$( { cat "$here/series"; for p in $patches; do [ "$p" = "$first" ] && cat "$gen/$p" || cat "$here/$p"; done; } | sha256sum | cut -c1-16)
if [ -f "$tree/.passport-series" ] && [ "$(cat "$tree/.passport-series")" = "$stamp" ]; then
	say "$tree already holds this series ($stamp)"
else
	# A tree with a git history is a development tree (edit, commit,
	# git format-patch into kernel-patches/): never wipe it.
	[ ! -d "$tree/.git" ] || die "$tree is a git work tree and does not hold this series ($stamp): export its commits to kernel-patches/ and copy the stamp, or move it away"
	rm -rf "$tree"
	"$root/scripts/kernel-src.sh" --linux "$linux" --full "$tree" >&2
	for p in $patches; do
		f=$here/$p
		[ "$p" = "$first" ] && f=$gen/$p
		[ -f "$f" ] || die "$p is listed in series but missing"
		# --fuzz=0: a patch that needs fuzz does not apply cleanly.
		if ! out=$(patch -d "$tree" -p1 --forward --fuzz=0 --no-backup-if-mismatch --dry-run < "$f" 2>&1); then
			die "$p does not apply cleanly to $tree:"$'\n'"$out"
		fi
		patch -d "$tree" -p1 --forward --fuzz=0 --no-backup-if-mismatch --quiet < "$f"
		say "applied $p"
	done
	echo "$stamp" > "$tree/.passport-series"
fi

if [ -n "$export_dir" ]; then
	mkdir -p "$export_dir"
	for p in $patches; do
		[ "$p" = "$first" ] && cp "$gen/$p" "$export_dir/" || cp "$here/$p" "$export_dir/"
	done
	cp "$here/series" "$export_dir/"
	say "series written to $export_dir"
fi
