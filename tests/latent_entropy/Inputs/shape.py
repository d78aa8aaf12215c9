#!/usr/bin/env python3
"""What latent_entropy did to an ELF64 object, in a compiler-neutral form.

  shape.py OBJ            one line per fact, sorted:
                            fn NAME        NAME references latent_entropy
                            var NAME HEX   initialised bytes of data object NAME
  shape.py --imm OBJ FN   the 64-bit immediates (movabs) and rotate counts in FN

Names are normalised across compilers: GCC's clones (f.constprop.0, f.part.0,
f.cold) are f; static locals are their own name (GCC `counter.0`, Clang
`declared.counter`).
"""
import re
import struct
import subprocess
import sys

SKIP = {"constprop", "isra", "part", "cold", "lto_priv"}


def norm_fn(name):
    return name.split(".")[0]


def norm_var(name):
    parts = [p for p in name.split(".") if p and not p.isdigit() and p not in SKIP]
    return parts[-1] if parts else name


def read_elf(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        sys.exit("shape.py: %s: not an ELF64 object" % path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = []
    for i in range(shnum):
        name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, shoff + i * shentsize)
        secs.append(dict(name=name, type=typ, off=off, size=size, link=link, info=info,
                         entsize=entsize))
    strtab = secs[shstrndx]

    def cstr(sec, off):
        start = sec["off"] + off
        return data[start:data.index(b"\0", start)].decode()

    for s in secs:
        s["name"] = cstr(strtab, s["name"])
    symtab = next(s for s in secs if s["type"] == 2)
    syms = []
    for i in range(symtab["size"] // 24):
        name, info, other, shndx, value, size = struct.unpack_from(
            "<IBBHQQ", data, symtab["off"] + i * 24)
        syms.append(dict(name=cstr(secs[symtab["link"]], name), type=info & 15,
                         shndx=shndx, value=value, size=size))
    return data, secs, syms


def shape(path):
    data, secs, syms = read_elf(path)
    target = {i for i, s in enumerate(syms) if s["name"] == "latent_entropy"}
    facts = set()
    for rel in secs:
        if rel["type"] != 4:  # SHT_RELA
            continue
        for k in range(rel["size"] // 24):
            off, info, _ = struct.unpack_from("<QQq", data, rel["off"] + k * 24)
            if info >> 32 not in target:
                continue
            for s in syms:
                if (s["type"] == 2 and s["shndx"] == rel["info"] and
                        s["value"] <= off < s["value"] + s["size"]):
                    facts.add("fn " + norm_fn(s["name"]))
    for s in syms:
        if s["type"] != 1 or not s["size"] or s["shndx"] >= len(secs) or s["shndx"] == 0:
            continue
        sec = secs[s["shndx"]]
        if sec["type"] == 8:  # SHT_NOBITS
            blob = bytes(s["size"])
        else:
            start = sec["off"] + s["value"]
            blob = data[start:start + s["size"]]
        facts.add("var %s %s" % (norm_var(s["name"]), blob.hex()))
    return sorted(facts)


def immediates(path, fn):
    out = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn", path],
                         check=True, capture_output=True, text=True).stdout
    body = re.search(r"<%s>:\n(.*?)(?:\n\n|\Z)" % re.escape(fn), out, re.S)
    if not body:
        sys.exit("shape.py: no function %s in %s" % (fn, path))
    imms = set()
    num = r"\$(-?(?:0x[0-9a-f]+|[0-9]+))"
    for m in re.finditer(r"movabsq?\s+" + num, body.group(1)):
        imms.add("imm %d" % (int(m.group(1), 0) % 2**64))
    for m in re.finditer(r"(rol|ror)q?\s+" + num + r", %r", body.group(1)):
        n = int(m.group(2), 0) % 64
        imms.add("rol %d" % (n if m.group(1) == "rol" else (64 - n) % 64))
    return sorted(imms)


if __name__ == "__main__":
    if sys.argv[1] == "--imm":
        print("\n".join(immediates(sys.argv[2], sys.argv[3])))
    else:
        print("\n".join(shape(sys.argv[1])))
