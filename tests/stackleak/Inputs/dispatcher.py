#!/usr/bin/env python3
"""dispatcher.py N: an x86-64 .ll module with dispatch(i32, ptr), a switch
over N cases that each call their own handler with the pointer and return
its result, the shape of the kernel's x64_sys_call(). For the frame-bound
tests (frame-bound-large.test)."""
import sys

n = int(sys.argv[1])
print('target triple = "x86_64-unknown-linux-gnu"')
for i in range(n):
    print("declare i64 @h%d(ptr)" % i)
print("define i64 @dispatch(i32 %n, ptr %regs) {")
print("entry:")
print("  switch i32 %%n, label %%default [ %s ]" % " ".join("i32 %d, label %%c%d" % (i, i) for i in range(n)))
for i in range(n):
    print("c%d:" % i)
    print("  %%r%d = tail call i64 @h%d(ptr %%regs)" % (i, i))
    print("  ret i64 %%r%d" % i)
print("default:")
print("  ret i64 -38")
print("}")
