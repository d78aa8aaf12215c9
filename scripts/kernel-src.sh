#!/usr/bin/env bash
# Extract a Debian linux-source-V tarball (6.1: the GCC hardening plugins'
# reference sources) into OUTDIR.
#
# usage: scripts/kernel-src.sh [--linux V] [--full] [OUTDIR]
#
#   --linux V  the kernel version: 6.1 (the default) or 6.12, from the
#              package linux-source-V
#   OUTDIR     default: build/kernel/src for 6.1, build/kernel/src-V for
#              another version (relative to the repository root)
#   --full     extract the whole tree (~1.3 GB) instead of only what
#              gcc-plugins/build.sh needs
#
# The top-level "linux-source-V/" component is stripped, so OUTDIR/Makefile,
# OUTDIR/scripts/gcc-plugins/... exist afterwards. A stamp file
# (OUTDIR/.kernel-src.stamp) records the tarball's size and mtime and whether
# the extraction was full or partial; a repeated call with the same tarball
# does nothing, and a partial tree is upgraded when --full is asked for.
#
# Environment: KERNEL_SRC_TARBALL overrides the tarball path.
set -euo pipefail

# What the GCC plugins (and gcc-plugins/build.sh) need, relative to TOP.
# The last four are not compiled, but hold the flags the kernel passes to
# the plugins and the seed generator; they are tiny and useful as reference.
PARTIAL_MEMBERS=(
  Makefile                              # VERSION/PATCHLEVEL/SUBLEVEL -> PLUGIN_VERSION
  include/linux/compiler-version.h      # -include'd into every plugin
  scripts/gcc-plugins                   # plugin sources, gcc-common.h, Makefile
  scripts/Makefile.gcc-plugins          # -fplugin-arg-* the kernel uses
  scripts/Makefile.randstruct
  scripts/gen-randstruct-seed.sh
)

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
  exit 2
}

full=0 linux=6.1
outdir=
while [ $# -gt 0 ]; do
  case $1 in
    --full) full=1 ;;
    --linux) linux=${2:?}; shift ;;
    -h|--help) usage ;;
    --) shift; [ $# -le 1 ] || usage; outdir=${1:-}; break ;;
    -*) echo "$0: unknown option: $1" >&2; usage ;;
    *) [ -z "$outdir" ] || usage; outdir=$1 ;;
  esac
  shift
done
case $linux in
  6.1|6.12) ;;
  *) echo "$0: --linux $linux: passport has a series for 6.1 and 6.12 only" >&2; exit 2 ;;
esac
PKG=linux-source-$linux
TARBALL=${KERNEL_SRC_TARBALL:-/usr/src/$PKG.tar.xz}
TOP=$PKG   # top-level directory inside the tarball
if [ -z "$outdir" ]; then
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  outdir=$repo/build/kernel/src$([ "$linux" = 6.1 ] || echo "-$linux")
fi

if [ ! -f "$TARBALL" ]; then
  echo "$0: $TARBALL not found; install the Debian package $PKG (apt-get install $PKG)" >&2
  exit 1
fi

# One extraction at a time per tree: parallel kernel builds may ask for the
# same one; the second waits, then finds it up to date.
mkdir -p "$(dirname "$outdir")"
exec 9> "$outdir.extract.lock"
flock 9

stamp=$outdir/.kernel-src.stamp
tarid="$(stat -c '%s %Y' "$TARBALL") $TARBALL"
members="${PARTIAL_MEMBERS[*]}"

# Stamp format (one "key value" per line):
#   tarball <size> <mtime> <path>
#   mode    full|partial|incomplete
#   members <partial member list>      (only for partial)
old_tar='' old_mode='' old_members=''
if [ -f "$stamp" ]; then
  old_tar=$(sed -n 's/^tarball //p' "$stamp")
  old_mode=$(sed -n 's/^mode //p' "$stamp")
  old_members=$(sed -n 's/^members //p' "$stamp")
fi

if [ "$old_tar" = "$tarid" ]; then
  if [ "$old_mode" = full ] ||
     { [ "$old_mode" = partial ] && [ $full = 0 ] && [ "$old_members" = "$members" ]; }; then
    echo "kernel-src: $outdir is up to date ($old_mode extraction of $TARBALL)"
    exit 0
  fi
fi

# Refuse to write into a non-empty directory we did not create.
if [ -d "$outdir" ] && [ ! -f "$stamp" ] && [ -n "$(ls -A "$outdir")" ]; then
  echo "$0: $outdir is not empty and has no $(basename "$stamp"); refusing to extract into it" >&2
  exit 1
fi

# A tree from a different tarball (e.g. a new Debian upload) or an interrupted
# run is removed first so that no stale files survive. The directory is ours:
# it carries our stamp.
if [ -f "$stamp" ] && { [ "$old_tar" != "$tarid" ] || [ "$old_mode" = incomplete ]; }; then
  reason="replacing stale tree"
  find "$outdir" -mindepth 1 -delete
elif [ "$old_mode" = partial ]; then
  reason="upgrading partial tree"
else
  reason="extracting"
fi

mkdir -p "$outdir"
printf 'tarball %s\nmode incomplete\n' "$tarid" > "$stamp"

# The Debian tarball is multi-block, so xz (>= 5.4) decompresses it with
# several threads; older xz accepts -T0 and decompresses single-threaded.
untar() {
  xz -T0 -dc "$TARBALL" | tar -x -C "$outdir" --strip-components=1 --no-same-owner -f - "$@"
}

start=$SECONDS
if [ $full = 1 ]; then
  printf 'kernel-src: %s: full %s -> %s ...' "$reason" "$TARBALL" "$outdir"
  untar || { echo " FAILED" >&2; exit 1; }
  mode=full
else
  printf 'kernel-src: %s: %s (%s) -> %s ...' "$reason" "$TARBALL" "$members" "$outdir"
  untar "${PARTIAL_MEMBERS[@]/#/$TOP/}" || { echo " FAILED" >&2; exit 1; }
  mode=partial
fi

{
  printf 'tarball %s\nmode %s\n' "$tarid" "$mode"
  [ $mode = full ] || printf 'members %s\n' "$members"
} > "$stamp"
echo " done in $((SECONDS - start))s"
