// GCC's two leaf exceptions: static inline leaves and _paravirt_* leaves.
// Other leaves, and static inline functions that call, are instrumented.
// The tracker itself never is.
// RUN: %clang $(%flags --stackleak=0 --verbose) -O2 -S -emit-llvm %s -o - 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=NOTE < %t.err

extern void use(void *);

static inline int sil_leaf(int *p) { return *p + 1; }
static inline int sil_calls(int *p) { use(p); return *p; }
int _paravirt_nop(int *p) { return *p; }
int _paravirt_calls(int *p) { use(p); return *p; }
int plain_leaf(int *p) { return *p * 3; }
void stackleak_track_stack(void) { char b[200]; use(b); }

int (*keep[])(int *) = { sil_leaf, sil_calls, _paravirt_nop, _paravirt_calls };

// CHECK-LABEL: define {{.*}}@_paravirt_nop(
// CHECK-NOT: asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: define {{.*}}@_paravirt_calls(
// CHECK: call void asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: define {{.*}}@plain_leaf(
// CHECK: call void asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: define {{.*}}@stackleak_track_stack(
// CHECK-NOT: asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK: ret void
// CHECK-LABEL: define {{.*}}@sil_leaf(
// CHECK-NOT: asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: define {{.*}}@sil_calls(
// CHECK: call void asm sideeffect "{{(1: )?}}call stackleak_track_stack

// NOTE-DAG: skip sil_leaf(): static inline leaf
// NOTE-DAG: skip _paravirt_nop(): _paravirt_ leaf
