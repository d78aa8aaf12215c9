// SPDX-License-Identifier: GPL-2.0
/*
 * structleak.c - zero-initialise stack variables that could leak (the
 * kernel's STRUCTLEAK plugin).
 *
 * Modes (-mllvm -passport-structleak-mode=MODE):
 *   user       structs/unions with a __user field, directly or in a nested
 *              struct/union (through arrays)
 *   byref      also structs/unions whose address escapes
 *   byref-all  also any local whose address escapes
 * and the common -passport-structleak[-verbose|-disable]. -verbose prints
 * one note per decision (GCC's "... will be forcibly initialized", with the
 * bytes zeroed), and which zeroings run on every iteration of a loop;
 * analysis/structleak-cost.py puts them beside each function's code growth.
 *
 * What the IR cannot say comes from the frontend half
 * (structleak-frontend.cpp): each candidate local arrives as
 * llvm.var.annotation(ptr, "passport.structleak:KIND:FLAGS:COL:NAME", file,
 * line) at the point of its declaration.  This pass reads and deletes
 * those annotations.
 *
 * "Address escapes" is GCC's TREE_ADDRESSABLE, computed on the unoptimised
 * IR (the pass runs at PipelineStart, before SROA/mem2reg): a pointer into
 * the variable is passed to a call, stored to memory, converted to an
 * integer, compared or returned.  Loads, stores through it and the
 * memcpy/memset/memmove intrinsics (Clang's struct copies) do not count.
 *
 * Where: right after the declaration's annotation, i.e. after
 * llvm.lifetime.start and before the initialiser, so a variable declared in
 * a loop body is zeroed on every iteration (GCC zeroes once at function
 * entry; here an entry store would be dead, as the slot's contents end with
 * each iteration's llvm.lifetime.end and stack colouring may share it).  If a jump can reach a use of the variable without passing the
 * declaration (a declaration before the first `case` of a switch; Clang
 * then emits no lifetime markers for it), it is zeroed at function entry as
 * well.  Aggregates are zeroed whole, padding included, with llvm.memset.
 *
 * Skipped, as GCC skips `var = {CONSTRUCTOR}`: a variable with an aggregate
 * initialiser (`= {...}`) whose code starts by writing the whole object
 * (a full-size memset or memcpy, or one full-width store).  An initialiser
 * that Clang splits into per-field stores leaves padding, so it is zeroed.
 */
#include <stdlib.h>
#include <string.h>

#include "passport.h"

#define TAG "passport.structleak:"

enum mode { MODE_USER, MODE_BYREF, MODE_BYREF_ALL };
static const char *const modes[] = { "user", "byref", "byref-all", NULL };

struct structleak {
	const struct passport_pass *pass;
	LLVMModuleRef M;
	LLVMTargetDataRef dl;
	LLVMBuilderRef b;
	enum mode mode;
	unsigned zeroed;
};

/* One candidate: a parsed annotation. */
struct candidate {
	LLVMValueRef call;	/* the llvm.var.annotation */
	LLVMValueRef alloca;
	char kind[8];		/* struct, union, array, scalar */
	bool user, aggregate_init;
	const char *name;
	size_t name_len;
	const char *file;
	size_t file_len;
	unsigned line, col;
};

static bool callee_named(LLVMValueRef call, const char *prefix)
{
	LLVMValueRef callee;

	if (!LLVMIsACallInst(call))
		return false;
	callee = LLVMGetCalledValue(call);
	return LLVMIsAFunction(callee) &&
	       !strncmp(passport_name(callee), prefix, strlen(prefix));
}

static bool parse_candidate(LLVMValueRef call, struct candidate *c)
{
	size_t len, klen;
	const char *s, *kind, *flags, *col, *name;

	if (!callee_named(call, "llvm.var.annotation"))
		return false;
	s = passport_const_string(LLVMGetOperand(call, 1), &len);
	if (!s || len < strlen(TAG) || strncmp(s, TAG, strlen(TAG)))
		return false;
	memset(c, 0, sizeof(*c));
	c->call = call;
	c->alloca = passport_underlying_alloca(LLVMGetOperand(call, 0));
	kind = s + strlen(TAG);
	flags = memchr(kind, ':', s + len - kind);
	col = flags ? memchr(flags + 1, ':', s + len - flags - 1) : NULL;
	name = col ? memchr(col + 1, ':', s + len - col - 1) : NULL;
	if (!c->alloca || !name)
		return false;
	c->col = (unsigned)strtoul(col + 1, NULL, 10);
	klen = flags - kind;
	if (klen >= sizeof(c->kind))
		return false;
	memcpy(c->kind, kind, klen);
	for (const char *f = flags + 1; f < col; f++) {
		c->user |= *f == 'u';
		c->aggregate_init |= *f == 'i';
	}
	c->name = name + 1;
	c->name_len = s + len - c->name;
	c->file = passport_const_string(LLVMGetOperand(call, 2), &c->file_len);
	if (!c->file)
		c->file = "?", c->file_len = 1;
	if (LLVMIsAConstantInt(LLVMGetOperand(call, 3)))
		c->line = (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(call, 3));
	return true;
}

