#!/usr/bin/env python3
"""Compare the member offsets in DWARF (llvm-dwarfdump --debug-info output on
stdin) with the ones the program printed (file argv[1], lines
"struct.member BYTE" or "struct.member bit BIT").  Prints one line per
member and 'mismatch' for any disagreement; exit 1 then."""
import re
import sys

want = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 2:
        want[p[0]] = ("byte", int(p[1]))
    elif len(p) == 3 and p[1] == "bit":
        want[p[0]] = ("bit", int(p[2]))

got = {}
struct = None
member = None
for line in sys.stdin:
    m = re.search(r"DW_TAG_(\w+)", line)
    if m:
        tag = m.group(1)
        member = {} if tag == "member" else None
        if tag == "structure_type":
            struct = ""
        continue
    m = re.search(r"DW_AT_name\s+\(\"([^\"]*)\"\)", line)
    if m:
        if member is not None:
            member["name"] = m.group(1)
        elif struct == "":
            struct = m.group(1)
        continue
    m = re.search(r"DW_AT_(data_member_location|data_bit_offset|bit_offset|bit_size|byte_size)\s+\((0x[0-9a-f]+)\)", line)
    if m and member is not None and "name" in member:
        member[m.group(1)] = int(m.group(2), 16)
        key = "%s.%s" % (struct, member["name"])
        if "data_bit_offset" in member:                     # DWARF 5
            got[key] = ("bit", member["data_bit_offset"])
        elif "bit_size" in member and "bit_offset" in member and "byte_size" in member \
                and "data_member_location" in member:       # DWARF 4 (x86: little endian)
            got[key] = ("bit", member["data_member_location"] * 8 + member["byte_size"] * 8
                        - member["bit_offset"] - member["bit_size"])
        elif "bit_size" not in member and "data_member_location" in member:
            got[key] = ("byte", member["data_member_location"])

bad = 0
for k, v in sorted(want.items()):
    g = got.get(k)
    print("%s %s %d dwarf %s" % (k, v[0], v[1], g[1] if g else "missing"))
    if g != v:
        print("mismatch: %s" % k)
        bad = 1
print("checked %d members" % len(want))
sys.exit(bad)
