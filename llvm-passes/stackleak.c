// SPDX-License-Identifier: GPL-2.0
/*
 * stackleak.c - track the lowest stack pointer for STACKLEAK stack erasing.
 *
 * Inserts a call to stackleak_track_stack() at the entry of every candidate
 * function and after every dynamic alloca (VLA, alloca()).  Like the GCC
 * plugin it skips the sections of code that runs before or outside the task
 * stack, static inline leaves and _paravirt_* leaves, and never instruments
 * the tracker itself.
 *
 * GCC keeps the entry call only if the *final* frame is >= track-min-size.
 * The IR cannot know that (spill slots come later), so by default
 * (frame=final) every candidate gets the call and `passport-finalize`
 * rewrites it into a same-size NOP after code generation where the frame in
 * .stack_sizes turned out smaller and there is no dynamic alloca.  A NOP
 * still runs, so on x86-64 a function whose frame cannot reach the threshold
 * (frame-bound.c: allocas, stack arguments, asm slots, and no register
 * pressure that could spill) gets no call at all; it gets a record of its
 * bound instead, in ENTRY_SECTION's sibling SMALL_SECTION, and
 * passport-finalize stops the build if its real frame reached the threshold.
 * frame=estimate decides here from the static allocas instead (what
 * upstream LLVM's stack-depth callback does); it misses spill-heavy frames
 * and is only for builds that cannot run the post-step.
 *
 * On x86 the call is GCC's asm form, `asm volatile("call
 * stackleak_track_stack" :: "{rsp}"(sp) : "memory")`: the backend does not
 * see a call, so the function stays a leaf, nothing caller-saved is spilled
 * and the frame is the same as without the pass; the stack-pointer input
 * keeps it after the prologue even when shrink-wrapping sinks the prologue.  The callee must preserve all registers
 * (the kernel declares it __no_caller_saved_registers).  The function gets
 * `noredzone` because the asm's call writes below the stack pointer.
 *
 * Options (-mllvm -passport-stackleak-KEY=VALUE):
 *   track-min-size=N   required; frames >= N bytes are tracked (0..4096)
 *   frame=final|estimate
 *   prove-small=on|off  frame=final on x86-64: leave out the call where the
 *                      IR bounds the frame below N (default on)
 * Debugging: -passport-stackleak-verbose says, per function, why it is
 * skipped, a candidate, or left out with its bound; passport-finalize
 * --verbose then gives the real frames.
 * and the common -passport-stackleak[-verbose|-disable].
 */
#include <stdio.h>
#include <string.h>

#include "passport.h"

#define TRACKER "stackleak_track_stack"

/* Code that runs before the task stack exists or must not be instrumented. */
static const char *const excluded_sections[] = {
	".init.text", ".devinit.text", ".cpuinit.text", ".meminit.text",
	".noinstr.text", ".entry.text", ".head.text", NULL,
};

enum frame_rule { FRAME_FINAL, FRAME_ESTIMATE };
static const char *const frame_rules[] = { "final", "estimate", NULL };
static const char *const on_off[] = { "off", "on", NULL };

struct stackleak {
	const struct passport_pass *pass;
	LLVMModuleRef M;
	LLVMBuilderRef b;
	bool asm_form;
	const char *sp_constraint;
	long min_size;
	enum frame_rule rule;
	bool prove_small;
	/* per function */
	LLVMValueRef fn;
	unsigned dynamic_allocas;
	bool entry_tracked;
	uint64_t static_bytes;
};

/*
 * The x86 asm form.  An entry call that passport-finalize may remove also
 * records its address in ENTRY_SECTION (a .discard.* section: the kernel's
 * linker script drops it, and user-space links keep it as non-alloc data),
 * so the post-step tells it from the calls after dynamic allocas, which stay.
 */
#define ENTRY_SECTION ".discard.passport_stackleak_entry"
static const char asm_call[] = "call " TRACKER;
static const char asm_entry_call[] =
	"1: call " TRACKER "\n\t"
	".pushsection " ENTRY_SECTION ",\"\",@progbits\n\t"
	".quad 1b\n\t"
	".popsection";

