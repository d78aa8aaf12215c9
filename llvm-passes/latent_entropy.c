// SPDX-License-Identifier: GPL-2.0
/*
 * latent_entropy.c - gather a little entropy from the way __latent_entropy
 * functions run (the kernel's latent_entropy GCC plugin, for LLVM).
 *
 * The frontend (latent_entropy-frontend.cpp) annotates every function that
 * carries __attribute__((latent_entropy)) with "passport.latent_entropy"
 * (llvm.global.annotations) and gives __latent_entropy variables random
 * initialisers.  At PipelineStart, prepare() takes those annotations out of
 * the module (so they keep nothing alive and change no inlining decision)
 * and marks each such function with the string attribute
 * "passport-latent-entropy".  It also puts a placeholder at every exit (a
 * volatile load and store of latent_entropy, tagged !passport.latent_entropy):
 * without it, function-attrs would infer from the uninstrumented body that
 * the function reads no memory, and GVN would merge calls to it.  The pass
 * proper deletes the placeholders wherever inlining took them, then runs at
 * OptimizerLast, where
 * GCC's runs (just before "optimized": after inlining and the main
 * optimisations), so it mixes once per block of the optimised CFG, not of
 * the unoptimised one, and a marked function inlined into a marked caller
 * is mixed as part of the caller.  It instruments each marked function, as
 * GCC does:
 *
 *   entry:       local = (unsigned long)frame_address(0) ^ volatile latent_entropy
 *                local = local OP C            OP: xor or add
 *   every later  local = local OP C            OP cycles xor, add, rol
 *   block:
 *   every exit:  latent_entropy = volatile latent_entropy OP local   (xor or add)
 *                placed before the call when the block ends in `return
 *                call(...)` (GCC's tail-call placement), else before `ret`.
 *
 * The constants come from one stream per translation unit: /dev/urandom, or
 * GCC's xorshift64 from -passport-latent-entropy-seed=S, consumed in GCC's
 * order (variables while parsing, then per function: entry constant, one
 * draw eaten by the entry op choice, one per block, one per exit), with
 * GCC's op cycle shared across functions.  So a seeded build gives the
 * constants GCC gives with -frandom-seed=S wherever the two compilers see
 * the same blocks.  `local` is built in SSA form (a phi at the top of every
 * block but the entry), since no SROA or mem2reg runs after OptimizerLast.
 * Functions that are noreturn or have no `ret` are skipped.
 *
 * `latent_entropy` is `volatile unsigned long` (pointer width): GCC's plugin
 * declares it into C itself; here it is declared in the module if missing
 * (the kernel needs a real C declaration for its own uses).
 *
 * Options: -mllvm -passport-latent-entropy-seed=S, and the common
 * -passport-latent-entropy[-verbose|-disable].
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latent_entropy.h"

#define GLOBAL "latent_entropy"

/* ---- the compile-time random stream (GCC's get_random_const) ------------ */

static bool stream_ready, stream_seeded;
static uint64_t xorshift_state;
static uint64_t rnd_buf[32];
static size_t rnd_idx = 32;
static int urandom_fd = -1;

/* GCC's crc32_string(0, S): MSB-first CRC-32, polynomial 0x04c11db7, no
 * reflection, no final xor, over S including its terminating NUL. */
static uint32_t gcc_crc32_string(const char *s)
{
	uint32_t crc = 0;

	do {
		uint32_t v = (uint32_t)(unsigned char)*s << 24;

		for (int bit = 0; bit < 8; bit++, v <<= 1)
			crc = (crc << 1) ^ (((v ^ crc) & 0x80000000u) ? 0x04c11db7u : 0);
	} while (*s++);
	return crc;
}

static void stream_init(void)
{
	const struct passport_pass *pass = &passport_latent_entropy;
	const char *v = passport_option(pass, "seed")->value;
	unsigned long seed;
	char *end;

	stream_ready = true;
	if (!v)
		return;
	/* GCC's set_random_seed: a whole number in C syntax, else its crc32. */
	errno = 0;
	seed = strtoul(v, &end, 0);
	if (!(end > v && *end == '\0'))
		seed = gcc_crc32_string(v);
	if (!seed)
		passport_fatal(pass, "-passport-latent-entropy-seed=%s: the seed must not be 0 "
			       "(GCC would silently fall back to /dev/urandom)", v);
	xorshift_state = seed;
	stream_seeded = true;
}

