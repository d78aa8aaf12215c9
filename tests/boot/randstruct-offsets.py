#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""randstruct-offsets.py - compare struct layouts of two builds from DWARF.

usage: randstruct-offsets.py [--baseline C] [--dwarfdump TOOL] [--list] A B

A, B, C: vmlinux files or relocatable objects (.o) built with debug info
(-g / CONFIG_DEBUG_INFO_DWARF4).  A and B are two builds with the same
randstruct seed (e.g. the GCC kernel and a Clang kernel); C, optional, the
same source without randstruct.

Every named struct is compared by name: its size and, member by member
(name, byte offset, bit offset and size of bitfields), its layout.  A struct
name with several different layouts inside one file (two structs of that
name in different files, or an object compiled twice) is reported as
ambiguous and not compared.

  PASS  every struct present in A and B with the same members has the same
        layout in both
  FAIL  a struct whose members are the same but whose offsets or size differ
Reported separately, with the reason, never hidden:
  different members   the struct's members differ between A and B: its
                      definition depends on the compiler (#ifdef
                      CONFIG_CC_IS_CLANG, __has_attribute, ...) - offsets
                      are not comparable
  ambiguous           several layouts under one name in A or B
  anonymous structs   no name to match by; their members' offsets are part
                      of the enclosing named struct
With C: how many compared structs differ from C ("randomized"): more than 0
shows the comparison is not vacuous (FAIL if 0).