/* A function left without a call, for passport-finalize to check: where it
 * is (a label at its entry, which emits no code) and the bound. */
#define SMALL_SECTION ".discard.passport_stackleak_small"

static void record_left_out(struct stackleak *s, uint64_t bound)
{
	char text[160];

	snprintf(text, sizeof(text),
		 "1:\n\t.pushsection " SMALL_SECTION ",\"\",@progbits\n\t"
		 ".quad 1b\n\t.long %u\n\t.popsection", (unsigned)bound);
	passport_position_at_entry(s->b, s->fn);
	passport_insert_asm(s->b, text, "", NULL, 0);
}

/* The optimizer ran before this pass and may have inferred that F touches
 * no global memory; the tracker writes some, so forget what it inferred. */
static void forget_memory_effects(LLVMValueRef f)
{
	static const char *const effects[] = {
		"readnone", "readonly", "writeonly", "argmemonly", "inaccessiblememonly",
		"inaccessiblemem_or_argmemonly", "memory", NULL,
	};

	for (const char *const *e = effects; *e; e++)
		passport_remove_fn_attr(f, *e);
}

static void insert_tracking(struct stackleak *s, bool removable_entry)
{
	forget_memory_effects(s->fn);
	if (s->asm_form) {
		LLVMValueRef sp = passport_insert_read_sp(s->b, s->M);

		/* The stack pointer as input (GCC: "r"(current_stack_pointer))
		 * keeps the call after the prologue; the memory clobber says
		 * that the tracker writes memory, so no caller is inferred
		 * pure and no access is moved across it. */
		passport_insert_asm(s->b, removable_entry ? asm_entry_call : asm_call,
				    s->sp_constraint, &sp, 1);
		passport_add_fn_attr(s->fn, "noredzone");
	} else {
		passport_insert_void_call(s->b, s->M, TRACKER);
	}
}

static void track_dynamic_alloca(LLVMValueRef alloca, void *ctx)
{
	struct stackleak *s = ctx;

	if (!passport_alloca_is_dynamic(alloca)) {
		s->static_bytes += passport_alloca_bytes(s->M, alloca);
		return;
	}
	passport_note(s->pass, "be careful, alloca() in %s()", passport_name(s->fn));
	s->dynamic_allocas++;
	passport_position_after(s->b, alloca);
	insert_tracking(s, false);
	/* GCC: an alloca in the first block already tracks the prologue. */
	if (LLVMGetInstructionParent(alloca) == LLVMGetEntryBasicBlock(s->fn))
		s->entry_tracked = true;
}

/* GCC's two leaf exceptions: static inline leaves and _paravirt_* leaves. */
static const char *leaf_exception(LLVMValueRef fn)
{
	bool is_static = LLVMGetLinkage(fn) == LLVMInternalLinkage ||
			 LLVMGetLinkage(fn) == LLVMPrivateLinkage;
	bool is_inline = passport_has_fn_attr(fn, "inlinehint") ||
			 passport_has_fn_attr(fn, "alwaysinline");

	if (is_static && is_inline)
		return "static inline leaf";
	if (!strncmp(passport_name(fn), "_paravirt_", 10))
		return "_paravirt_ leaf";
	return NULL;
}

