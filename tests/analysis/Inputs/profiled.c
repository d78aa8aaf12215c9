/* Three functions for exec-profile.test: their addresses in the linked
 * file name the blocks of a made-up QEMU log. */
__attribute__((noinline)) long __x64_sys_getppid(long x) { return x + 1; }
__attribute__((noinline)) long hot(long x) { return x * 3 + 1; }
__attribute__((noinline)) long cold(long x) { return x ^ 5; }
