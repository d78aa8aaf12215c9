/* SPDX-License-Identifier: GPL-2.0 */
/*
 * passport.h - the contract between the passes and the rest of the plugin.
 *
 * A pass is a C function over one module plus a table of options.  It
 * registers itself by adding a `struct passport_pass` to passport_passes[]
 * (passes.c).  The C++ shim (shim.cpp) turns each table entry into
 *
 *   -mllvm -passport-NAME              schedule the pass at its extension point
 *   -mllvm -passport-NAME-verbose      one line per decision on stderr
 *   -mllvm -passport-NAME-disable      do nothing (wins over -passport-NAME;
 *                                      Kbuild appends it per file)
 *   -mllvm -passport-NAME-OPTION=VAL   one per entry of pass->options
 *
 * and fills in the values before pass->run() is called.  Passes never parse
 * strings or print by hand: they use the helpers below, so every pass reports
 * errors and decisions the same way.
 *
 * The helpers hide the typed-pointer (LLVM 14) vs opaque-pointer (LLVM >= 15)
 * difference: they only use the *2 builders and never ask a pointer for its
 * element type.  Every other version difference is compat.h's.
 *
 * Debugging.  Each pass is "passport-NAME" to the pass manager:
 *   - -mllvm -passport-NAME-verbose (./passport flags --verbose): one line
 *     per decision on stderr, with the function, variable and reason;
 *   - -mllvm -print-after=passport-NAME (and -print-before=, -filter-print-
 *     funcs=F): the module right after the pass; -Xclang -fdebug-pass-manager
 *     shows where each pass runs in clang's pipeline;
 *   - -mllvm -passport-verify (--verify): the IR verifier after every pass,
 *     naming the pass that broke the module;
 *   - on IR alone: opt -load=PLUGIN -load-pass-plugin=PLUGIN
 *     -passes=passport-NAME -passport-NAME-OPTION=... file.ll (-load too,
 *     because LLVM 14's opt parses options before it loads pass plugins);
 *     the rules.ll tests of each pass are small examples.
 */
#ifndef PASSPORT_H
#define PASSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

/* ---- passes and their options ------------------------------------------ */

enum passport_extension_point {
	/* before any optimisation: allocas and lifetime markers still there */
	PASSPORT_EP_PIPELINE_START,
	/* after inlining and SROA: the allocas left approximate the frame */
	PASSPORT_EP_OPTIMIZER_LAST,
	/* not an IR pass: C++ frontend code reads the options through
	 * passport_pass_named() (randstruct, attributes) */
	PASSPORT_EP_FRONTEND,
};

struct passport_option {
	const char *name;	/* "track-min-size" -> -passport-PASS-track-min-size */
	const char *help;
	/* filled in by the shim before each run */
	const char *value;	/* last value given, NULL if never given */
};

struct passport_pass {
	const char *name;	/* "stackleak" */
	const char *help;
	enum passport_extension_point ep;
	struct passport_option *options;	/* NULL-name terminated */
	bool (*run)(const struct passport_pass *pass, LLVMModuleRef M);
	/* optional, for a pass whose ep is later: what must happen at
	 * PipelineStart, before inlining (pipeline name passport-NAME-prepare) */
	bool (*prepare)(const struct passport_pass *pass, LLVMModuleRef M);
	/* filled in by the shim before each run */
	bool enabled;
	bool verbose;
	bool disabled;
};

/* NULL-terminated; defined in passes.c */
extern struct passport_pass *const passport_passes[];

/* The pass called NAME with its options filled in from the command line
 * (for frontend code, which is not run by the shim), or NULL. */
struct passport_pass *passport_pass_named(const char *name);

/* The option called NAME of PASS (a programming error if there is none). */
const struct passport_option *passport_option(const struct passport_pass *pass,
					      const char *name);

/*
 * Integer value of an option in [min, max].  Not given: *out = dflt and
 * false.  Given but not a decimal integer in range: fatal error naming the
 * option, the value and the range.
 */
