# SPDX-License-Identifier: GPL-2.0
"""kelf.py - the little ELF64 (x86-64, little-endian) reading the static
kernel checks need: sections, symbols, .stack_sizes, prologue bytes and
relocations.  Standard library only.  The format only: what
those bytes mean for passport's features is kfacts.py's."""

import bisect
import os
import re
import shlex
import struct
import subprocess

SHT_SYMTAB = 2
SHT_RELA = 4
SHT_NOBITS = 8
SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
STT_FUNC = 2
STT_FILE = 4
STB_LOCAL = 0
SHN_UNDEF = 0
SHN_LORESERVE = 0xff00
ET_REL = 1


class Section:
    __slots__ = ("index", "name", "type", "flags", "addr", "offset", "size",
                 "link", "info", "entsize")


class Symbol:
    __slots__ = ("index", "name", "value", "size", "type", "bind", "shndx",
                 "file")


class Elf:
    """An ELF64 little-endian file read into memory."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            raise ValueError("%s: not a 64-bit little-endian ELF file" % path)
        (self.type, self.machine, _, _, _, shoff, _, _, _, _, shentsize, shnum,
         shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", d, 16)
        self.sections = []
        for i in range(shnum):
            s = Section()
            (name, s.type, s.flags, s.addr, s.offset, s.size, s.link, s.info, _,
             s.entsize) = struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
            s.index, s.name = i, name
            self.sections.append(s)
        strtab = self.sections[shstrndx]
        for s in self.sections:
            s.name = self._str(strtab, s.name)
        self._symbols = None

    def _str(self, strtab, off):
        start = strtab.offset + off
        return self.data[start:self.data.index(b"\0", start)].decode("utf-8", "replace")

    def section(self, name):
        for s in self.sections:
            if s.name == name:
                return s
        return None

    def bytes_of(self, sec):
        if sec.type == SHT_NOBITS:
            return b""
        return self.data[sec.offset:sec.offset + sec.size]

    @property
    def symbols(self):
        """Every symbol of .symtab; .file is the name of the STT_FILE symbol
        the (local) symbol follows, as linkers group locals per object."""
        if self._symbols is None:
            self._symbols = []
            tab = next((s for s in self.sections if s.type == SHT_SYMTAB), None)
            if tab:
                strtab = self.sections[tab.link]
                current_file = None
                for i in range(tab.size // 24):
                    name, info, _, shndx, value, size = struct.unpack_from(
                        "<IBBHQQ", self.data, tab.offset + i * 24)
                    y = Symbol()
                    y.index, y.name = i, self._str(strtab, name)
                    y.value, y.size, y.shndx = value, size, shndx
                    y.type, y.bind = info & 0xf, info >> 4
                    if y.type == STT_FILE:
                        current_file = y.name
                    y.file = current_file if y.bind == STB_LOCAL else None
                    self._symbols.append(y)
        return self._symbols

    def functions(self):
        """Defined STT_FUNC symbols."""
        return [y for y in self.symbols
                if y.type == STT_FUNC and y.shndx != SHN_UNDEF and y.shndx < SHN_LORESERVE]

    def section_at(self, addr):
        for s in self.sections:
            if s.flags & SHF_ALLOC and s.addr <= addr < s.addr + s.size:
                return s
        return None

    def read_at(self, addr, n):
        """N bytes at virtual address ADDR of a linked file ('' if unmapped)."""
        s = self.section_at(addr)
        if not s or s.type == SHT_NOBITS:
            return b""
        off = s.offset + addr - s.addr
        return self.data[off:min(off + n, s.offset + s.size)]


def uleb128(buf, pos):
    value = shift = 0
    while True:
        c = buf[pos]
        pos += 1
        value |= (c & 0x7f) << shift
        if not c & 0x80:
            return value, pos
        shift += 7


def stack_sizes(elf):
    """{function address: .stack_sizes value} of a linked file.  Entries are
    an 8-byte function address then a ULEB128 size; the linker resolves the
    addresses.  Entries of discarded functions resolve to 0 (or lld's
    tombstone) and are dropped."""
    sizes = {}
    for sec in elf.sections:
        if sec.name != ".stack_sizes":
            continue
        buf = elf.bytes_of(sec)
        pos = 0
        while pos < len(buf):
            addr, = struct.unpack_from("<Q", buf, pos)
            size, pos = uleb128(buf, pos + 8)
            if addr not in (0, 0xffffffffffffffff, 1):
                sizes[addr] = size
    return sizes


FTRACE_NOP = b"\x0f\x1f\x44\x00\x00"


def prologue_pushes(code):
    """Callee-saved register pushes at the start of a function's CODE (after
    an optional endbr64, the ftrace hook and mov %rsp,%rbp), the rule of
    passport-finalize: they are in .stack_sizes but not in GCC's
    get_frame_size().  -pg -mfentry puts `call __fentry__` before the
    prologue, and objtool --mnop turns it into a 5-byte NOP, which is what an
    object or vmlinux holds after the build; nothing else comes before the
    pushes (a call needs the prologue first)."""
    i = pushes = 0
    if code[:4] == b"\xf3\x0f\x1e\xfa":
        i = 4
    if code[i:i + 5] == FTRACE_NOP or code[i:i + 1] == b"\xe8":
        i += 5
    while i < len(code):
        if 0x50 <= code[i] <= 0x57:
            pushes, i = pushes + 1, i + 1
        elif code[i] == 0x41 and i + 1 < len(code) and 0x50 <= code[i + 1] <= 0x57:
            pushes, i = pushes + 1, i + 2
        elif code[i:i + 3] == b"\x48\x89\xe5":
            i += 3
        else:
            break
    return pushes


class FunctionIndex:
    """Address -> function symbol of a linked file (the symbol with the
    largest start <= address whose extent covers it)."""

    def __init__(self, funcs):
        self.funcs = sorted(funcs, key=lambda y: (y.value, -y.size))
        self.starts = [y.value for y in self.funcs]

    def at(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        while i >= 0:
            y = self.funcs[i]
            if y.value <= addr < y.value + max(y.size, 1):
                return y
            if addr - y.value > 1 << 20:
                break
            i -= 1
        return None


NOT_SET = "is not set"


def parse_config(path, not_set=False):
    """CONFIG_* of the .config file PATH as a dict (value strings, quotes
    kept).  A "# CONFIG_X is not set" line is left out, or with NOT_SET true
    kept as the value "is not set" (kernel-hardening-checker tells the two
    apart)."""
    cfg = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("CONFIG_") and "=" in line:
                k, v = line.split("=", 1)
                cfg[k] = v
            elif not_set and line.startswith("# CONFIG_") and line.endswith(" " + NOT_SET):
                cfg[line[2:-len(NOT_SET) - 1]] = NOT_SET
    return cfg


def read_config(build):
    """CONFIG_* of BUILD/.config as a dict (parse_config)."""
    return parse_config(os.path.join(build, ".config"))


def archive_members(path):
    """Object paths of a thin archive (vmlinux.a, lib.a), in link order,
    relative to the directory PATH is relative to."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"!<thin>\n"):
        out = subprocess.run(["ar", "t", path], capture_output=True, text=True, check=True)
        return [os.path.join(os.path.dirname(path), n) for n in out.stdout.split()]
    pos, names, longnames = 8, [], b""
    while pos + 60 <= len(data):
        hdr = data[pos:pos + 60]
        name = hdr[:16].decode().rstrip()
        size = int(hdr[48:58].decode().strip() or 0)
        pos += 60
        if name == "//":
            longnames = data[pos:pos + size]
            pos += size + (size & 1)
            continue
        if name in ("/", "/SYM64/"):
            pos += size + (size & 1)
            continue
        m = re.match(r"/(\d+)", name)
        if m:  # GNU ar may write "/OFFSET   .../" into the 16-byte field
            off = int(m.group(1))
            end = longnames.index(b"\n", off)
            name = longnames[off:end].decode().rstrip("/")
        else:
            name = name.rstrip("/")
        names.append(os.path.normpath(os.path.join(os.path.dirname(path), name)))
        # thin archive: no member data
    return names


