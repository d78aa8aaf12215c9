/* The tracking callee for user-space programs built with --stackleak: it
 * preserves every register, as the kernel's does. */
unsigned long stackleak_lowest = ~0UL;

__attribute__((no_caller_saved_registers)) void stackleak_track_stack(void)
{
	unsigned long sp;

	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	if (sp < stackleak_lowest)
		stackleak_lowest = sp;
}
