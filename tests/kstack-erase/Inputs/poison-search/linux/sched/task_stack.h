/* Stand-in for <linux/sched/task_stack.h> (poison-search.c). */
#define end_of_stack(t) ((unsigned long *)0)
#define task_pt_regs(t) ((void *)0)