def cmd_file(build, obj):
    """The Kbuild command line that produced OBJ (BUILD/dir/.name.o.cmd), or ''.
    Linux 6.1 names it cmd_OBJ, 6.12 savedcmd_OBJ."""
    d, b = os.path.split(obj)
    p = os.path.join(build, d, "." + b + ".cmd")
    try:
        with open(p, errors="replace") as f:
            for line in f:
                if line.startswith(("cmd_", "savedcmd_")):
                    return line.split(":=", 1)[1]
    except OSError:
        pass
    return ""


def compile_command(build, src):
    """The compiler argv of BUILD's .o.cmd for SRC (a path relative to the
    source tree), without ccache, -Wp,-MMD, -c, -o and the source; and the
    absolute source path it compiled; (None, None) without a .o.cmd.
    Clang LTO's -flto/-flto=thin and -fsplit-lto-unit are dropped too: the
    callers read the compiled object, which they would make bitcode.
    ValueError: a command this cannot take apart."""
    obj = src[:-2] + ".o"
    line = cmd_file(build, obj)
    if not line:
        return None, None
    if "$" in line:
        raise ValueError("%s: make escapes in the command of %s" % (build, obj))
    toks = shlex.split(line)
    if ";" in toks:
        toks = toks[:toks.index(";")]
    if toks and toks[0] == "ccache":
        toks = toks[1:]
    out, source, i = [], None, 0
    while i < len(toks):
        t = toks[i]
        if t == "-o":
            i += 2
            continue
        if (t == "-c" or t.startswith("-Wp,-MMD") or t.startswith("-Wp,-MD")
                or t == "-flto" or t.startswith("-flto=") or t == "-fsplit-lto-unit"):
            i += 1
            continue
        if i == len(toks) - 1 and t.endswith(".c"):
            source = t
            i += 1
            continue
        out.append(t)
        i += 1
    if source is None:
        raise ValueError("%s: no C source in the command of %s" % (build, obj))
    if not os.path.isabs(source):
        source = os.path.normpath(os.path.join(build, source))
    return out, source


def relocations(elf, target):
    """(offset, type, symbol, addend) of the RELA section applying to section
    index TARGET of a relocatable file."""
    out = []
    syms = elf.symbols
    for sec in elf.sections:
        if sec.type != SHT_RELA or sec.info != target:
            continue
        for i in range(sec.size // 24):
            off, info, addend = struct.unpack_from("<QQq", elf.data, sec.offset + i * 24)
            out.append((off, info & 0xffffffff, syms[info >> 32], addend))
    return out


R_X86_64_NONE, R_X86_64_64, R_X86_64_PC32, R_X86_64_PLT32 = 0, 1, 2, 4


def object_stack_sizes(elf):
    """{(section index, offset): .stack_sizes value} of a relocatable file."""
    sizes = {}
    for sec in elf.sections:
        if sec.name != ".stack_sizes":
            continue
        buf = elf.bytes_of(sec)
        rels = {off: (sym, addend) for off, _, sym, addend in relocations(elf, sec.index)}
        pos = 0
        while pos < len(buf):
            sym, addend = rels.get(pos, (None, 0))
            size, nxt = uleb128(buf, pos + 8)
            if sym is not None:
                sizes[(sym.shndx, sym.value + addend)] = size
            pos = nxt
    return sizes
