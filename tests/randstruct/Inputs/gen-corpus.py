#!/usr/bin/env python3
"""Write a C program that defines a corpus of structs and prints, for each,
its size, alignment, every field's offsetof and every bitfield's bit
position/width (found by writing all-ones into it).  Compiled once with
gcc + the kernel's randstruct plugin and once with clang + passport, the two
outputs must be identical.

usage: gen-corpus.py SEED COUNT > corpus.c

The corpus: hand-written kernel shapes (ops tables, nested pure-ops,
randomized_struct_fields_start, typedef'd structs, flexible arrays, > 64 byte
structs) and COUNT random structs drawn from SEED (mixed scalars, arrays,
bitfields incl. unnamed and zero-width ones, anonymous members, flexible
tails, packed/aligned, randomize_layout / no_randomize_layout / pure
function-pointer structs).
"""
import random
import sys

seed, count = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed)

out = []
structs = []  # (c type name, [(access path, kind, decl text)])


def emit(s):
    out.append(s)


SCALARS = ["char", "short", "int", "long", "long long", "void *", "double",
           "fp", "_Bool", "unsigned char", "float", "long double", "u16", "u64"]
BITTYPES = [("unsigned", 32), ("int", 32), ("unsigned char", 8), ("unsigned short", 16),
            ("unsigned long", 64), ("_Bool", 1), ("long long", 64), ("enum color", 32)]

HAND = r'''
typedef void (*fp)(void);
typedef unsigned short u16;
typedef unsigned long long u64;
enum color { RED, GREEN, BLUE };
#define __randomize_layout __attribute__((randomize_layout))
#define __no_randomize_layout __attribute__((no_randomize_layout))
#define randomized_struct_fields_start struct {
#define randomized_struct_fields_end } __randomize_layout;

struct file_operations { fp owner_fn; int (*open)(void *, void *); long (*read)(void *, char *, unsigned long, long *);
	long (*write)(void *, const char *, unsigned long, long *); fp llseek, poll, mmap, release, fsync, flush; };
struct inner_ops { fp x, y, z; };
struct nested_ops { struct inner_ops in; fp a, b; union { fp u1; fp u2; }; fp arr[3]; };
struct ops_with_owner { void *owner; fp a, b, c; };
struct ops_norand { fp a, b, c, d; } __no_randomize_layout;
struct cred { int usage; unsigned uid, gid, suid, sgid, euid, egid; void *security; long flags; char comm[16]; } __randomize_layout;
struct task_like { volatile long state; void *stack; randomized_struct_fields_start int prio; int static_prio; void *mm; long utime, stime; char comm[16]; unsigned flags; randomized_struct_fields_end int last; };
typedef struct { int a; long b; char c; void *d; } __randomize_layout anon_t;
typedef struct named_td { short a; int b; long c; } __randomize_layout named_td_t;
struct flex0 { long a; int b; char c; short d; char tail[0]; } __randomize_layout;
struct flex1 { long a; int b; char c; short d; int tail[1]; } __randomize_layout;
struct flexs { int a, b, c, d; char tail[]; } __randomize_layout;
struct onefield { long a; } __randomize_layout;
struct twoflex { long a; char tail[]; } __randomize_layout;
struct big { char a[64], b[64]; long c, d, e, f, g, h, i, j; } __randomize_layout;
struct bits { int a; unsigned x:1, y:3; int b, c; } __randomize_layout;
struct bits2 { unsigned a:4, b:4, c:8; char d; unsigned long e:40; _Bool f:1; short g:9; int :0; int h; long i; } __randomize_layout;
struct INTNETTRUNKFACTORY { fp a, b, c, d; };
struct uses_ops { struct file_operations fops; int x; struct cred c; } __randomize_layout;
struct allbig { char a[64], b[100], c[64]; } __randomize_layout;
struct mixed_big { char pad[60]; int a; char b[3]; long c; char d[70]; short e; char f[65]; int g; long h; } __randomize_layout;
struct packed_s { char a; int b; short c; long d; } __attribute__((packed)) __randomize_layout;
struct aligned_s { char a; int b __attribute__((aligned(16))); short c; long d; } __randomize_layout;
'''
emit(HAND)

hand_fields = {
    "struct file_operations": "owner_fn open read write llseek poll mmap release fsync flush",
    "struct nested_ops": "in a b u1 u2 arr",
    "struct ops_with_owner": "owner a b c",
    "struct ops_norand": "a b c d",
    "struct cred": "usage uid gid suid sgid euid egid security flags comm",
    "struct task_like": "state stack prio static_prio mm utime stime comm flags last",
    "anon_t": "a b c d",
    "named_td_t": "a b c",
    "struct flex0": "a b c d tail",
    "struct flex1": "a b c d tail",
    "struct flexs": "a b c d tail",
    "struct onefield": "a",
    "struct twoflex": "a tail",
    "struct big": "a b c d e f g h i j",
    "struct bits": "a b c :x :y",
    "struct bits2": "d i h :a :b :c :e :f :g",
    "struct INTNETTRUNKFACTORY": "a b c d",
    "struct uses_ops": "fops x c",
    "struct allbig": "a b c",
    "struct mixed_big": "pad a b c d e f g h",
    "struct packed_s": "a b c d",
    "struct aligned_s": "a b c d",
    "struct inner_ops": "x y z",
}
for t, f in hand_fields.items():
    structs.append((t, f.split()))