uint64_t passport_latent_entropy_draw(void)
{
	if (!stream_ready)
		stream_init();
	if (stream_seeded) {
		uint64_t w = xorshift_state;

		w ^= w << 13;
		w ^= w >> 7;
		w ^= w << 17;
		return xorshift_state = w;
	}
	if (rnd_idx >= sizeof(rnd_buf) / sizeof(rnd_buf[0])) {
		size_t got = 0;

		if (urandom_fd < 0 && (urandom_fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) < 0)
			passport_fatal(&passport_latent_entropy, "cannot open /dev/urandom: %s",
				       strerror(errno));
		while (got < sizeof(rnd_buf)) {
			ssize_t n = read(urandom_fd, (char *)rnd_buf + got, sizeof(rnd_buf) - got);

			if (n <= 0 && errno != EINTR)
				passport_fatal(&passport_latent_entropy, "cannot read /dev/urandom");
			if (n > 0)
				got += (size_t)n;
		}
		rnd_idx = 0;
	}
	return rnd_buf[rnd_idx++];
}

/* ---- GCC's operation cycle ---------------------------------------------- */

enum le_op { OP_START, OP_XOR, OP_ADD, OP_ROL };
static const char *const op_names[] = { "?", "xor", "add", "rol" };

/*
 * GCC's get_op(): consumes one draw.  With RHS (mixing the local) the ops
 * cycle xor -> add -> rol -> xor and RHS gets the draw (a rotate count for
 * rol); without (mixing the global) the result is xor or add and the draw
 * is unused.  The state is shared by all functions of the unit.
 */
static enum le_op get_op(uint64_t *rhs, unsigned bits)
{
	static enum le_op op = OP_START;
	uint64_t c = passport_latent_entropy_draw();

	switch (op) {
	case OP_XOR:
		op = OP_ADD;
		break;
	case OP_ADD:
		if (rhs) {
			op = OP_ROL;
			c %= bits;
			break;
		}
		/* fall through */
	default:
		op = OP_XOR;
		break;
	}
	if (rhs)
		*rhs = c;
	return op;
}

/* ---- the pass ----------------------------------------------------------- */

struct latent {
	const struct passport_pass *pass;
	LLVMModuleRef M;
	LLVMContextRef ctx;
	LLVMBuilderRef b;
	LLVMTypeRef long_ty;	/* unsigned long: pointer width */
	unsigned bits;
	LLVMValueRef global;	/* @latent_entropy (as a pointer to long) */
	unsigned nmarked;	/* functions marked by this run */
	unsigned instrumented;
};

/* The function attribute that carries the frontend's mark from
 * PipelineStart to OptimizerLast. */
#define MARK "passport-latent-entropy"

static void mark(LLVMValueRef global, void *ctx)
{
	struct latent *s = ctx;
	LLVMAttributeRef a;

	if (!LLVMIsAFunction(global)) {
		passport_note(s->pass, "ignore annotated non-function %s", passport_name(global));
		return;
	}
	a = LLVMCreateStringAttribute(s->ctx, MARK, strlen(MARK), "", 0);
	LLVMAddAttributeAtIndex(global, LLVMAttributeFunctionIndex, a);
	s->nmarked++;
}

static bool is_marked(LLVMValueRef fn)
{
	return LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, MARK,
					     strlen(MARK)) != NULL;
}

/* Take the frontend's annotations out and mark their functions. */
static void take_annotations(struct latent *s)
{
	s->ctx = LLVMGetModuleContext(s->M);
	s->bits = LLVMPointerSize(LLVMGetModuleDataLayout(s->M)) * 8;
	s->long_ty = LLVMIntTypeInContext(s->ctx, s->bits);
	passport_take_annotated(s->M, PASSPORT_LATENT_ENTROPY_ANNOTATION, mark, s);
}

#define PLACEHOLDER "passport.latent_entropy"

/* @latent_entropy as a pointer to an unsigned long, declared if missing. */
static LLVMValueRef global_ptr(struct latent *s)
{
	LLVMValueRef gv = LLVMGetNamedGlobal(s->M, GLOBAL);

	if (!gv) {
		if (LLVMGetNamedFunction(s->M, GLOBAL))
			passport_fatal(s->pass, "'" GLOBAL "' is a function, expected "
				       "'volatile unsigned long " GLOBAL "'");
		gv = passport_declare_global(s->M, s->long_ty, GLOBAL);
		passport_note(s->pass, "declare external %s", GLOBAL);
	}
	if (LLVMGlobalGetValueType(gv) != s->long_ty)
		gv = LLVMConstPointerCast(gv, LLVMPointerType(s->long_ty, 0));
	return gv;
}