/* ---- does the address escape? (GCC: TREE_ADDRESSABLE) ------------------- */

static bool intrinsic_keeps_address(LLVMValueRef call)
{
	static const char *const harmless[] = {
		"llvm.lifetime.", "llvm.dbg.", "llvm.var.annotation",
		"llvm.memcpy", "llvm.memmove", "llvm.memset", NULL,
	};

	for (const char *const *h = harmless; *h; h++)
		if (callee_named(call, *h))
			return true;
	return false;
}

#define MAX_DERIVED 256

static bool escapes(LLVMValueRef alloca)
{
	LLVMValueRef work[MAX_DERIVED];
	int n = 0, done = 0;

	work[n++] = alloca;
	while (done < n) {
		LLVMValueRef v = work[done++];

		for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
			LLVMValueRef user = LLVMGetUser(u);
			LLVMOpcode op;

			if (!LLVMIsAInstruction(user))
				return true;
			op = LLVMGetInstructionOpcode(user);
			switch (op) {
			case LLVMLoad:
				continue;
			case LLVMStore:
				/* storing *to* it is fine, storing it is not */
				if (LLVMGetOperand(user, 0) == v)
					return true;
				continue;
			case LLVMBitCast:
			case LLVMAddrSpaceCast:
			case LLVMGetElementPtr:
			case LLVMPHI:
			case LLVMSelect: {
				bool seen = false;

				for (int i = 0; i < n; i++)
					seen |= work[i] == user;
				if (seen)
					continue;
				if (n == MAX_DERIVED)
					return true;	/* give up: assume it escapes */
				work[n++] = user;
				continue;
			}
			case LLVMCall:
				if (intrinsic_keeps_address(user))
					continue;
				return true;
			default:
				return true;
			}
		}
	}
	return false;
}

/* ---- is it already fully initialised? ----------------------------------- */

static uint64_t object_bytes(struct structleak *s, LLVMValueRef alloca)
{
	return passport_alloca_bytes(s->M, alloca);
}

static bool writes_whole(struct structleak *s, LLVMValueRef i, LLVMValueRef alloca)
{
	uint64_t bytes = object_bytes(s, alloca);

	if (callee_named(i, "llvm.memset") || callee_named(i, "llvm.memcpy")) {
		LLVMValueRef len = LLVMGetOperand(i, 2);

		return passport_underlying_alloca(LLVMGetOperand(i, 0)) == alloca &&
		       LLVMIsAConstantInt(len) && LLVMConstIntGetZExtValue(len) == bytes;
	}
	if (LLVMIsAStoreInst(i)) {
		LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(i, 0));
		LLVMTypeKind k = LLVMGetTypeKind(t);

		return passport_underlying_alloca(LLVMGetOperand(i, 1)) == alloca &&
		       k != LLVMStructTypeKind && k != LLVMArrayTypeKind &&
		       LLVMStoreSizeOfType(s->dl, t) == bytes;
	}
	return false;
}

/* Does the initialiser's code right after the declaration write every byte? */
static bool fully_initialised(struct structleak *s, struct candidate *c)
{
	for (LLVMValueRef i = LLVMGetNextInstruction(c->call); i; i = LLVMGetNextInstruction(i)) {
		LLVMOpcode op = LLVMGetInstructionOpcode(i);

		if (op == LLVMBitCast || op == LLVMGetElementPtr || op == LLVMAddrSpaceCast ||
		    callee_named(i, "llvm.dbg.") || callee_named(i, "llvm.lifetime."))
			continue;
		return writes_whole(s, i, c->alloca);
	}
	return false;
}

/* ---- can a use be reached without passing the declaration? -------------- */

static int block_index(LLVMBasicBlockRef *blocks, unsigned n, LLVMBasicBlockRef bb)
{
	for (unsigned i = 0; i < n; i++)
		if (blocks[i] == bb)
			return (int)i;
	return -1;
}

