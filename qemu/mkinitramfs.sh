#!/usr/bin/env bash
# Build the passport test initramfs: a static qemu/init.c as /init, plus the
# mount points it uses.
#
# usage: qemu/mkinitramfs.sh OUT.cpio.gz
#
# Needs gcc (static glibc: libc6-dev), cpio and gzip. The cpio is rebuilt
# only when init.c or this script is newer than OUT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# = 1 ] || { echo "usage: $0 OUT.cpio.gz" >&2; exit 2; }
out=$1
command -v cpio >/dev/null || { echo "$0: cpio not found (apt-get install cpio)" >&2; exit 1; }
cc=${INIT_CC:-gcc}

if [ -f "$out" ] && [ "$out" -nt "$here/init.c" ] && [ "$out" -nt "$0" ]; then
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
# /dev/console lets the kernel give init its console on fds 0-2; without
# root it cannot be made, and init opens it itself after mounting devtmpfs.
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true
mkdir -p "$(dirname "$out")"
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) | gzip -9n > "$tmp/out.cpio.gz"
mv "$tmp/out.cpio.gz" "$out"
echo "mkinitramfs: $out ($(stat -c %s "$out") bytes, init $(stat -c %s "$root/init") bytes)"
