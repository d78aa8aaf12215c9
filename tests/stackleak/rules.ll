; stackleak's IR rules on hand-written IR (no clang, so no codegen churn):
; which functions get the entry call, where the call after a dynamic alloca
; goes, and what is never instrumented.
;
; frame=estimate decides from the static allocas:
; RUN: %passport_opt -passes=passport-stackleak -passport-stackleak-track-min-size=100 \
; RUN:   -passport-stackleak-frame=estimate -S %s | FileCheck %s --check-prefixes=CHECK,EST
; frame=final (the default) gives every candidate a removable entry call,
; recorded in .discard.passport_stackleak_entry for passport-finalize, but
; for a function whose frame the IR bounds below the threshold (frame-bound.ll):
; RUN: %passport_opt -passes=passport-stackleak -passport-stackleak-track-min-size=100 \
; RUN:   -S %s | FileCheck %s --check-prefixes=CHECK,FINAL,PROVE
; RUN: %passport_opt -passes=passport-stackleak -passport-stackleak-track-min-size=100 \
; RUN:   -passport-stackleak-prove-small=off -S %s | FileCheck %s --check-prefixes=CHECK,FINAL,ALL
; The opt-out and the required option:
; RUN: %passport_opt -passes=passport-stackleak -passport-stackleak-track-min-size=100 \
; RUN:   -passport-stackleak-disable -S %s | FileCheck %s --check-prefix=OFF
; RUN: not %passport_opt -passes=passport-stackleak -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOMIN

target triple = "x86_64-unknown-linux-gnu"

declare void @sink(ptr)

; A frame of 512 bytes: tracked in both modes; the function loses its red zone.
; CHECK-LABEL: define void @big_frame(
; EST-NEXT:      alloca [512 x i8]
; EST-NEXT:      call i64 @llvm.read_register.i64(
; EST-NEXT:      call void asm sideeffect "call stackleak_track_stack", "{rsp},~{memory}
; FINAL:         call void asm sideeffect "1: call stackleak_track_stack\0A\09.pushsection .discard.passport_stackleak_entry
; CHECK:         call void @sink(
define void @big_frame() {
  %b = alloca [512 x i8], align 16
  call void @sink(ptr %b)
  ret void
}

; 16 bytes: the estimate leaves it alone; final mode bounds it by 24 (the
; alloca, 8 bytes of padding) and records that, or with prove-small=off lets
; passport-finalize decide.
; CHECK-LABEL: define void @small_frame(
; EST-NOT:       stackleak_track_stack
; PROVE-NOT:     stackleak_track_stack
; PROVE:         .pushsection .discard.passport_stackleak_small,{{.*}}.quad 1b\0A\09.long 24\0A
; PROVE-NOT:     stackleak_track_stack
; ALL:           call void asm sideeffect "1: call stackleak_track_stack
; CHECK:         ret void
define void @small_frame() {
  %b = alloca [16 x i8], align 16
  call void @sink(ptr %b)
  ret void
}

; A dynamic alloca (VLA) outside the entry block: a plain call right after
; it, whatever the mode, and the entry call too.
; CHECK-LABEL: define void @vla(
; CHECK:         call void asm sideeffect "{{(1: )?}}call stackleak_track_stack
; CHECK:       grow:
; CHECK-NEXT:    %v = alloca i8, i64 %n
; CHECK-NEXT:    call i64 @llvm.read_register.i64(
; CHECK-NEXT:    call void asm sideeffect "call stackleak_track_stack", "{rsp}
define void @vla(i64 %n) {
entry:
  br label %grow
grow:
  %v = alloca i8, i64 %n, align 16
  call void @sink(ptr %v)
  ret void
}

; Code outside the task stack: never instrumented.
; CHECK-LABEL: define void @early_init(
; CHECK-NOT:     stackleak_track_stack
; CHECK:         ret void
define void @early_init() section ".init.text" {
  %b = alloca [512 x i8], align 16
  call void @sink(ptr %b)
  ret void
}

; GCC's leaf exceptions: a static inline leaf, a _paravirt_ leaf.
; CHECK-LABEL: define internal i8 @inline_leaf(
; CHECK-NOT:     stackleak_track_stack
; CHECK:         ret i8
define internal i8 @inline_leaf(i64 %i) inlinehint {
  %b = alloca [512 x i8], align 16
  %p = getelementptr i8, ptr %b, i64 %i
  %v = load volatile i8, ptr %p
  ret i8 %v
}

; CHECK-LABEL: define i8 @_paravirt_leaf(
; CHECK-NOT:     stackleak_track_stack
; CHECK:         ret i8
define i8 @_paravirt_leaf(i64 %i) {
  %b = alloca [512 x i8], align 16
  %p = getelementptr i8, ptr %b, i64 %i
  %v = load volatile i8, ptr %p
  ret i8 %v
}

; The same leaf, not static: an ordinary candidate.
; CHECK-LABEL: define i8 @plain_leaf(
; EST:           call void asm sideeffect "call stackleak_track_stack"
; FINAL:         call void asm sideeffect "1: call stackleak_track_stack
define i8 @plain_leaf(i64 %i) {
  %b = alloca [512 x i8], align 16
  %p = getelementptr i8, ptr %b, i64 %i
  %v = load volatile i8, ptr %p
  ret i8 %v
}

; The tracker never tracks itself.
; CHECK-LABEL: define void @stackleak_track_stack(
; CHECK-NOT:     call void asm
; CHECK:         ret void
define void @stackleak_track_stack() {
  %b = alloca [512 x i8], align 16
  call void @sink(ptr %b)
  ret void
}

; CHECK: attributes #{{[0-9]+}} = { noredzone }

; OFF-NOT: stackleak_track_stack"
; NOMIN: passport: error: stackleak: track-min-size is required: -mllvm -passport-stackleak-track-min-size=N