static LLVMValueRef load_global(struct latent *s)
{
	LLVMValueRef l = LLVMBuildLoad2(s->b, s->long_ty, s->global, "temp_latent_entropy");

	LLVMSetVolatile(l, 1);
	LLVMSetAlignment(l, s->bits / 8);
	return l;
}

static LLVMValueRef call_intrinsic(struct latent *s, const char *name, LLVMTypeRef overload,
				   LLVMValueRef *args, unsigned nargs, const char *res)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(s->M, id, &overload, 1);
	LLVMTypeRef ty = LLVMIntrinsicGetType(s->ctx, id, &overload, 1);

	return LLVMBuildCall2(s->b, ty, fn, args, nargs, res);
}

static LLVMValueRef build_op(struct latent *s, enum le_op op, LLVMValueRef l, LLVMValueRef r)
{
	switch (op) {
	case OP_XOR:
		return LLVMBuildXor(s->b, l, r, "local_entropy");
	case OP_ADD:
		return LLVMBuildAdd(s->b, l, r, "local_entropy");
	default: {
		LLVMValueRef args[3] = { l, l, r };	/* rotate left = fshl(l, l, r) */

		return call_intrinsic(s, "llvm.fshl", s->long_ty, args, 3, "local_entropy");
	}
	}
}

/* The first instruction a block's own code can go before, or NULL. */
static LLVMValueRef insertion_point(LLVMBasicBlockRef bb)
{
	LLVMValueRef i = LLVMGetFirstInstruction(bb);

	while (i && (LLVMIsAPHINode(i) || LLVMIsALandingPadInst(i)))
		i = LLVMGetNextInstruction(i);
	if (i && (LLVMIsACatchSwitchInst(i) || LLVMIsACatchPadInst(i) ||
		  LLVMIsACleanupPadInst(i)))
		return NULL;	/* funclet EH pads: not C, leave them alone */
	return i;
}

static bool is_marker_intrinsic(LLVMValueRef i)
{
	LLVMValueRef callee;
	const char *name;

	if (!LLVMIsACallInst(i) || !(callee = LLVMGetCalledValue(i)) || !LLVMIsAFunction(callee))
		return false;
	name = passport_name(callee);
	return !strncmp(name, "llvm.lifetime.", 14) || !strncmp(name, "llvm.dbg.", 9);
}

/* Where the fold into the global goes for this `ret`: before the call whose
 * result it returns (or a void call right before `ret void`), as GCC puts it
 * before a tail call; otherwise before the `ret`. */
static LLVMValueRef exit_point(LLVMValueRef ret)
{
	LLVMValueRef rv = LLVMGetNumOperands(ret) ? LLVMGetOperand(ret, 0) : NULL;
	LLVMValueRef i = LLVMGetPreviousInstruction(ret);

	while (i && is_marker_intrinsic(i))
		i = LLVMGetPreviousInstruction(i);
	if (i && LLVMIsACallInst(i) && !LLVMIsAInlineAsm(LLVMGetCalledValue(i)) &&
	    !(LLVMIsAFunction(LLVMGetCalledValue(i)) && LLVMGetIntrinsicID(LLVMGetCalledValue(i))) &&
	    (rv ? rv == i : LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVoidTypeKind))
		return i;
	return ret;
}

/* The blocks of a function in order, with the accumulator's value at the
 * top (phi, built as each block's first instruction) and at the end (out). */
struct blocks {
	LLVMBasicBlockRef *bb;	/* function order */
	LLVMValueRef *phi, *out;
	unsigned n;
};

static void blocks_init(struct blocks *k, LLVMValueRef fn)
{
	unsigned i = 0;

	k->n = LLVMCountBasicBlocks(fn);
	k->bb = calloc(k->n, sizeof(*k->bb));
	k->phi = calloc(k->n, sizeof(*k->phi));
	k->out = calloc(k->n, sizeof(*k->out));
	if (!k->bb || !k->phi || !k->out)
		abort();
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
		k->bb[i++] = bb;
}

static void blocks_free(struct blocks *k)
{
	free(k->bb);
	free(k->phi);
	free(k->out);
}

/* Each block's phi (its first instruction: the entry block has none) gets
 * the accumulator's end value from every predecessor edge, one entry per
 * edge as LLVM wants; a block without predecessors (unreachable) starts
 * from 0 instead. */
static void fill_phis(struct latent *s, struct blocks *k)
{
	for (unsigned i = 0; i < k->n; i++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(k->bb[i]);
		unsigned nsucc = t ? LLVMGetNumSuccessors(t) : 0;

		for (unsigned j = 0; j < nsucc; j++)
			LLVMAddIncoming(LLVMGetFirstInstruction(LLVMGetSuccessor(t, j)),
					&k->out[i], &k->bb[i], 1);
	}
	for (unsigned i = 1; i < k->n; i++)
		if (!LLVMCountIncoming(k->phi[i])) {
			LLVMReplaceAllUsesWith(k->phi[i], LLVMConstInt(s->long_ty, 0, 0));
			LLVMInstructionEraseFromParent(k->phi[i]);
		}
}

