#!/usr/bin/env python3
"""Per function: instructions and .stack_sizes frame of a plain object vs the
same source with stackleak.  Prints one line per function and exits 1 unless
every function has exactly EXPECTED more instructions and the same frame."""
import re
import subprocess
import sys


def functions(obj):
    out = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn", obj],
                         check=True, capture_output=True, text=True).stdout
    insns, name = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            name = m.group(1)
            insns[name] = []
        elif name and re.match(r"^\s+[0-9a-f]+:\s+\S", line):
            insns[name].append(line.split(":", 1)[1].split()[0])
    return insns


def frames(obj):
    out = subprocess.run(["llvm-readobj", "--stack-sizes", obj],
                         check=True, capture_output=True, text=True).stdout
    return {m.group(1): int(m.group(2), 16)
            for m in re.finditer(r"Functions: \[(\S+)\]\s+Size: 0x([0-9A-Fa-f]+)", out)}


plain, instr, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
pi, ii, pf, jf = functions(plain), functions(instr), frames(plain), frames(instr)
ok = True
for fn in sorted(pi):
    delta = len(ii[fn]) - len(pi[fn])
    spills = sum(m in ("push", "pushq", "pop", "popq") for m in ii[fn]) - \
        sum(m in ("push", "pushq", "pop", "popq") for m in pi[fn])
    good = delta == expected and spills == 0 and pf.get(fn) == jf.get(fn)
    ok &= good
    print(f"{fn}: insns {len(pi[fn])} -> {len(ii[fn])} (+{delta}), push/pop +{spills}, "
          f"frame {pf.get(fn)} -> {jf.get(fn)} {'ok' if good else 'MISMATCH'}")
sys.exit(0 if ok else 1)
