; frame=final on x86-64: no call where the IR bounds the final frame below
; track-min-size (llvm-passes/frame-bound.c). The bound (the record's .long)
; is allocas + stack-passed arguments + 8 per asm operand that may be memory
; + 8, + 48 for six callee-saved pushes when a value lives across a call or
; over nine at once, + 8 for a frame pointer; it exists only while at most 5
; registers' worth of values live across a call and at most 11 at once in any
; order of a block's data dependences (and of its volatile accesses and
; calls, which keep their order).
; Candidates' notes say what decided.
; RUN: %passport_opt -passes=passport-stackleak -passport-stackleak-track-min-size=100 \
; RUN:   -passport-stackleak-verbose -S %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=NOTE
; RUN: FileCheck %s < %t.ll

target triple = "x86_64-unknown-linux-gnu"

declare void @f()
declare void @g(i64, i64, i64, i64, i64, i64, i64, i64)
declare void @take(ptr byval([64 x i8]))

; Five values live across the call fit the callee-saved registers.
; NOTE-DAG: skip across5(): frame <= 56 < 100 bytes (IR bound, checked by passport-finalize)
; CHECK-LABEL: define i64 @across5(
; CHECK-NOT:     stackleak_track_stack
; CHECK:         .discard.passport_stackleak_small{{.*}}.long 56\0A
define i64 @across5(i64 %a, i64 %b, i64 %c, i64 %d, i64 %e) {
  call void @f()
  %t1 = add i64 %a, %b
  %t2 = add i64 %t1, %c
  %t3 = add i64 %t2, %d
  %t4 = add i64 %t3, %e
  ret i64 %t4
}

; Six may not: the call stays, for passport-finalize to judge.
; NOTE-DAG: candidate across6(): {{.*}}IR bound: 6 registers live, 6 across a call (at most 11 and 5))
; CHECK-LABEL: define i64 @across6(
; CHECK:         call stackleak_track_stack
define i64 @across6(i64 %a, i64 %b, i64 %c, i64 %d, i64 %e, i64 %f) {
  call void @f()
  %t1 = add i64 %a, %b
  %t2 = add i64 %t1, %c
  %t3 = add i64 %t2, %d
  %t4 = add i64 %t3, %e
  %t5 = add i64 %t4, %f
  ret i64 %t5
}

; No call: eleven registers' worth at once (the pointer and ten loads, live
; before the eleventh) is still bounded, twelve is not.
; NOTE-DAG: skip live11(): frame <= 56 < 100 bytes
; CHECK-LABEL: define i64 @live11(
; CHECK-NOT:     stackleak_track_stack
define i64 @live11(ptr %p) {
  %v1 = load volatile i64, ptr %p
  %v2 = load volatile i64, ptr %p
  %v3 = load volatile i64, ptr %p
  %v4 = load volatile i64, ptr %p
  %v5 = load volatile i64, ptr %p
  %v6 = load volatile i64, ptr %p
  %v7 = load volatile i64, ptr %p
  %v8 = load volatile i64, ptr %p
  %v9 = load volatile i64, ptr %p
  %v10 = load volatile i64, ptr %p
  %v11 = load volatile i64, ptr %p
  %s1 = add i64 %v1, %v2
  %s2 = add i64 %s1, %v3
  %s3 = add i64 %s2, %v4
  %s4 = add i64 %s3, %v5
  %s5 = add i64 %s4, %v6
  %s6 = add i64 %s5, %v7
  %s7 = add i64 %s6, %v8
  %s8 = add i64 %s7, %v9
  %s9 = add i64 %s8, %v10
  %s10 = add i64 %s9, %v11
  ret i64 %s10
}

; NOTE-DAG: candidate live12(): {{.*}}IR bound: 12 registers live, 0 across a call
; CHECK-LABEL: define i64 @live12(
; CHECK:         stackleak_track_stack
define i64 @live12(ptr %p) {
  %v1 = load volatile i64, ptr %p
  %v2 = load volatile i64, ptr %p
  %v3 = load volatile i64, ptr %p
  %v4 = load volatile i64, ptr %p
  %v5 = load volatile i64, ptr %p
  %v6 = load volatile i64, ptr %p
  %v7 = load volatile i64, ptr %p
  %v8 = load volatile i64, ptr %p
  %v9 = load volatile i64, ptr %p
  %v10 = load volatile i64, ptr %p
  %v11 = load volatile i64, ptr %p
  %v12 = load volatile i64, ptr %p
  %s1 = add i64 %v1, %v2
  %s2 = add i64 %s1, %v3
  %s3 = add i64 %s2, %v4
  %s4 = add i64 %s3, %v5
  %s5 = add i64 %s4, %v6
  %s6 = add i64 %s5, %v7
  %s7 = add i64 %s6, %v8
  %s8 = add i64 %s7, %v9
  %s9 = add i64 %s8, %v10
  %s10 = add i64 %s9, %v11
  %s11 = add i64 %s10, %v12
  ret i64 %s11
}

; A value live in a loop's header is live through the whole loop (the phi's
; incoming value from the latch counts at the latch's end).
; NOTE-DAG: candidate loop(): {{.*}}IR bound: 7 registers live, 6 across a call
; CHECK-LABEL: define i64 @loop(
; CHECK:         call stackleak_track_stack
define i64 @loop(i64 %a, i64 %b, i64 %c, i64 %d, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %j, %head ]
  call void @f()
  %j = add i64 %i, 1
  %done = icmp eq i64 %j, %n
  br i1 %done, label %out, label %head
out:
  %t1 = add i64 %a, %b
  %t2 = add i64 %t1, %c
  %t3 = add i64 %t2, %d
  ret i64 %t3
}

; An i128 takes two registers.
; NOTE-DAG: candidate wide(): {{.*}}IR bound: 6 registers live, 6 across a call
; CHECK-LABEL: define i128 @wide(
; CHECK:         call stackleak_track_stack
define i128 @wide(i128 %a, i128 %b, i128 %c) {
  call void @f()
  %t1 = add i128 %a, %b
  %t2 = add i128 %t1, %c
  ret i128 %t2
}

; Frame objects: a 16-byte alloca (16), two arguments on the stack (16), an
; asm operand that may be memory ("imr": 8; the "r" one and the indirect
; "*m" one need no slot of their own), the padding (8), and %x lives across
; the call to @g (48): 96.
; NOTE-DAG: skip objects(): frame <= 96 < 100 bytes
; CHECK-LABEL: define void @objects(
; CHECK-NOT:     stackleak_track_stack
; CHECK:         .long 96\0A
define void @objects(i64 %x, ptr %p) {
  %b = alloca [16 x i8], align 8
  call void @g(i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7, i64 8)
  call void asm sideeffect "cmp $0, $1", "imr,r,~{dirflag},~{fpsr},~{flags}"(i64 %x, i64 %x)
  call void asm sideeffect "incq $0", "=*m,~{dirflag},~{fpsr},~{flags}"(ptr elementtype(i64) %p)
  call void @sink(ptr %b)
  ret void
}

; The same with 8 more bytes of alloca: 104, not below the threshold.
; NOTE-DAG: candidate objects_big(): {{.*}}IR bound: frame <= 104 bytes)
; CHECK-LABEL: define void @objects_big(
; CHECK:         call stackleak_track_stack
define void @objects_big(i64 %x, ptr %p) {
  %b = alloca [24 x i8], align 8
  call void @g(i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7, i64 8)
  call void asm sideeffect "cmp $0, $1", "imr,r,~{dirflag},~{fpsr},~{flags}"(i64 %x, i64 %x)
  call void asm sideeffect "incq $0", "=*m,~{dirflag},~{fpsr},~{flags}"(ptr elementtype(i64) %p)
  call void @sink(ptr %b)
  ret void
}

; A leaf with a frame pointer: its push counts (8 + 8).
; NOTE-DAG: skip with_fp(): frame <= 16 < 100 bytes
define i64 @with_fp(i64 %a) "frame-pointer"="all" {
  ret i64 %a
}

; va_start saves the argument registers in the frame: no bound.
; NOTE-DAG: candidate varargs(): {{.*}}IR bound: variable arguments)
; CHECK-LABEL: define void @varargs(
; CHECK:         call stackleak_track_stack
define void @varargs(ptr %fmt, ...) {
  call void @sink(ptr %fmt)
  ret void
}

; A byval argument is a copy of any size: no bound.
; NOTE-DAG: candidate byval(): {{.*}}IR bound: a dynamic alloca or a byval argument)
; CHECK-LABEL: define void @byval(
; CHECK:         call stackleak_track_stack
define void @byval(ptr %p) {
  call void @take(ptr byval([64 x i8]) %p)
  ret void
}

declare void @sink(ptr)

; The stack protector's canary is a slot of the final frame, added in
; codegen: 8 more where sspreq is set, or ssp/sspstrong and a local that it
; may protect (found on Debian's config: __wake_up(), 40 bytes of locals,
; bounded by 96 without the canary, had a 104-byte frame under -mfentry).
; NOTE-DAG: skip canary(): frame <= 40 < 100 bytes
; NOTE-DAG: skip no_canary(): frame <= 32 < 100 bytes
; NOTE-DAG: skip strong_no_local(): frame <= 8 < 100 bytes
; NOTE-DAG: skip canary_req(): frame <= 16 < 100 bytes
define void @canary() sspstrong {
  %b = alloca [24 x i8], align 1
  call void @sink(ptr %b)
  ret void
}

define void @no_canary() {
  %b = alloca [24 x i8], align 1
  call void @sink(ptr %b)
  ret void
}

define void @strong_no_local() sspstrong {
  call void @f()
  ret void
}

define void @canary_req() sspreq {
  call void @f()
  ret void
}

; A frame address is a value like the others: the register allocator may
; keep it in a callee-saved register across calls rather than recompute it.
; Debian's __wake_up(), this loop, kept five values and its local's address
; in six callee-saved registers and spilled the sixth value: no bound.
; NOTE-DAG: candidate frame_address_across(): {{.*}}IR bound: {{[0-9]+}} registers live, 6 across a call
declare i64 @lock(ptr)
declare i32 @common(ptr, i32, i32, ptr, ptr)
declare void @unlock(ptr, i64)
define i32 @frame_address_across(ptr %q, i32 %mode, i32 %nr, ptr %key) {
entry:
  %e = alloca [40 x i8], align 8
  br label %loop
loop:
  %n = phi i32 [ %nr, %entry ], [ %r, %loop ]
  %flags = call i64 @lock(ptr %q)
  %r = call i32 @common(ptr %q, i32 %mode, i32 %n, ptr %key, ptr %e)
  call void @unlock(ptr %q, i64 %flags)
  %v = load i32, ptr %e
  %c = icmp eq i32 %v, 0
  br i1 %c, label %done, label %loop
done:
  %d = sub i32 %nr, %r
  ret i32 %d
}