static void instrument_function(struct latent *s, LLVMValueRef fn)
{
	const char *name = passport_name(fn);
	LLVMValueRef fa, v, *exits;
	LLVMTypeRef i8p;
	unsigned nexits = 0, nblocks = 1, tail = 0;
	uint64_t c;
	enum le_op op;
	struct blocks k;

	if (!passport_is_definition(fn))
		return;
	if (passport_has_fn_attr(fn, "noreturn")) {
		passport_note(s->pass, "skip %s(): noreturn", name);
		return;
	}
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);

		if (t && LLVMGetInstructionOpcode(t) == LLVMRet)
			nexits++;
	}
	if (!nexits) {
		passport_note(s->pass, "skip %s(): never returns", name);
		return;
	}
	if (!s->global)
		s->global = global_ptr(s);

	/* 1. the blocks, and a phi for the accumulator atop each but the entry */
	blocks_init(&k, fn);
	for (unsigned i = 1; i < k.n; i++) {
		passport_position_before(s->b, LLVMGetFirstInstruction(k.bb[i]));
		k.phi[i] = LLVMBuildPhi(s->b, s->long_ty, "local_entropy");
		/* the builder leaves a phi the location of the instruction it
		 * went before; ours is line 0, as for everything inserted */
		LLVMSetInstDebugLocation(s->b, k.phi[i]);
	}

	/* 2. entry: frame address ^ latent_entropy, OP a random constant */
	passport_position_at_entry(s->b, fn);
	i8p = LLVMPointerType(LLVMInt8TypeInContext(s->ctx), 0);
	v = LLVMConstInt(LLVMInt32TypeInContext(s->ctx), 0, 0);
	fa = call_intrinsic(s, "llvm.frameaddress", i8p, &v, 1, "local_entropy_frameaddr");
	v = LLVMBuildPtrToInt(s->b, fa, s->long_ty, "local_entropy");
	v = LLVMBuildXor(s->b, v, load_global(s), "local_entropy");
	c = passport_latent_entropy_draw();
	op = get_op(NULL, s->bits);
	k.out[0] = build_op(s, op, v, LLVMConstInt(s->long_ty, c, 0));
	passport_note(s->pass, "%s(): entry %s %llu", name, op_names[op], (unsigned long long)c);

	/* 3. every later block: local = local OP C */
	for (unsigned i = 1; i < k.n; i++) {
		LLVMValueRef at = insertion_point(k.bb[i]);

		k.out[i] = k.phi[i];
		if (!at)
			continue;
		passport_position_before(s->b, at);
		op = get_op(&c, s->bits);
		k.out[i] = build_op(s, op, k.phi[i], LLVMConstInt(s->long_ty, c, 0));
		nblocks++;
		passport_note(s->pass, "%s(): block %u %s %llu", name, nblocks, op_names[op],
			      (unsigned long long)c);
	}

	/* 4. every exit: latent_entropy = latent_entropy OP local */
	exits = calloc(nexits, 2 * sizeof(*exits));	/* (exit point, accumulator) pairs */
	if (!exits)
		abort();
	nexits = 0;
	for (unsigned i = 0; i < k.n; i++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(k.bb[i]);

		if (t && LLVMGetInstructionOpcode(t) == LLVMRet) {
			exits[2 * nexits] = exit_point(t);
			exits[2 * nexits++ + 1] = k.out[i];
		}
	}
	fill_phis(s, &k);
	blocks_free(&k);
	for (unsigned e = 0; e < nexits; e++) {
		LLVMValueRef g, st, at = exits[2 * e];

		passport_position_before(s->b, at);
		g = load_global(s);
		op = get_op(NULL, s->bits);
		g = build_op(s, op, g, exits[2 * e + 1]);
		st = LLVMBuildStore(s->b, g, s->global);
		LLVMSetVolatile(st, 1);
		LLVMSetAlignment(st, s->bits / 8);
		if (LLVMGetInstructionOpcode(at) != LLVMRet)
			tail++;
		passport_note(s->pass, "%s(): exit %s before %s", name, op_names[op],
			      LLVMGetInstructionOpcode(at) == LLVMRet ? "return" : "tail call");
	}
	free(exits);
	s->instrumented++;
	passport_note(s->pass, "instrument %s(): %u blocks, %u exits (%u before a tail call)",
		      name, nblocks, nexits, tail);
}

