// byref and byref-all: locals whose address escapes (GCC's TREE_ADDRESSABLE).
// RUN: %clang $(%flags --structleak=byref --verbose) -O0 -S -emit-llvm %s -o %t.byref.ll 2> %t.byref.err
// RUN: FileCheck %s --check-prefixes=IR,IR-BYREF < %t.byref.ll
// RUN: FileCheck %s --check-prefixes=NOTE,BYREF < %t.byref.err
// RUN: %clang $(%flags --structleak=byref-all --verbose) -O0 -S -emit-llvm %s -o %t.all.ll 2> %t.all.err
// RUN: FileCheck %s --check-prefixes=IR,IR-ALL < %t.all.ll
// RUN: FileCheck %s --check-prefixes=NOTE,ALL < %t.all.err
// -O2 decides the same (the pass runs before SROA/mem2reg):
// RUN: %clang $(%flags --structleak=byref --verbose) -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=NOTE,BYREF
// RUN: %clang $(%flags --structleak=byref-all --verbose) -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=NOTE,ALL
// user mode: none of these (no __user field):
// RUN: %clang $(%flags --structleak=user --verbose) -O2 -c %s -o /dev/null 2>&1 | count 0

struct plain { char c; long l; };
union un { int i; char b[12]; };

extern void sink(void *);
extern void *global_ptr;
struct plain make(void);

// IR-LABEL: @passed_to_call(
// IR: alloca %struct.plain
// IR: call void @llvm.memset{{.*}}({{.*}} align 8 %{{.*}}, i8 0, i64 16, i1 false)
// IR: call void @sink(
long passed_to_call(void) { struct plain p; sink(&p); return p.l; }
// NOTE: byref.c:{{[0-9]+}}:42: passed_to_call(): byref variable 'p' (struct) will be forcibly initialized

// IR-LABEL: @stored_to_memory(
// IR: call void @llvm.memset{{.*}}, i8 0, i64 12, i1 false)
// IR: ret
int stored_to_memory(void) { union un u; global_ptr = &u; return u.i; }
// NOTE: stored_to_memory(): byref variable 'u' (union) will be forcibly initialized

// Through a pointer local, a member, an array member decaying:
int via_local(void) { struct plain p; struct plain *q = &p; q->c = 1; return p.c; }
// NOTE: via_local(): byref variable 'p' (struct)
// NOTE-NOT: variable 'q'
int via_member(void) { struct plain p; sink(&p.l); union un u; sink(u.b); return p.c + u.i; }
// NOTE: via_member(): byref variable 'p' (struct)
// NOTE: via_member(): byref variable 'u' (union)

// Not escaping: loads, stores, struct copies (llvm.memcpy), returning by value.
// IR-LABEL: @no_escape(
// IR-NOT: i8 0, i64 16
// IR: ret
long no_escape(struct plain *src)
{
	struct plain a, b;
	long x;
	a = *src;
	b = a;
	b.c = 3;
	x = b.l;
	return x + a.c;
}
// NOTE-NOT: no_escape()

// Arrays (also of structs) and scalars only in byref-all.
long arrays_scalars(void)
{
	struct plain many[4];
	char buf[32];
	long n;
	void *ptr;
	sink(many); sink(buf); sink(&n); sink(&ptr);
	return n;
}
// ALL: arrays_scalars(): byref variable 'many' (array)
// ALL: arrays_scalars(): byref variable 'buf' (array)
// ALL: arrays_scalars(): byref variable 'n' (scalar)
// ALL: arrays_scalars(): byref variable 'ptr' (scalar)
// BYREF-NOT: arrays_scalars()
// IR-BYREF-LABEL: @arrays_scalars(
// IR-BYREF-NOT: i8 0, i64
// IR-BYREF-NOT: store {{.*}} 0,
// IR-BYREF: ret
// IR-ALL-LABEL: @arrays_scalars(
// IR-ALL: call void @llvm.memset{{.*}}, i8 0, i64 64, i1 false)
// IR-ALL: call void @llvm.memset{{.*}}, i8 0, i64 32, i1 false)
// IR-ALL: store i64 0, {{.*}}, align 8
// IR-ALL: store {{(i8\*|ptr)}} null, {{.*}}, align 8
// IR-ALL: call void @sink(

// An `= {...}` initialiser that writes the whole object is enough;
// a struct assigned after its declaration is still zeroed.
long initialisers(void)
{
	struct plain zero = {};
	struct plain later;
	sink(&zero);
	later = make();
	sink(&later);
	return zero.l + later.l;
}
// NOTE: initialisers(): 'zero' is fully initialised by its initialiser
// NOTE: initialisers(): byref variable 'later' (struct) will be forcibly initialized
