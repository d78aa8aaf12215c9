; What passport inserts into a function with a DISubprogram carries a debug
; location: line 0 in that subprogram (LLVM's mark for code no source line
; owns).  An inserted call without one breaks the verifier once LTO inlines
; it (upstream's stack-depth callback did: ClangBuiltLinux#2125).  A
; function without debug info gets none.
;
; RUN: %passport_opt -passes=passport-structleak,passport-latent-entropy,passport-stackleak \
; RUN:   -passport-structleak-mode=byref-all -passport-stackleak-track-min-size=100 \
; RUN:   -passport-verify -S %s | FileCheck %s

target triple = "x86_64-unknown-linux-gnu"

@tag = private unnamed_addr constant [24 x i8] c"passport.latent_entropy\00", section "llvm.metadata"
@name = private unnamed_addr constant [32 x i8] c"passport.structleak:struct::8:s\00", section "llvm.metadata"
@file = private unnamed_addr constant [4 x i8] c"t.c\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @with_debug, ptr @tag, ptr @file, i32 1, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @without_debug, ptr @tag, ptr @file, i32 9, ptr null }], section "llvm.metadata"

declare void @sink(ptr)
declare void @llvm.var.annotation(ptr, ptr, ptr, i32, ptr)

; CHECK-LABEL: define void @with_debug(
; CHECK-SAME:    !dbg ![[SP:[0-9]+]]
; stackleak's tracking call, latent_entropy's entry code, structleak's zeroing:
; CHECK-DAG:     call void asm sideeffect "1: call stackleak_track_stack{{.*}}, !dbg ![[L0:[0-9]+]]
; CHECK-DAG:     call ptr @llvm.frameaddress{{.*}}, !dbg ![[L0]]
; CHECK-DAG:     load volatile i64, ptr @latent_entropy{{.*}}, !dbg ![[L0]]
; CHECK-DAG:     call void @llvm.memset{{.*}}, !dbg ![[L0]]
; latent_entropy's block and exit code:
; CHECK:       more:
; CHECK-NEXT:    phi i64 {{.*}}, !dbg ![[L0]]
; CHECK-NEXT:    {{xor i64|add i64|call i64 @llvm.fshl}}{{.*}}, !dbg ![[L0]]
; CHECK:         store volatile i64 {{.*}}, ptr @latent_entropy{{.*}}, !dbg ![[L0]]
; CHECK-NEXT:    ret void, !dbg ![[RET:[0-9]+]]
define void @with_debug(i1 %c) !dbg !5 {
entry:
  %s = alloca [512 x i8], align 16
  call void @llvm.var.annotation(ptr %s, ptr @name, ptr @file, i32 2, ptr null), !dbg !8
  call void @sink(ptr %s), !dbg !8
  br i1 %c, label %more, label %done, !dbg !8
more:
  call void @sink(ptr %s), !dbg !9
  br label %done, !dbg !9
done:
  ret void, !dbg !9
}

; CHECK-LABEL: define void @without_debug(
; CHECK-NOT:     !dbg
; CHECK:         ret void
; CHECK-NEXT:  }
define void @without_debug() {
  %s = alloca [512 x i8], align 16
  call void @llvm.var.annotation(ptr %s, ptr @name, ptr @file, i32 10, ptr null)
  call void @sink(ptr %s)
  ret void
}

; CHECK-DAG: ![[SP]] = distinct !DISubprogram(name: "with_debug"
; CHECK-DAG: ![[L0]] = !DILocation(line: 0, scope: ![[SP]])
; CHECK-DAG: ![[RET]] = !DILocation(line: 4, column: 1, scope: ![[SP]])

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "hand-written", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "t.c", directory: "/")
!2 = !{}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 2, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "with_debug", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 2, column: 3, scope: !5)
!9 = !DILocation(line: 4, column: 1, scope: !5)