/* Does FN return (so it gets instrumented)? */
static bool returns(LLVMValueRef fn)
{
	if (!passport_is_definition(fn) || passport_has_fn_attr(fn, "noreturn"))
		return false;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);

		if (t && LLVMGetInstructionOpcode(t) == LLVMRet)
			return true;
	}
	return false;
}

/* latent_entropy = latent_entropy (volatile, tagged) at every exit of FN. */
static void add_placeholders(struct latent *s, LLVMValueRef fn)
{
	unsigned kind = LLVMGetMDKindIDInContext(s->ctx, PLACEHOLDER, strlen(PLACEHOLDER));
	LLVMValueRef tag = LLVMMetadataAsValue(s->ctx, LLVMMDNodeInContext2(s->ctx, NULL, 0));

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(bb), l, st;

		if (!t || LLVMGetInstructionOpcode(t) != LLVMRet)
			continue;
		passport_position_before(s->b, exit_point(t));
		l = load_global(s);
		st = LLVMBuildStore(s->b, l, s->global);
		LLVMSetVolatile(st, 1);
		LLVMSetAlignment(st, s->bits / 8);
		LLVMSetMetadata(l, kind, tag);
		LLVMSetMetadata(st, kind, tag);
	}
}

/* Delete the placeholders, wherever inlining has copied them; how many. */
static unsigned remove_placeholders(struct latent *s)
{
	unsigned kind = LLVMGetMDKindIDInContext(s->ctx, PLACEHOLDER, strlen(PLACEHOLDER));
	unsigned n = 0;

	for (LLVMValueRef fn = LLVMGetFirstFunction(s->M); fn; fn = LLVMGetNextFunction(fn))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
		     bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
				next = LLVMGetNextInstruction(i);
				/* the store is its load's only user, and comes after it */
				if (LLVMIsAStoreInst(i) && LLVMGetMetadata(i, kind)) {
					LLVMValueRef l = LLVMGetOperand(i, 0);

					LLVMInstructionEraseFromParent(i);
					if (LLVMIsALoadInst(l) && LLVMGetMetadata(l, kind) &&
					    !LLVMGetFirstUse(l))
						LLVMInstructionEraseFromParent(l);
					n++;
				}
			}
	return n;
}

/* PipelineStart: annotations out, marks and placeholders in (the
 * annotations go even when disabled: they must not stay in the module). */
static bool latent_entropy_prepare(const struct passport_pass *pass, LLVMModuleRef M)
{
	struct latent s = { .pass = pass, .M = M };

	take_annotations(&s);
	if (pass->disabled || !s.nmarked)
		return s.nmarked != 0;
	s.b = LLVMCreateBuilderInContext(s.ctx);
	for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn))
		if (is_marked(fn) && returns(fn)) {
			if (!s.global)
				s.global = global_ptr(&s);
			add_placeholders(&s, fn);
		}
	LLVMDisposeBuilder(s.b);
	return true;
}

/* OptimizerLast (or -passes=passport-latent-entropy, which also takes the
 * annotations of a module that did not go through PipelineStart). */
static bool latent_entropy_run(const struct passport_pass *pass, LLVMModuleRef M)
{
	struct latent s = { .pass = pass, .M = M };
	bool changed;

	take_annotations(&s);
	changed = remove_placeholders(&s) || s.nmarked;
	if (pass->disabled) {
		passport_note(pass, "disabled for this translation unit");
		return changed;
	}
	(void)passport_option(pass, "seed");	/* a bad seed fails even with no function */
	if (!stream_ready)
		stream_init();

	s.b = LLVMCreateBuilderInContext(s.ctx);
	for (LLVMValueRef fn = LLVMGetFirstFunction(M); fn; fn = LLVMGetNextFunction(fn))
		if (is_marked(fn)) {
			instrument_function(&s, fn);
			changed = true;
		}
	LLVMDisposeBuilder(s.b);
	return changed;
}

static struct passport_option latent_entropy_options[] = {
	{ "seed", "make the compile-time random numbers reproducible: GCC's "
		  "-frandom-seed=SEED stream (number, or string hashed as GCC does)" },
	{ NULL },
};

struct passport_pass passport_latent_entropy = {
	.name = "latent-entropy",
	.help = "mix entropy into latent_entropy in __latent_entropy functions",
	.ep = PASSPORT_EP_OPTIMIZER_LAST,
	.options = latent_entropy_options,
	.prepare = latent_entropy_prepare,
	.run = latent_entropy_run,
};
