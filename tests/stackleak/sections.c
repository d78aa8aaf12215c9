// GCC's excluded sections get no call; any other section does.
// RUN: %clang $(%flags --stackleak=0 --verbose) -O2 -S -emit-llvm %s -o - 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=NOTE < %t.err

extern void use(void *);
#define BIG(name, sec) __attribute__((section(sec))) void name(void) { char b[256]; use(b); }

BIG(f_init, ".init.text")
BIG(f_devinit, ".devinit.text")
BIG(f_cpuinit, ".cpuinit.text")
BIG(f_meminit, ".meminit.text")
BIG(f_noinstr, ".noinstr.text")
BIG(f_entry, ".entry.text")
BIG(f_head, ".head.text")
BIG(f_irqentry, ".irqentry.text")
BIG(f_text, ".text")

// CHECK-LABEL: @f_init(
// CHECK-NOT: asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: @f_devinit(
// CHECK-NOT: asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: @f_cpuinit(
// CHECK-NOT: asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: @f_meminit(
// CHECK-NOT: asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: @f_noinstr(
// CHECK-NOT: asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: @f_entry(
// CHECK-NOT: asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: @f_head(
// CHECK-NOT: asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: @f_irqentry(
// CHECK: call void asm sideeffect "{{(1: )?}}call stackleak_track_stack
// CHECK-LABEL: @f_text(
// CHECK: call void asm sideeffect "{{(1: )?}}call stackleak_track_stack

// NOTE: skip f_init(): section .init.text
// NOTE: skip f_head(): section .head.text
