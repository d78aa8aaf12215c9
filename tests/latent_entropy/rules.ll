; latent_entropy's IR rules on hand-written IR: the functions the frontend
; annotated "passport.latent_entropy" get GCC's instrumentation (entry: frame
; address ^ latent_entropy, then OP C; each later block OP C; each exit mixes
; the local back into latent_entropy before the return, or before the call
; of `return call(...)`); noreturn functions and unannotated ones are left
; alone; the annotations leave the module; latent_entropy is declared.
;
; RUN: %passport_opt -passes=passport-latent-entropy -passport-latent-entropy-seed=1 \
; RUN:   -S %s -o %t.seed1.ll
; RUN: FileCheck %s < %t.seed1.ll
; A seed makes the constants reproducible; another seed changes them:
; RUN: %passport_opt -passes=passport-latent-entropy -passport-latent-entropy-seed=1 -S %s | diff %t.seed1.ll -
; RUN: %passport_opt -passes=passport-latent-entropy -passport-latent-entropy-seed=2 -S %s | not diff -q %t.seed1.ll - > /dev/null
; The decisions:
; RUN: %passport_opt -passes=passport-latent-entropy -passport-latent-entropy-seed=1 \
; RUN:   -passport-latent-entropy-verbose -disable-output %s 2>&1 | FileCheck %s --check-prefix=NOTE

target triple = "x86_64-unknown-linux-gnu"

@tag = private unnamed_addr constant [24 x i8] c"passport.latent_entropy\00", section "llvm.metadata"
@file = private unnamed_addr constant [4 x i8] c"t.c\00", section "llvm.metadata"
@llvm.global.annotations = appending global [3 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @mixed, ptr @tag, ptr @file, i32 1, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @noret, ptr @tag, ptr @file, i32 2, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @tail, ptr @tag, ptr @file, i32 3, ptr null }], section "llvm.metadata"

declare void @abort() noreturn
declare i32 @next(i32)

; CHECK-NOT: llvm.global.annotations
; CHECK: @latent_entropy = external dso_local global i64

; Three blocks, one exit: entry xor/add, then the op cycle, then the exit.
; CHECK-LABEL: define i32 @mixed(
; CHECK:         %[[FA:.+]] = call ptr @llvm.frameaddress.p0(i32 0)
; CHECK-NEXT:    %[[FI:.+]] = ptrtoint ptr %[[FA]] to i64
; CHECK-NEXT:    %[[LE:.+]] = load volatile i64, ptr @latent_entropy
; CHECK-NEXT:    %[[X:.+]] = xor i64 %[[FI]], %[[LE]]
; CHECK-NEXT:    {{xor|add}} i64 %[[X]], {{-?[0-9]+}}
; CHECK:       then:
; CHECK:         {{xor|add|call i64 @llvm.fshl}}
; CHECK:       done:
; CHECK:         {{xor|add|call i64 @llvm.fshl}}
; CHECK:         load volatile i64, ptr @latent_entropy
; CHECK:         store volatile i64 %{{.+}}, ptr @latent_entropy
; CHECK-NEXT:    ret i32 %r
define i32 @mixed(i1 %c) {
entry:
  br i1 %c, label %then, label %done
then:
  br label %done
done:
  %r = phi i32 [ 1, %entry ], [ 2, %then ]
  ret i32 %r
}

; CHECK-LABEL: define void @noret(
; CHECK-NEXT:    call void @abort()
define void @noret() noreturn {
  call void @abort()
  unreachable
}

; `return call(...)`: the exit mix goes before the call.
; CHECK-LABEL: define i32 @tail(
; CHECK:         store volatile i64 %{{.+}}, ptr @latent_entropy
; CHECK-NEXT:    %r = tail call i32 @next(i32 %x)
define i32 @tail(i32 %x) {
  %r = tail call i32 @next(i32 %x)
  ret i32 %r
}

; CHECK-LABEL: define i32 @plain(
; CHECK-NEXT:    ret i32 %x
define i32 @plain(i32 %x) {
  ret i32 %x
}

; NOTE: declare external latent_entropy
; NOTE: instrument mixed(): 3 blocks, 1 exits (0 before a tail call)
; NOTE: skip noret(): noreturn
; NOTE: instrument tail(): 1 blocks, 1 exits (1 before a tail call)
