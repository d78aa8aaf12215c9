#!/usr/bin/env bash
# An initramfs with kernel modules: BASE (qemu/mkinitramfs.sh's) followed by
# a second cpio archive holding the given .ko files under /modules, where
# qemu/init.c's "modules" action loads them in name order. The kernel
# unpacks concatenated archives one after the other, so BASE is not
# rewritten.
#
# usage: qemu/add-modules.sh BASE.cpio.gz OUT.cpio.gz MODULE.ko...
#
# Needs cpio and gzip. OUT is written anew on every call.
set -euo pipefail
case ${1:-} in -h|--help) sed -n '2,/^[^#]/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -ge 3 ] || { echo "usage: $0 BASE.cpio.gz OUT.cpio.gz MODULE.ko... (--help: what it does)" >&2; exit 2; }
base=$1 out=$2
shift 2
[ -f "$base" ] || { echo "$0: $base: no such initramfs (qemu/mkinitramfs.sh makes it)" >&2; exit 1; }
for ko in "$@"; do
  [ -f "$ko" ] || { echo "$0: $ko: no such module" >&2; exit 1; }
done
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir "$root/modules"
cp "$@" "$root/modules/"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -9n) | cat "$base" - > "$out"
