#!/usr/bin/env bash
# Build the passport test initramfs: a static qemu/init.c as /init, plus the
# mount points it uses, and the cost benchmark bench/guest-bench.c as /bench
# (init's "bench" action; used by ./passport compare).
#
# usage: qemu/mkinitramfs.sh OUT.cpio.gz
#
# Needs gcc (static glibc: libc6-dev), cpio and gzip. The cpio is rebuilt
# only when init.c, the benchmark sources or this script is newer than OUT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case ${1:-} in -h|--help) sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# = 1 ] || { echo "usage: $0 OUT.cpio.gz (--help: what it does)" >&2; exit 2; }
out=$1
command -v cpio >/dev/null || { echo "$0: cpio not found (apt-get install cpio)" >&2; exit 1; }
cc=${INIT_CC:-gcc}

bench=$here/../bench
up_to_date() {
  local f
  [ -f "$out" ] || return 1
  for f in "$here/init.c" "$here/say.h" "$0" "$bench"/guest-bench.c "$bench"/erase-loops.[ch]; do
    [ ! -e "$f" ] || [ "$out" -nt "$f" ] || return 1
  done
}
if up_to_date; then
  echo "mkinitramfs: $out is up to date"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root"/{dev,proc,sys,tmp}
"$cc" -static -Os -Wall -Wextra -Werror -o "$root/init" "$here/init.c" \
  || { echo "$0: compiling init.c failed" >&2; exit 1; }
strip "$root/init"
# The erase models are compiled like kernel code (general registers only),
# the benchmark itself normally.
if [ -f "$bench/guest-bench.c" ]; then
  "$cc" -O2 -mgeneral-regs-only -Wall -Wextra -Werror -c -o "$tmp/erase-loops.o" "$bench/erase-loops.c" \
    && "$cc" -static -O2 -Wall -Wextra -Werror -o "$root/bench" "$bench/guest-bench.c" "$tmp/erase-loops.o" \
    || { echo "$0: compiling bench/guest-bench.c failed" >&2; exit 1; }
  strip "$root/bench"
fi
# /dev/console lets the kernel give init its console on fds 0-2; without
# root it cannot be made, and init opens it itself after mounting devtmpfs.
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true
mkdir -p "$(dirname "$out")"
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) | gzip -9n > "$tmp/out.cpio.gz"
mv "$tmp/out.cpio.gz" "$out"
echo "mkinitramfs: $out ($(stat -c %s "$out") bytes, init $(stat -c %s "$root/init") bytes)"
