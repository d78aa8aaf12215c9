// GCC's attribute errors, the uapi error, the flexible-array string rule, and
// positional initialisers of randomized structs (an error: the positions
// would silently name other fields).  {} and {0} are allowed, as with
// Clang's own randstruct (all-zero whatever the order); GCC's
// designated_init (registered by passport) warns on any positional element.
// RUN: not %clang $(%flags --randstruct=full --seed-file=%root/gcc-plugins/test.seed) -fsyntax-only %s 2>&1 | FileCheck %s --check-prefixes=CHECK,%randstruct_attrs
// Without passport randstruct the struct keeps its order: no positional error.
// RUN: %clang -fplugin=%plugin -fsyntax-only -DONLY_INIT %s 2>&1 | FileCheck %s --check-prefix=OFF
#define __randomize_layout __attribute__((randomize_layout))
struct s { int a; long b; char c; } __randomize_layout;
struct d { int a, b; } __attribute__((designated_init));
struct outer { struct s in; int z; };
struct one { int a; } __randomize_layout;

struct s g1 = { 1, 2, 3 };
// CHECK: diagnostics.c:[[@LINE-1]]:17: error: positional initialization of field in randomized 'struct s': passport randstruct reordered its fields; use a designated initializer
// OFF-NOT: error
struct s g2 = { .a = 1, .b = 2 };
struct s g3 = { 0 };
struct s g4 = { };
struct d g5 = { 1, 2 };
// CHECK: diagnostics.c:[[@LINE-1]]:17: warning: positional initialization of field in 'struct d' declared with 'designated_init' attribute
// OFF: diagnostics.c:[[@LINE-2]]:17: warning: positional initialization of field in 'struct d' declared with 'designated_init' attribute
struct outer g7 = { 1, 2, 3, 4 };
// CHECK: diagnostics.c:[[@LINE-1]]:21: error: positional initialization of field in randomized 'struct s'
struct outer g8 = { .in.a = 1, .z = 4 };
struct outer g9 = { { .a = 1 }, 4 };
struct one g10 = { 5 };
int f(void)
{
	struct s l1 = { 4, 5 };
// CHECK: diagnostics.c:[[@LINE-1]]:18: error: positional initialization of field in randomized 'struct s'
	struct s *p = &(struct s){ 7 };
// CHECK: diagnostics.c:[[@LINE-1]]:29: error: positional initialization of field in randomized 'struct s'
	struct s arr[2] = { { .a = 1 }, { 2 } };
// CHECK: diagnostics.c:[[@LINE-1]]:36: error: positional initialization of field in randomized 'struct s'
// CHECK-NOT: diagnostics.c:[[@LINE-2]]
	return l1.a + p->a + arr[0].a;
}
#ifndef ONLY_INIT
union u { int a; long b; } __randomize_layout;
// OWN: diagnostics.c:[[@LINE-1]]:28: error: 'randomize_layout' attribute used on 'union u' applies to struct types only
// NATIVE: diagnostics.c:[[@LINE-2]]:7: error: 'randomize_layout' attribute used on 'union u' applies to struct types only
union du { int a; } __attribute__((designated_init));
// CHECK: diagnostics.c:[[@LINE-1]]:36: error: 'designated_init' attribute is only valid on 'struct' type
struct fl { int a, b; char t[]; } __randomize_layout;
struct fl f1 = { .a = 1, .t = "hello" };
struct fl1 { int a, b; int t[1]; } __randomize_layout;
struct fl1 f2 = { .a = 1, .t = { 5 } };
// CHECK: diagnostics.c:[[@LINE-1]]:32: error: Only string constants are supported as initializers for randomized structures with flexible arrays
void fn(void) __randomize_layout;
// OWN: diagnostics.c:[[@LINE-1]]:15: error: 'randomize_layout' attribute does not apply to functions ('fn')
int var __randomize_layout;
// OWN: diagnostics.c:[[@LINE-1]]:9: error: 'randomize_layout' attribute does not apply to variables ('var')
struct twice { int a, b; } __randomize_layout __randomize_layout;
// OWN: diagnostics.c:[[@LINE-1]]:47: error: 'randomize_layout' attribute is already applied to the type 'struct twice'
void parm(int x __randomize_layout);
// OWN: diagnostics.c:[[@LINE-1]]:17: error: 'randomize_layout' attribute does not apply to function parameters ('x')
#line 1 "include/uapi/linux/foo.h"
struct uapi { int a, b; } __randomize_layout;
// CHECK: include/uapi/linux/foo.h:1:8: error: attempted to randomize userland API struct uapi
// Clang >= 15 parses randomize_layout itself and only warns on functions,
// variables and parameters: passport turns that into GCC's error.
// NATIVE: diagnostics.c:51:15: error: 'randomize_layout' attribute does not apply to functions, variables or parameters
// NATIVE: diagnostics.c:53:9: error: 'randomize_layout' attribute does not apply to functions, variables or parameters
// NATIVE: diagnostics.c:57:17: error: 'randomize_layout' attribute does not apply to functions, variables or parameters
#endif
