; One function each of passport's IR passes acts on (debugging.test).
target triple = "x86_64-unknown-linux-gnu"

@tag = private unnamed_addr constant [24 x i8] c"passport.latent_entropy\00", section "llvm.metadata"
@name = private unnamed_addr constant [32 x i8] c"passport.structleak:struct::8:s\00", section "llvm.metadata"
@file = private unnamed_addr constant [4 x i8] c"t.c\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @mixed, ptr @tag, ptr @file, i32 1, ptr null }], section "llvm.metadata"

declare void @sink(ptr)
declare void @llvm.var.annotation(ptr, ptr, ptr, i32, ptr)

define void @big_frame() {
  %s = alloca [512 x i8], align 16
  call void @llvm.var.annotation(ptr %s, ptr @name, ptr @file, i32 2, ptr null)
  call void @sink(ptr %s)
  ret void
}

define i32 @mixed(i32 %x) {
  ret i32 %x
}