bool passport_option_long(const struct passport_pass *pass, const char *name,
			  long min, long max, long dflt, long *out);

/*
 * Index of the option's value in the NULL-terminated list CHOICES, or dflt
 * when not given.  Any other value: fatal error listing the choices.
 */
int passport_option_choice(const struct passport_pass *pass, const char *name,
			   const char *const *choices, int dflt);

/* ---- diagnostics -------------------------------------------------------- */

/* "passport: PASS: ..." on stderr, only if the pass is verbose. */
void passport_note(const struct passport_pass *pass, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "passport: error: PASS: ..." on stderr, then exit(1): bad input, never a crash. */
void passport_fatal(const struct passport_pass *pass, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Run LLVM's IR verifier on M after PASS ran (-mllvm -passport-verify, for
 * every pass): invalid IR stops the compiler with the verifier's first line,
 * naming the pass, instead of crashing later in code generation. */
void passport_verify_module(const struct passport_pass *pass, LLVMModuleRef M);

/* ---- functions ---------------------------------------------------------- */

/* The function's name (never NULL). */
const char *passport_name(LLVMValueRef fn);

/* A definition (has a body)? */
bool passport_is_definition(LLVMValueRef fn);

/* The function's explicit section, or "" if it has none. */
const char *passport_section(LLVMValueRef fn);

/* Is the function's section one of the NULL-terminated LIST? */
bool passport_in_sections(LLVMValueRef fn, const char *const *list);

/* Has the enum attribute NAME ("noinline", "inlinehint", ...)? */
bool passport_has_fn_attr(LLVMValueRef fn, const char *name);

/* Add the enum attribute NAME to the function. */
void passport_add_fn_attr(LLVMValueRef fn, const char *name);

/* Remove the enum attribute NAME from the function, if this LLVM knows the
 * name and the function has it. */
void passport_remove_fn_attr(LLVMValueRef fn, const char *name);

/* Does any instruction call something that becomes a real call? (Intrinsics
 * that lower to no code - debug info, lifetime markers, assume - do not
 * count; memcpy/memset do, as GCC counts builtins.) */
bool passport_makes_calls(LLVMValueRef fn);

/* Is instruction I such a call (not an inline asm, not a free intrinsic)? */
bool passport_is_real_call(LLVMValueRef i);

/* Is the target x86 (32 or 64 bit)? */
bool passport_target_is_x86(LLVMModuleRef M);

/* Call FN(global, ctx), in array order, for every function or variable that
 * llvm.global.annotations marks with exactly the string ANNOTATION (Clang's
 * __attribute__((annotate(...))), which frontend code adds implicitly), and
 * remove those entries so that they keep nothing alive; other entries stay,
 * and the array is deleted once empty.  Returns how many were found. */
unsigned passport_take_annotated(LLVMModuleRef M, const char *annotation,
				 void (*fn)(LLVMValueRef global, void *ctx), void *ctx);

/* ---- allocas ------------------------------------------------------------ */

/* A dynamic alloca: non-constant size, or outside the entry block.  The
 * backend gives exactly these a variable-sized stack object. */
bool passport_alloca_is_dynamic(LLVMValueRef alloca);

/* Bytes of a static alloca (element size * count). */
uint64_t passport_alloca_bytes(LLVMModuleRef M, LLVMValueRef alloca);

/* Call FN(alloca, ctx) for every alloca of F, in block order; a callback
 * that inserts after the alloca is fine (iteration already moved on). */
void passport_for_each_alloca(LLVMValueRef f,
			      void (*fn)(LLVMValueRef alloca, void *ctx), void *ctx);

/* The alloca that pointer V is derived from through bitcasts, GEPs and
 * addrspacecasts (instructions or constant expressions), or NULL. */
LLVMValueRef passport_underlying_alloca(LLVMValueRef v);

/* The bytes of the constant string global that pointer V points to (through
 * constant GEPs/bitcasts; LLVM 14 passes `getelementptr (@.str, 0, 0)`, 19
 * `@.str`), without a trailing NUL; NULL if V is not such a pointer. */
const char *passport_const_string(LLVMValueRef v, size_t *len);

/* ---- inserting code ----------------------------------------------------- */

/* Passes position their builder only through these.  Each also gives what
 * B then inserts a debug location when the function has a DISubprogram:
 * line 0 (LLVM's mark for code no source line owns) in that subprogram.
 * Without one, a call inlined under LTO breaks the verifier (upstream's
 * stack-depth callback did, ClangBuiltLinux#2125). */

/* Position B at the first instruction of F's entry block that is not an
 * alloca or phi: the earliest point where code can run. */
void passport_position_at_entry(LLVMBuilderRef b, LLVMValueRef f);

/* Position B at the very start of F's entry block (for allocas). */
void passport_position_at_top(LLVMBuilderRef b, LLVMValueRef f);

/* Position B right before instruction I. */
void passport_position_before(LLVMBuilderRef b, LLVMValueRef i);

/* Position B right after instruction I. */
void passport_position_after(LLVMBuilderRef b, LLVMValueRef i);

/* ---- declaring symbols -------------------------------------------------- */

/* Mark GLOBAL, a declaration passport just added to M, the way Clang marks
 * its own: dso_local unless M is position-independent.  The kernel is
 * compiled -fno-pic; a non-dso_local data symbol would be reached through
 * the GOT (R_X86_64_REX_GOTPCRELX), which the kernel's relocs tool rejects
 * in a KASLR (RELOCATABLE) build. */
void passport_declared_like_clang(LLVMModuleRef M, LLVMValueRef global);

/* Implemented in shim.cpp (no C API): set GLOBAL's dso_local flag. */
void passport_set_dso_local(LLVMValueRef global);

/* Implemented in shim.cpp: the constraint string of an InlineAsm value
 * (not NUL-terminated; LEN bytes). */
const char *passport_inline_asm_constraints(LLVMValueRef inline_asm, size_t *len);

/* ---- frames (frame-bound.c) ---------------------------------------------- */

/* An upper bound of F's final x86-64 frame in bytes (locals, spill slots,
 * padding, and callee-saved pushes that passport-finalize may not tell from
 * them), in *BOUND, when F is small enough to
 * need no spill slot; false when there is none.  WHY says, in either case,
 * what decided it (register counts, or what has no bound).  A model of the
 * register allocator: its users must have the bound checked after code
 * generation. */
bool passport_frame_bound(LLVMModuleRef M, LLVMValueRef f, uint64_t *bound,
			  char *why, size_t why_len);

/* External declaration of a global variable NAME of type TY in M. */
LLVMValueRef passport_declare_global(LLVMModuleRef M, LLVMTypeRef ty, const char *name);

/* Declaration of `void NAME(void)` in M, created if missing. */
LLVMValueRef passport_void_fn(LLVMModuleRef M, const char *name);

/* Insert a call to `void NAME(void)` at B's position. */
LLVMValueRef passport_insert_void_call(LLVMBuilderRef b, LLVMModuleRef M,
				       const char *name);

/* Insert `asm sideeffect TEXT` with CONSTRAINTS (inputs first, then
 * clobbers, e.g. "r,~{dirflag},~{fpsr},~{flags}") and NARGS integer or
 * pointer inputs ARGS at B's position; it returns nothing. */
LLVMValueRef passport_insert_asm(LLVMBuilderRef b, const char *text,
				 const char *constraints, LLVMValueRef *args,
				 unsigned nargs);

/* Insert a read of the stack pointer register (llvm.read_register of
 * "rsp"/"esp"), as an integer of pointer width.  An inline asm that takes it
 * as a "{rsp}" input cannot be placed before the prologue: shrink-wrapping
 * keeps the frame setup ahead of any non-call user of the stack pointer. */
LLVMValueRef passport_insert_read_sp(LLVMBuilderRef b, LLVMModuleRef M);

#endif /* PASSPORT_H */