static void instrument_function(struct stackleak *s, LLVMValueRef fn)
{
	const char *name = passport_name(fn);
	const char *why_not;
	uint64_t bound;
	char why[96] = "prove-small is off";
	bool leaf;

	if (!passport_is_definition(fn) || !strcmp(name, TRACKER))
		return;
	if (passport_in_sections(fn, excluded_sections)) {
		passport_note(s->pass, "skip %s(): section %s", name, passport_section(fn));
		return;
	}

	s->fn = fn;
	s->dynamic_allocas = 0;
	s->entry_tracked = false;
	s->static_bytes = 0;
	/* An alloca is a call to __builtin_alloca for GCC: not a leaf. */
	leaf = !passport_makes_calls(fn);
	passport_for_each_alloca(fn, track_dynamic_alloca, s);
	if (s->dynamic_allocas)
		leaf = false;

	if (s->entry_tracked)
		return;
	if (leaf && (why_not = leaf_exception(fn))) {
		passport_note(s->pass, "skip %s(): %s", name, why_not);
		return;
	}
	if (s->prove_small && !s->dynamic_allocas &&
	    passport_frame_bound(s->M, fn, &bound, why, sizeof(why))) {
		if (bound < (uint64_t)s->min_size) {
			record_left_out(s, bound);
			passport_note(s->pass, "skip %s(): frame <= %llu < %ld bytes (IR bound, checked by passport-finalize)",
				      name, (unsigned long long)bound, s->min_size);
			return;
		}
		snprintf(why, sizeof(why), "frame <= %llu bytes", (unsigned long long)bound);
	}
	if (s->rule == FRAME_ESTIMATE && !s->dynamic_allocas &&
	    s->static_bytes < (uint64_t)s->min_size) {
		passport_note(s->pass, "skip %s(): allocas %llu < %ld bytes (estimate)",
			      name, (unsigned long long)s->static_bytes, s->min_size);
		return;
	}

	passport_position_at_entry(s->b, fn);
	insert_tracking(s, s->rule == FRAME_FINAL);
	if (s->rule == FRAME_ESTIMATE)
		passport_note(s->pass, "instrument %s(): %s", name,
			      s->dynamic_allocas ? "calls_alloca" : "allocas >= track-min-size (estimate)");
	else if (s->dynamic_allocas)
		passport_note(s->pass, "candidate %s(): calls_alloca, kept", name);
	else
		passport_note(s->pass, "candidate %s(): entry call kept if the final frame is >= track-min-size (passport-finalize; IR bound: %s)",
			      name, why);
}

static bool stackleak_run(const struct passport_pass *pass, LLVMModuleRef M)
{
	struct stackleak s = { .pass = pass, .M = M };

	if (pass->disabled) {
		passport_note(pass, "disabled for this translation unit");
		return false;
	}
	if (!passport_option_long(pass, "track-min-size", 0, 4096, -1, &s.min_size))
		passport_fatal(pass, "track-min-size is required: -mllvm -passport-stackleak-track-min-size=N");
	s.rule = passport_option_choice(pass, "frame", frame_rules, FRAME_FINAL);
	s.asm_form = passport_target_is_x86(M);
	/* Only passport-finalize can check a bound: x86-64, frame=final. */
	s.prove_small = passport_option_choice(pass, "prove-small", on_off, 1) &&
			s.rule == FRAME_FINAL && s.asm_form;
	s.sp_constraint = LLVMPointerSize(LLVMGetModuleDataLayout(M)) == 8 ?
		"{rsp},~{memory},~{dirflag},~{fpsr},~{flags}" :
		"{esp},~{memory},~{dirflag},~{fpsr},~{flags}";
	s.b = LLVMCreateBuilderInContext(LLVMGetModuleContext(M));

	for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn))
		instrument_function(&s, fn);

	LLVMDisposeBuilder(s.b);
	return true;
}

static struct passport_option stackleak_options[] = {
	{ "track-min-size", "frames of at least this many bytes are tracked (required)" },
	{ "frame", "final (decided after codegen by passport-finalize) or estimate (allocas)" },
	{ "prove-small", "on (default) or off: with frame=final on x86-64, no call where the IR bounds the frame below track-min-size" },
	{ NULL },
};

struct passport_pass passport_stackleak = {
	.name = "stackleak",
	.help = "track the lowest stack pointer for STACKLEAK (stackleak_track_stack)",
	.ep = PASSPORT_EP_OPTIMIZER_LAST,
	.options = stackleak_options,
	.run = stackleak_run,
};