DWARF comes from llvm-dwarfdump (llvm-dwarfdump-19 or -14, whichever is
found, or --dwarfdump).  Exit 1 on FAIL, 2 on usage errors.
"""

import argparse
import collections
import re
import shutil
import subprocess
import sys

failed = 0


def report(ok, text):
    global failed
    print(("PASS: " if ok else "FAIL: ") + text)
    failed += not ok


_DIE = re.compile(r"^0x[0-9a-f]+:(\s+)(DW_TAG_\w+|NULL)")
_ATTR = re.compile(r"^\s+(DW_AT_\w+)\s+\((.*)\)\s*$")


def _num(v):
    m = re.match(r"(0x[0-9a-f]+|\d+)", v)
    return int(m.group(1), 0) if m else None


def _str(v):
    m = re.match(r'"(.*)"$', v)
    return m.group(1) if m else v


def layouts(path, tool):
    """{struct name: set of layouts}, and the number of anonymous structs.
    A layout is (byte size, ((member, offset, bit offset, bit size), ...))
    sorted by offset."""
    proc = subprocess.Popen([tool, "--debug-info", path], stdout=subprocess.PIPE, text=True,
                            errors="replace")
    found = collections.defaultdict(set)
    anon = 0
    stack = []  # (depth, tag, attrs, members)

    def close(entry):
        nonlocal anon
        _, tag, attrs, members = entry
        if tag not in ("DW_TAG_structure_type", "DW_TAG_class_type"):
            return
        if "DW_AT_declaration" in attrs:
            return
        name = attrs.get("DW_AT_name")
        if name is None:
            anon += 1
            return
        size = _num(attrs.get("DW_AT_byte_size", ""))
        found[_str(name)].add((size, tuple(sorted(members, key=lambda m: (m[1], m[2], m[0])))))

    cur = None
    for line in proc.stdout:
        m = _DIE.match(line)
        if m:
            depth, tag = len(m.group(1)), m.group(2)
            if cur is not None:
                # the previous DIE is complete: attach it or open it
                d, t, attrs, _ = cur
                if t == "DW_TAG_member" and stack and stack[-1][0] < d:
                    mname = _str(attrs.get("DW_AT_name", '"(anon)"'))
                    loc = attrs.get("DW_AT_data_member_location", "0")
                    off = _num(loc) or 0
                    bsize = _num(attrs.get("DW_AT_bit_size", "")) or 0
                    boff = attrs.get("DW_AT_data_bit_offset")
                    if boff is not None:
                        boff = _num(boff)
                        off, boff = boff // 8, boff % 8
                    elif "DW_AT_bit_offset" in attrs:  # DWARF 2/3 big-endian style
                        boff = ("be", _num(attrs["DW_AT_bit_offset"]))
                    else:
                        boff = 0
                    stack[-1][3].append((mname, off, boff, bsize))
                stack.append(cur)
            while stack and (tag == "NULL" and stack[-1][0] >= depth - 2 or
                             tag != "NULL" and stack[-1][0] >= depth):
                e = stack.pop()
                close(e)
                if tag == "NULL" and e[0] == depth - 2:
                    break
            cur = None if tag == "NULL" else (depth, tag, {}, [])
            continue
        a = _ATTR.match(line)
        if a and cur is not None:
            cur[2][a.group(1)] = a.group(2)
    if cur is not None:
        stack.append(cur)
    while stack:
        close(stack.pop())
    if proc.wait() != 0:
        raise SystemExit("randstruct-offsets: %s failed on %s" % (tool, path))
    return found, anon


def describe(la, lb):
    """The first difference of two layouts, in words."""
    if la[0] != lb[0]:
        return "size %s vs %s" % (la[0], lb[0])
    ma = {m[0]: m for m in la[1]}
    for m in lb[1]:
        if m[0] in ma and ma[m[0]] != m:
            return "%s at %s vs %s" % (m[0], ma[m[0]][1:], m[1:])
    return "member order"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--baseline")
    ap.add_argument("--dwarfdump")
    ap.add_argument("--list", action="store_true", help="print every compared struct")
    args = ap.parse_args()
    tool = args.dwarfdump or next((t for t in ("llvm-dwarfdump-19", "llvm-dwarfdump-14",
                                               "llvm-dwarfdump") if shutil.which(t)), None)
    if not tool:
        ap.error("no llvm-dwarfdump found (apt-get install llvm-19 or llvm-14)")

    A, anon_a = layouts(args.a, tool)
    B, anon_b = layouts(args.b, tool)
    C = layouts(args.baseline, tool)[0] if args.baseline else None
    if not A or not B:
        report(False, "randstruct-offsets: no struct in the DWARF of %s" % (
            args.a if not A else args.b))
        return 1

    common = sorted(set(A) & set(B))
    same, differ, members, ambiguous, randomized = [], [], [], [], []
    for name in common:
        if len(A[name]) > 1 or len(B[name]) > 1:
            ambiguous.append("%s (%d/%d layouts)" % (name, len(A[name]), len(B[name])))
            continue
        la, lb = next(iter(A[name])), next(iter(B[name]))
        if sorted(m[0] for m in la[1]) != sorted(m[0] for m in lb[1]):
            only_a = sorted(set(m[0] for m in la[1]) - set(m[0] for m in lb[1]))
            only_b = sorted(set(m[0] for m in lb[1]) - set(m[0] for m in la[1]))
            members.append("%s (only A: %s; only B: %s)" % (
                name, ",".join(only_a) or "-", ",".join(only_b) or "-"))
            continue
        if la != lb:
            differ.append("%s: %s" % (name, describe(la, lb)))
            continue
        same.append(name)
        if C is not None and name in C and len(C[name]) == 1:
            lc = next(iter(C[name]))
            if lc != la and sorted(m[0] for m in lc[1]) == sorted(m[0] for m in la[1]):
                randomized.append(name)
        if args.list:
            print("INFO: struct %s: %d members, size %s" % (name, len(la[1]), la[0]))

    print("INFO: randstruct-offsets: A %s: %d struct names (%d anonymous structs); "
          "B %s: %d (%d anonymous)" % (args.a, len(A), anon_a, args.b, len(B), anon_b))
    if members:
        print("INFO: randstruct-offsets: %d structs with different members in A and B "
              "(compiler-specific definitions, not compared): %s" % (len(members), "; ".join(members)))
    if ambiguous:
        print("INFO: randstruct-offsets: %d struct names with several layouts in one file "
              "(not compared): %s" % (len(ambiguous), ", ".join(ambiguous[:50])))
    for d in differ:
        print("FAIL-DETAIL: randstruct-offsets: %s" % d)
    report(not differ, "randstruct-offsets: %d of %d structs present in both with the same members "
           "have different offsets (%d identical)" % (len(differ), len(same) + len(differ), len(same)))
    if C is not None:
        print("INFO: randstruct-offsets: randomized (layout differs from baseline %s): %s" % (
            args.baseline, ", ".join(randomized[:40]) + (" ..." if len(randomized) > 40 else "")))
        report(len(randomized) > 0, "randstruct-offsets: %d of the %d identical structs differ from "
               "the unrandomized baseline (the check is not vacuous)" % (len(randomized), len(same)))
    return failed and 1


if __name__ == "__main__":
    sys.exit(main())
