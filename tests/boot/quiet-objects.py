#!/usr/bin/env python3
"""quiet-objects.py - is every warning of a kernel build also the control's?

usage: tests/boot/quiet-objects.py [--kernels FILE] [--log FILE] OUT REF
       tests/boot/quiet-objects.py --attribute OUT

OUT is a built kernel (build/kernel/NAME, with the build-full.log of a
from-scratch build); REF is the name of its control in the kernel list: the
same config and compiler without passport.  Each warning line of OUT's
build is attributed to the object that printed it (objtool's
"dir/file.o: warning: objtool: ..." names it; a compiler warning names its
.c or .S file).  Only those objects are then built in REF
(scripts/kernel-build.sh --kernel REF --target OBJ..., after deleting them
there, so that make runs their commands again), and every warning of OUT
must appear in REF's output for the same object: the same text once the
source tree's path and the "+0x..." offsets (which instrumentation moves)
are left out.  This is the boot layer's "as quiet as without passport"
for a compiler whose plain from-scratch build CI has no time for.

A warning no object can be named for (the linker's, modpost's, a header's)
fails the check: only a full build of REF could vouch for it.

Prints "PASS: ..." or "FAIL: ..." (with "FAIL-DETAIL: " lines naming the
warnings not explained) and exits 0 only on PASS.  --log keeps REF's build
output (default: build/boot-tests/NAME.quiet-objects.log).  --attribute
builds nothing: it prints each warning line of OUT's build after the object
it is attributed to ("-" for none).
"""
import argparse
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, 'analysis'))
import kfacts  # noqa: E402
OBJTOOL = re.compile(r'^(\S+\.o): warning: objtool: ')
COMPILER = re.compile(r'^(\S+\.[cS]):\d+:\d+: warning: ')


def roots(out):
    """The source tree and the build directory of a kernel build."""
    return (os.path.realpath(os.path.join(out, 'source')), out)


def tree_relative(path, out):
    """A source path as the build printed it, relative to the source tree."""
    for root in roots(out):
        if path.startswith(root + '/'):
            return path[len(root) + 1:]
    return path


def object_of(line, out):
    """The object (relative to OUT) whose command printed LINE, or None."""
    m = OBJTOOL.match(line)
    if m:
        obj = m.group(1)
    else:
        m = COMPILER.match(line)
        if not m:
            return None
        obj = re.sub(r'\.[cS]$', '.o', tree_relative(m.group(1), out))
    head, base = os.path.split(obj)
    return obj if os.path.exists(os.path.join(out, head, '.' + base + '.cmd')) else None


def normalized(line, out):
    """LINE without what differs between the two builds of one object."""
    for root in roots(out):  # the two builds' trees differ (patched and plain)
        line = line.replace(root + '/', '')
    return re.sub(r'\+0x[0-9a-f]+', '+0x…', line)


def main():
    ap = argparse.ArgumentParser(usage=argparse.SUPPRESS, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out', metavar='OUT', help='the built kernel: build/kernel/NAME')
    ap.add_argument('ref', metavar='REF', nargs='?', help='its control: a kernel name of the list')
    ap.add_argument('--attribute', action='store_true',
                    help="print each warning's object, build nothing")
    ap.add_argument('--kernels', metavar='FILE', default=os.path.join(REPO, 'qemu/kernels.txt'),
                    help='the kernel list that defines REF (default: qemu/kernels.txt)')
    ap.add_argument('--log', metavar='FILE', help="where REF's build output goes")
    a = ap.parse_args()
    if (a.ref is None) != a.attribute:
        ap.error('give REF, or --attribute without one')
    out = os.path.abspath(a.out)
    name = os.path.basename(out)
    mine = kfacts.build_warnings(out)
    if mine is None:
        print(f'FAIL: no from-scratch build log {os.path.join(out, "build-full.log")}')
        return 1
    if a.attribute:
        for line in mine:
            print(f'{object_of(line, out) or "-"}\t{line}')
        return 0
    if not mine:
        print(f'PASS: 0 warning lines in {name}\'s build: nothing to attribute')
        return 0
    objs = {line: object_of(line, out) for line in mine}
    orphans = [line for line, obj in objs.items() if obj is None]
    if orphans:
        print(f'FAIL: {len(orphans)} of {len(mine)} warning lines name no object, '
              f'so building objects in {a.ref} cannot vouch for them')
        for line in orphans:
            print(f'FAIL-DETAIL: {line}')
        return 1
    targets = sorted(set(objs.values()))
    ref_out = os.path.join(REPO, 'build/kernel', a.ref)
    for obj in targets:  # make runs an existing object's command only if it is out of date
        try:
            os.remove(os.path.join(ref_out, obj))
        except FileNotFoundError:
            pass
    log = a.log or os.path.join(REPO, 'build/boot-tests', f'{name}.quiet-objects.log')
    cmd = [os.path.join(REPO, 'scripts/kernel-build.sh'), '--kernel', a.ref, '--kernels', a.kernels]
    for obj in targets:
        cmd += ['--target', obj]
    with open(log, 'w') as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
    if rc != 0:
        print(f'FAIL: building {" ".join(targets)} in {a.ref} failed (log: {log})')
        return 1
    theirs = {normalized(line, ref_out) for line in kfacts.build_warnings(ref_out, 'build.log')}
    unexplained = [line for line in mine if normalized(line, out) not in theirs]
    if unexplained:
        print(f'FAIL: {len(unexplained)} of {len(mine)} warning lines are not in {a.ref}\'s build '
              f'of the same objects ({" ".join(targets)}; log: {log})')
        for line in unexplained:
            print(f'FAIL-DETAIL: {line}')
        return 1
    print(f'PASS: all {len(mine)} warning lines also come from {a.ref}\'s build of '
          f'{" ".join(targets)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
