/* Stand-in for <linux/linkage.h>, which 6.12's <linux/stackleak.h> includes
 * for the declarations of the erase and tracking functions (poison-search.c:
 * they are declared, never called). */
#define asmlinkage
#define noinstr
#define __no_caller_saved_registers
