/* Functions whose final frames stackleak's coverage rule judges. */
extern void sink(char *p);

/* A frame far above the threshold that calls out: must be tracked. */
void big_caller(void)
{
	char buf[512];
	sink(buf);
}

/* A small frame: never needs the call. */
void small_caller(void)
{
	char buf[16];
	sink(buf);
}

/* A static inline leaf with a large frame: GCC's plugin skips it, so the
 * rule excludes it (found through the compiler's -MD file). */
static inline __attribute__((noinline)) int inline_leaf(int i)
{
	volatile char buf[400];
	buf[i] = 1;
	return buf[i / 2];
}

int use_leaf(int i)
{
	return inline_leaf(i);
}
