/* Driver of runtime.c, built without the pass: a user-space
 * stackleak_track_stack that records the lowest stack pointer it was
 * called with and how often.  Like the kernel's, it preserves every
 * register, which the x86 asm-form call relies on. */
#include <stdio.h>

unsigned long tracked_lowest = ~0UL;
unsigned long tracked_calls;

__attribute__((no_caller_saved_registers)) void stackleak_track_stack(void)
{
	unsigned long sp;

	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	tracked_calls++;
	if (sp < tracked_lowest)
		tracked_lowest = sp;
}

int shallow(int x);
int deep(int x);
int vla(int n);
long busy(long a, long b, long c, long d);

static unsigned long sp(void)
{
	unsigned long v;

	__asm__ volatile("mov %%rsp, %0" : "=r"(v));
	return v;
}

#define RUN(call, depth)                                                     \
	do {                                                                 \
		unsigned long calls = tracked_calls, here = sp();            \
		tracked_lowest = here;                                       \
		call;                                                        \
		printf(#call ": calls +%lu, moved >= " #depth ": %s\n",      \
		       tracked_calls - calls,                                \
		       here - tracked_lowest >= (depth) ? "yes" : "no");     \
	} while (0)

int main(void)
{
	RUN(shallow(1), 0);
	RUN(deep(2), 4096);
	RUN(vla(6000), 6000);
	printf("busy: %ld\n", busy(1, 2, 3, 4));
	return 0;
}
