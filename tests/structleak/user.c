// user mode: structs/unions with a __user field, directly or through nested
// structs and arrays of structs; both spellings of __user; never a warning.
// RUN: %clang $(%flags --structleak=user --verbose) -Werror -Wall -O0 -S -emit-llvm %s -o %t.ll 2> %t.err
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=NOTE < %t.err
// The same decisions at -O2 (the pass runs before any optimisation):
// RUN: %clang $(%flags --structleak=user --verbose) -Werror -Wall -O2 -S -emit-llvm %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTE
// The attribute is always registered: no warning with the pass off either.
// RUN: %clang -fplugin=%plugin -Werror -Wall -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=OFF
// Without the plugin Clang does warn (the test can fail):
// RUN: not %clang -Werror -Wall -O0 -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

#define __user __attribute__((user))
#define __tag_user __attribute__((btf_type_tag("user")))

struct uptr { int len; char __user *buf; };
struct tagged { int len; char __tag_user *buf; };
struct nested { long x; struct uptr inner; };
struct via_array { long x; struct uptr many[3]; };
union with_user { long x; struct uptr u; };
struct plain { char c; long l; };
struct via_pointer { long x; struct uptr *p; };	/* pointers do not propagate */

extern void sink(void *);
extern long read_user(char __user *p);	/* __user on a parameter: silent */

// CHECK-LABEL: @direct(
// CHECK: %[[V:.*]] = alloca %struct.uptr
// CHECK: call void @llvm.memset.p0{{(i8)?}}.i64({{.*}}%{{.*}}, i8 0, i64 16, i1 false)
// CHECK-NOT: llvm.var.annotation
// CHECK: ret
long direct(void) { struct uptr v; v.len = 1; return v.len; }

// CHECK-LABEL: @spellings(
// CHECK: call void @llvm.memset{{.*}}i64 16, i1 false)
// CHECK: ret
long spellings(void) { struct tagged t; t.len = 2; return t.len; }

// CHECK-LABEL: @nested_and_arrays(
// CHECK-COUNT-3: call void @llvm.memset{{.*}}, i8 0, i64 {{24|56|16}}, i1 false)
// CHECK-NOT: call void @llvm.memset
// CHECK: ret
long nested_and_arrays(void)
{
	struct nested n;
	struct via_array a;
	union with_user w;
	struct uptr arr[2];		/* an array: GCC covers records only */
	struct plain p;			/* no __user */
	struct via_pointer vp;		/* pointer to a __user struct */
	n.x = a.x = w.x = p.l = vp.x = 1;
	arr[0].len = 3;
	return n.x + a.x + w.x + p.l + vp.x + arr[0].len;
}

// Clang's own `= {}` memset, and no second one:
// CHECK-LABEL: @initialised(
// CHECK: call void @llvm.memset{{.*}}i64 16, i1 false)
// CHECK-NOT: call void @llvm.memset
// CHECK: ret
long initialised(void) { struct uptr v = {}; return v.len; }

// NOTE: user.c:{{[0-9]+}}:33: direct(): userspace variable 'v' (struct) will be forcibly initialized
// NOTE: user.c:{{[0-9]+}}:38: spellings(): userspace variable 't' (struct) will be forcibly initialized
// NOTE: nested_and_arrays(): userspace variable 'n' (struct) will be forcibly initialized
// NOTE: nested_and_arrays(): userspace variable 'a' (struct) will be forcibly initialized
// NOTE: nested_and_arrays(): userspace variable 'w' (union) will be forcibly initialized
// NOTE-NOT: will be forcibly
// NOTE: initialised(): 'v' is fully initialised by its initialiser
// NOTE-NOT: will be forcibly

// OFF-NOT: annotation
// OFF-LABEL: @direct(
// OFF-NOT: llvm.memset
// OFF: ret
// NOPLUGIN: unknown attribute 'user' ignored