static bool used_in(LLVMValueRef v, LLVMBasicBlockRef bb, LLVMValueRef skip, int depth)
{
	for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);

		if (user == skip || !LLVMIsAInstruction(user))
			continue;
		if (LLVMGetInstructionParent(user) == bb && !callee_named(user, "llvm.lifetime."))
			return true;
		if (depth < 8 && (LLVMIsABitCastInst(user) || LLVMIsAGetElementPtrInst(user)) &&
		    used_in(user, bb, skip, depth + 1))
			return true;
	}
	return false;
}

/* Breadth-first over the blocks reachable from FROM, FROM first, never
 * entering AVOID (may be NULL): stops at the first block VISIT accepts.
 * Does VISIT accept one? */
static bool walk_blocks(LLVMBasicBlockRef from, LLVMBasicBlockRef avoid,
			bool (*visit)(LLVMBasicBlockRef bb, void *ctx), void *ctx)
{
	LLVMValueRef fn = LLVMGetBasicBlockParent(from);
	unsigned n = LLVMCountBasicBlocks(fn), head = 0, tail = 0;
	LLVMBasicBlockRef *blocks = malloc(n * sizeof(*blocks)), *queue = malloc(n * sizeof(*queue));
	bool *seen = calloc(n, sizeof(*seen)), found = false;

	if (!blocks || !queue || !seen)
		abort();
	LLVMGetBasicBlocks(fn, blocks);
	queue[tail++] = from;
	seen[block_index(blocks, n, from)] = true;
	while (head < tail && !(found = visit(queue[head], ctx))) {
		LLVMValueRef term = LLVMGetBasicBlockTerminator(queue[head++]);

		for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++) {
			LLVMBasicBlockRef succ = LLVMGetSuccessor(term, k);
			int idx = block_index(blocks, n, succ);

			if (succ == avoid || idx < 0 || seen[idx])
				continue;
			seen[idx] = true;
			queue[tail++] = succ;
		}
	}
	free(blocks);
	free(queue);
	free(seen);
	return found;
}

static bool uses_candidate(LLVMBasicBlockRef bb, void *ctx)
{
	struct candidate *c = ctx;

	return used_in(c->alloca, bb, c->call, 0);
}

/* Can the variable be used on a path from the entry that skips its
 * declaration's block? */
static bool declaration_bypassed(LLVMValueRef fn, struct candidate *c)
{
	LLVMBasicBlockRef decl = LLVMGetInstructionParent(c->call);
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);

	return decl != entry && walk_blocks(entry, decl, uses_candidate, c);
}

static bool branches_to(LLVMBasicBlockRef bb, void *target)
{
	LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);

	for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++)
		if (LLVMGetSuccessor(term, k) == target)
			return true;
	return false;
}

/* Can BB reach itself? (Its declarations then run once per iteration.) Only
 * for the verbose notes. */
static bool in_cycle(LLVMBasicBlockRef bb)
{
	return walk_blocks(bb, NULL, branches_to, bb);
}

/* ---- zeroing ------------------------------------------------------------ */

static void emit_zero(struct structleak *s, LLVMValueRef alloca)
{
	LLVMTypeRef t = LLVMGetAllocatedType(alloca);
	LLVMTypeKind k = LLVMGetTypeKind(t);
	LLVMContextRef ctx = LLVMGetModuleContext(s->M);
	uint64_t bytes = object_bytes(s, alloca);

	if (k == LLVMStructTypeKind || k == LLVMArrayTypeKind || k == LLVMVectorTypeKind ||
	    LLVMStoreSizeOfType(s->dl, t) != bytes) {
		LLVMBuildMemSet(s->b, alloca, LLVMConstInt(LLVMInt8TypeInContext(ctx), 0, 0),
				LLVMConstInt(LLVMInt64TypeInContext(ctx), bytes, 0),
				LLVMGetAlignment(alloca));
	} else {
		LLVMValueRef st = LLVMBuildStore(s->b, LLVMConstNull(t), alloca);

		LLVMSetAlignment(st, LLVMGetAlignment(alloca));
	}
}

