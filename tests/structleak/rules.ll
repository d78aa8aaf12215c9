; structleak's IR rules on hand-written IR: the frontend's annotations
; (passport.structleak:KIND:FLAGS:COLUMN:NAME, flags u = __user type,
; i = aggregate initialiser) in, zeroing out, per mode.
;
; RUN: %passport_opt -passes=passport-structleak -passport-structleak-mode=user \
; RUN:   -S %s | FileCheck %s --check-prefixes=CHECK,USER
; RUN: %passport_opt -passes=passport-structleak -passport-structleak-mode=byref \
; RUN:   -S %s | FileCheck %s --check-prefixes=CHECK,BYREF
; RUN: %passport_opt -passes=passport-structleak -passport-structleak-mode=byref-all \
; RUN:   -S %s | FileCheck %s --check-prefixes=CHECK,ALL
; The decisions, one line each, with GCC's wording and the declaration's place:
; RUN: %passport_opt -passes=passport-structleak -passport-structleak-mode=byref-all \
; RUN:   -passport-structleak-verbose -disable-output %s 2>&1 | FileCheck %s --check-prefix=NOTE

target triple = "x86_64-unknown-linux-gnu"

%struct.s = type { i32, i8, i64 }

@file = private unnamed_addr constant [4 x i8] c"t.c\00", section "llvm.metadata"
@a_s = private unnamed_addr constant [32 x i8] c"passport.structleak:struct::8:s\00", section "llvm.metadata"
@a_u = private unnamed_addr constant [33 x i8] c"passport.structleak:struct:u:8:u\00", section "llvm.metadata"
@a_n = private unnamed_addr constant [32 x i8] c"passport.structleak:scalar::6:n\00", section "llvm.metadata"
@a_k = private unnamed_addr constant [32 x i8] c"passport.structleak:struct::8:k\00", section "llvm.metadata"
@a_f = private unnamed_addr constant [33 x i8] c"passport.structleak:struct:i:8:f\00", section "llvm.metadata"

declare void @use(ptr)
declare void @llvm.var.annotation(ptr, ptr, ptr, i32, ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; A struct whose address goes to a call: byref and byref-all zero it, whole
; (padding included), right after its declaration's annotation.
; CHECK-LABEL: define void @escaping_struct(
; USER-NOT:      call void @llvm.memset
; BYREF:         %s = alloca %struct.s
; BYREF-NEXT:    call void @llvm.memset.p0.i64(ptr align 8 %s, i8 0, i64 16, i1 false)
; BYREF-NEXT:    call void @use(ptr %s)
; ALL:           call void @llvm.memset.p0.i64(ptr align 8 %s, i8 0, i64 16, i1 false)
; CHECK:         ret void
define void @escaping_struct() {
  %s = alloca %struct.s, align 8
  call void @llvm.var.annotation(ptr %s, ptr @a_s, ptr @file, i32 3, ptr null)
  call void @use(ptr %s)
  ret void
}

; A struct with a __user field is zeroed in every mode, even if it never escapes.
; CHECK-LABEL: define i32 @user_struct(
; CHECK-NEXT:    %u = alloca %struct.s
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr align 8 %u, i8 0, i64 16, i1 false)
define i32 @user_struct() {
  %u = alloca %struct.s, align 8
  call void @llvm.var.annotation(ptr %u, ptr @a_u, ptr @file, i32 9, ptr null)
  %v = load i32, ptr %u
  ret i32 %v
}

; An escaping scalar: only byref-all, with a store of zero.
; CHECK-LABEL: define void @escaping_scalar(
; USER-NOT:      store i64 0
; BYREF-NOT:     store i64 0
; ALL:           %n = alloca i64
; ALL-NEXT:      store i64 0, ptr %n, align 8
; CHECK:         call void @use(ptr %n)
define void @escaping_scalar() {
  %n = alloca i64, align 8
  call void @llvm.var.annotation(ptr %n, ptr @a_n, ptr @file, i32 15, ptr null)
  call void @use(ptr %n)
  ret void
}

; A struct only loaded and stored through (its address never escapes): left alone.
; CHECK-LABEL: define i32 @kept_struct(
; CHECK-NOT:     call void @llvm.memset
; CHECK:         ret i32
define i32 @kept_struct() {
  %k = alloca %struct.s, align 8
  call void @llvm.var.annotation(ptr %k, ptr @a_k, ptr @file, i32 21, ptr null)
  store i32 1, ptr %k
  %v = load i32, ptr %k
  ret i32 %v
}

; `= {...}` that Clang emits as one full-size memset: GCC's CONSTRUCTOR, skipped.
; CHECK-LABEL: define void @initialised_struct(
; CHECK:         call void @llvm.memset.p0.i64(ptr align 8 %f, i8 1, i64 16, i1 false)
; CHECK-NOT:     call void @llvm.memset
; CHECK:         ret void
define void @initialised_struct() {
  %f = alloca %struct.s, align 8
  call void @llvm.var.annotation(ptr %f, ptr @a_f, ptr @file, i32 27, ptr null)
  call void @llvm.memset.p0.i64(ptr align 8 %f, i8 1, i64 16, i1 false)
  call void @use(ptr %f)
  ret void
}

; No annotation survives the pass.
; CHECK-NOT: llvm.var.annotation(ptr

; NOTE-DAG: t.c:3:8: escaping_struct(): byref variable 's' (struct) will be forcibly initialized
; NOTE-DAG: t.c:9:8: user_struct(): userspace variable 'u' (struct) will be forcibly initialized
; NOTE-DAG: t.c:15:6: escaping_scalar(): byref variable 'n' (scalar) will be forcibly initialized
; NOTE-DAG: t.c:27:8: initialised_struct(): 'f' is fully initialised by its initialiser
