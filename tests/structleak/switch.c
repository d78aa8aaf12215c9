// A declaration before the first `case` never runs, so Clang emits nothing
// for it; the frontend hoists such storage-only declarations in front of
// the switch, so the variable is zeroed like any other (GCC's plugin zeroes
// it at function entry; the kernel's stackinit test_switch_*_none cases).
// RUN: %clang $(%flags --structleak=byref-all --verbose) -O2 -Wno-switch-unreachable -S -emit-llvm %s -o %t.ll 2> %t.err
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=NOTE < %t.err
// Without the pass nothing is zeroed (the test can fail):
// RUN: %clang -O2 -Wno-switch-unreachable -S -emit-llvm %s -o - | FileCheck %s --check-prefix=NONE
// The program still behaves the same (initialised preamble declarations stay):
// RUN: %clang $(%flags --structleak=byref-all) -O2 -Wno-switch-unreachable %s -DMAIN -o %t && %t

struct s { long a, b; };
void sink(void *p);

// CHECK-LABEL: @preamble(
// CHECK: call void @llvm.memset{{.*}}i8 0, i64 16, i1 false)
// CHECK: call void @llvm.memset{{.*}}i8 0, i64 32, i1 false)
// CHECK: switch i32
// NOTE: switch.c:[[@LINE+7]]:12: preamble(): byref variable 'v' (struct) will be forcibly initialized
// NOTE: switch.c:[[@LINE+7]]:8: preamble(): byref variable 'arr' (array) will be forcibly initialized
// NONE-LABEL: @preamble(
// NONE-NOT: call void @llvm.memset
int preamble(int path)
{
	switch (path) {
		struct s v;
		long arr[4];
	case 1:
		sink(&v);
		break;
	case 2:
		sink(arr);
		break;
	}
	return 0;
}

// An initialiser before the first case never runs: the declaration stays
// where it is (hoisting would run it), and the value is not 7 in case 1.
int initialised(int path)
{
	switch (path) {
		int n = 7;
	case 1:
		n = 1;
		return n;
	}
	return 0;
}

#ifdef MAIN
void sink(void *p) { (void)p; }
int main(void) { return preamble(1) + initialised(1) - 1; }
#endif