static void handle(struct structleak *s, LLVMValueRef fn, struct candidate *c)
{
	bool byref = s->mode != MODE_USER && escapes(c->alloca);
	const char *what;

	if (!c->user && !byref)
		return;
	if (s->mode != MODE_BYREF_ALL && strcmp(c->kind, "struct") && strcmp(c->kind, "union"))
		return;
	if (passport_alloca_is_dynamic(c->alloca))
		return;
	if (c->aggregate_init && fully_initialised(s, c)) {
		passport_note(s->pass, "%.*s:%u:%u: %s(): '%.*s' is fully initialised by its initialiser",
			      (int)c->file_len, c->file, c->line, c->col, passport_name(fn),
			      (int)c->name_len, c->name);
		return;
	}
	/* GCC's wording: "byref" if the mode is byref* and it is addressable. */
	what = byref ? "byref" : "userspace";
	passport_note(s->pass, "%.*s:%u:%u: %s(): %s variable '%.*s' (%s) will be forcibly initialized (%llu bytes)",
		      (int)c->file_len, c->file, c->line, c->col, passport_name(fn), what,
		      (int)c->name_len, c->name, c->kind,
		      (unsigned long long)object_bytes(s, c->alloca));
	if (s->pass->verbose && in_cycle(LLVMGetInstructionParent(c->call)))
		passport_note(s->pass, "%.*s:%u:%u: %s(): '%.*s' is declared in a loop: zeroed on every iteration",
			      (int)c->file_len, c->file, c->line, c->col, passport_name(fn),
			      (int)c->name_len, c->name);
	passport_position_after(s->b, c->call);
	emit_zero(s, c->alloca);
	if (declaration_bypassed(fn, c)) {
		passport_note(s->pass, "%.*s:%u:%u: %s(): '%.*s' can be used without passing its declaration: also zeroed at function entry",
			      (int)c->file_len, c->file, c->line, c->col, passport_name(fn),
			      (int)c->name_len, c->name);
		passport_position_at_entry(s->b, fn);
		emit_zero(s, c->alloca);
	}
	s->zeroed++;
}

/* Delete the annotation and what only it used (LLVM 14's bitcast, the
 * string globals once nothing refers to them). */
static void drop_annotation(LLVMValueRef call)
{
	LLVMValueRef ptr = LLVMGetOperand(call, 0);
	LLVMValueRef str = LLVMGetOperand(call, 1);

	LLVMInstructionEraseFromParent(call);
	if (LLVMIsAInstruction(ptr) && !LLVMIsAAllocaInst(ptr) && !LLVMGetFirstUse(ptr))
		LLVMInstructionEraseFromParent(ptr);
	if (LLVMIsAGlobalVariable(str) && !LLVMGetFirstUse(str))
		LLVMDeleteGlobal(str);
}

static void run_function(struct structleak *s, LLVMValueRef fn)
{
	struct candidate *cands = NULL;
	size_t n = 0, cap = 0;

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
			struct candidate c;

			if (!parse_candidate(i, &c))
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				cands = realloc(cands, cap * sizeof(*cands));
				if (!cands)
					abort();
			}
			cands[n++] = c;
		}
	for (size_t k = 0; k < n; k++)
		handle(s, fn, &cands[k]);
	for (size_t k = 0; k < n; k++)
		drop_annotation(cands[k].call);
	free(cands);
}

static bool structleak_run(const struct passport_pass *pass, LLVMModuleRef M)
{
	struct structleak s = { .pass = pass, .M = M };

	if (pass->disabled) {
		passport_note(pass, "disabled for this translation unit");
		return false;
	}
	s.mode = passport_option_choice(pass, "mode", modes, MODE_USER);
	s.dl = LLVMGetModuleDataLayout(M);
	s.b = LLVMCreateBuilderInContext(LLVMGetModuleContext(M));
	for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn))
		if (passport_is_definition(fn))
			run_function(&s, fn);
	/* the annotation intrinsic, if nothing else uses it */
	for (LLVMValueRef fn = LLVMGetFirstFunction(M), next; fn; fn = next) {
		next = LLVMGetNextFunction(fn);
		if (!strncmp(passport_name(fn), "llvm.var.annotation", 19) && !LLVMGetFirstUse(fn))
			LLVMDeleteFunction(fn);
	}
	LLVMDisposeBuilder(s.b);
	return true;
}

static struct passport_option structleak_options[] = {
	{ "mode", "user (structs with __user fields), byref (and escaping structs/unions) or byref-all (and any escaping local)" },
	{ NULL },
};

struct passport_pass passport_structleak = {
	.name = "structleak",
	.help = "zero-initialise stack variables that could leak (STRUCTLEAK)",
	.ep = PASSPORT_EP_PIPELINE_START,
	.options = structleak_options,
	.run = structleak_run,
};
