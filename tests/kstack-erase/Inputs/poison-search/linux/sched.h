/* Stand-in for the kernel's <linux/sched.h>: just what <linux/stackleak.h>
 * needs to compile in user space (poison-search.c). */
#include <stdbool.h>
#define __always_inline inline __attribute__((always_inline))
struct task_struct { unsigned long lowest_stack, prev_lowest_stack; };