defined = ["struct cred", "struct inner_ops", "struct big", "struct bits"]


def field_list(prefix, n, allow_bits=True, pure=False, depth=0):
    """Return (decl lines, access names); names are unique with PREFIX."""
    decls, names = [], []
    for i in range(n):
        name = "%s%d" % (prefix, i)
        r = rnd.random()
        if pure:
            if depth < 1 and r < 0.15:
                kw = rnd.choice(["struct", "union"])
                sub_d, sub_n = field_list(name + "_", rnd.randint(1, 3), pure=True, depth=depth + 1)
                decls.append("%s { %s }%s;" % (kw, " ".join(sub_d), ""))
                names += sub_n
            elif r < 0.3:
                decls.append("fp %s[%d];" % (name, rnd.randint(1, 3)))
                names.append(name)
            elif r < 0.4:
                decls.append("struct inner_ops %s;" % name)
                names.append(name)
            else:
                decls.append("int (*%s)(int);" % name if r < 0.5 else "fp %s;" % name)
                names.append(name)
            continue
        if allow_bits and r < 0.25:
            t, prec = rnd.choice(BITTYPES)
            w = rnd.randint(0, prec)
            if w == 0 or rnd.random() < 0.1:
                decls.append("%s :%d;" % (t, w))  # unnamed
            else:
                decls.append("%s %s:%d;" % (t, name, w))
                names.append(":" + name)
        elif r < 0.4:
            t = rnd.choice(SCALARS + ["char", "char"])
            k = rnd.choice([1, 2, 3, 7, 16, 33, 64, 65, 100])
            decls.append("%s %s[%d];" % (t, name, k))
            names.append(name)
        elif depth < 1 and r < 0.47:
            kw = rnd.choice(["struct", "struct", "union"])
            sub_d, sub_n = field_list(name + "_", rnd.randint(1, 4), allow_bits, depth=depth + 1)
            attr = " __randomize_layout" if kw == "struct" and rnd.random() < 0.5 else ""
            decls.append("%s { %s }%s;" % (kw, " ".join(sub_d), attr))
            names += sub_n
        elif r < 0.52 and defined:
            decls.append("%s %s;" % (rnd.choice(defined), name))
            names.append(name)
        else:
            t = rnd.choice(SCALARS)
            decls.append("%s %s;" % (t, name))
            names.append(name)
    return decls, names


for k in range(count):
    # struct names of varying length change the hash
    sname = "s%d_%s" % (k, "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rnd.randint(0, 12))))
    r = rnd.random()
    n = rnd.choice([2, 3, 4, 5, 6, 8, 10, 13, 17, 24])
    pure = r < 0.2
    decls, names = field_list("f", n, pure=pure)
    if not pure and rnd.random() < 0.2:
        t = rnd.choice(["char", "int", "long", "u16"])
        decls.append("%s tail%s;" % (t, rnd.choice(["[]", "[0]", "[1]"])))
        names.append("tail")
    if pure:
        attr = " __no_randomize_layout" if rnd.random() < 0.1 else ""
    else:
        attr = rnd.choice([" __randomize_layout"] * 7 + [" __no_randomize_layout", "",
                          " __attribute__((packed)) __randomize_layout"])
    if rnd.random() < 0.15 and "packed" not in attr:
        # typedef'd anonymous struct: hashes as "anonymous" in both
        emit("typedef struct { %s }%s %s_t;" % (" ".join(decls), attr, sname))
        structs.append(("%s_t" % sname, names))
    else:
        emit("struct %s { %s }%s;" % (sname, " ".join(decls), attr))
        structs.append(("struct " + sname, names))
        if not pure and rnd.random() < 0.3:
            defined.append("struct " + sname)

emit(r'''
#include <stdio.h>
#include <stddef.h>
#include <string.h>
/* bit offset and width of a bitfield: write all-ones into a zeroed object */
#define BITS(T, f) do { union { T s; unsigned char b[sizeof(T)]; } u; \
	memset(&u, 0, sizeof(u)); u.s.f = -1; int lo = -1, w = 0; \
	for (unsigned i = 0; i < sizeof(T) * 8; i++) \
		if (u.b[i / 8] >> (i % 8) & 1) { if (lo < 0) lo = i; w++; } \
	printf("  %s bit %d width %d\n", #f, lo, w); } while (0)
int main(void)
{''')
for t, names in structs:
    emit('\tprintf("%s size %%zu align %%zu\\n", sizeof(%s), _Alignof(%s));' % (t, t, t))
    for f in names:
        if f.startswith(":"):
            emit("\tBITS(%s, %s);" % (t, f[1:]))
        else:
            emit('\tprintf("  %s %%zu\\n", offsetof(%s, %s));' % (f, t, f))
emit("\treturn 0;\n}")
print("\n".join(out))
