// SPDX-License-Identifier: GPL-2.0
/*
 * frame-bound.c - how large can a function's final stack frame get?
 *
 * stackleak's entry call is only wanted where the final frame reaches
 * track-min-size, and the IR does not know the final frame: spill slots come
 * with register allocation.  passport-finalize decides after code generation
 * and turns unwanted calls into NOPs, but a NOP still runs.  For the many
 * small functions whose frame cannot come near the threshold (the hot ones:
 * __fget_light runs once per fd in poll), this bound lets the pass leave the
 * call out altogether.
 *
 * The bound, for x86-64, is of what passport-finalize measures: the
 * function's .stack_sizes less the callee-saved pushes it finds at the
 * entry.  Where shrink-wrapping moved the prologue away from the entry it
 * finds none, so the pushes are part of the bound.  It is the sum of
 *   - the static allocas, each rounded up to max(8, its alignment);
 *   - the stack-passed part of the largest outgoing argument list (the
 *     registers beyond rdi..r9, 8 bytes each);
 *   - 8 bytes per inline-asm operand that may be memory ("m", "g", "rm"...;
 *     the backend picks memory for such an SSA value, so it needs a slot);
 *   - 8 bytes of alignment padding;
 *   - 8 bytes for the stack protector's canary, where the function has ssp,
 *     sspstrong or sspreq and codegen may add one (sspreq always; the others
 *     only with a static alloca: arrays and address-taken locals are what
 *     they protect, and every other local is in registers by now);
 *   - 48 bytes, all six callee-saved registers pushed, when some value
 *     lives across a call or more than the nine caller-saved registers
 *     hold at once; 8 for the frame pointer when the function keeps one;
 * provided nothing is spilled.  "Nothing is spilled" is a model, not a
 * proof: at most ACROSS_CALL_REGS register-sized SSA values (frame
 * addresses included: see occupies_register()) are live across any call,
 * so they fit the five callee-saved registers (rbx, r12-r15; rbp
 * may be the frame pointer), and at most LIVE_REGS at once in any order
 * the scheduler may give a block (block_width()), which leaves three of the
 * fourteen allocatable registers to the instruction selector's temporaries and
 * fixed-register instructions.  Past that, or
 * with a byval argument, a dynamic alloca, variable arguments (va_start
 * saves the six argument registers in the frame), or a function too large
 * to analyse cheaply, there is no bound.  The stackleak pass records each
 * function it leaves out with its bound, and passport-finalize checks them
 * all against .stack_sizes: a function that reached track-min-size stops the
 * build, so a wrong model is loud, never an untracked frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passport.h"

/* Registers' worth of values that need no spill slot (see above). */
#define ACROSS_CALL_REGS 5
#define LIVE_REGS 11
/* rax, rcx, rdx, rsi, rdi, r8-r11: beyond these, callee-saved ones. */
#define CALLER_SAVED_REGS 9
#define CALLEE_SAVED_PUSHES 48
/*
 * Larger functions are not analysed.  The limits are for compile time (the
 * walk in max_pressure() costs instructions x words), not for the bound's
 * sake: a dispatcher such as the syscall table's x64_sys_call() has one
 * block and one call per case, hundreds of each, and no frame at all; it
 * runs on every system call, so a NOP there costs every one of them.
 */
#define MAX_VALUES 4096
#define MAX_BLOCKS 2048

struct value {
	LLVMValueRef v;
	unsigned regs;		/* 8-byte registers it occupies */
};

/* Each set is liveness.words 64-bit words, one bit per value. */
struct block {
	LLVMBasicBlockRef bb;
	size_t pos;		/* in the function's layout */
	uint64_t *def, *use, *in, *out;
	uint64_t *phi_use;	/* used by a successor's phi, from this block */
};

struct liveness {
	LLVMTargetDataRef td;
	struct value *values;	/* sorted by pointer */
	size_t nvalues;
	struct block *blocks;	/* sorted by pointer */
	struct block **layout;	/* the same, in the function's order */
	size_t nblocks;
	size_t words;		/* of each set */
	uint64_t *sets;		/* the blocks' sets, and two scratch sets */
};

static int by_pointer(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

static int value_index(const struct liveness *l, LLVMValueRef v)
{
	const struct value *hit = bsearch(&v, l->values, l->nvalues, sizeof(*hit), by_pointer);

	return hit ? (int)(hit - l->values) : -1;
}

static struct block *block_of(const struct liveness *l, LLVMBasicBlockRef bb)
{
	return bsearch(&bb, l->blocks, l->nblocks, sizeof(*l->blocks), by_pointer);
}

static unsigned registers_for(LLVMTargetDataRef td, LLVMTypeRef ty)
{
	unsigned long long bytes = LLVMStoreSizeOfType(td, ty);

	return bytes <= 8 ? 1 : (unsigned)((bytes + 7) / 8);
}

/* Does V need a register?  Every sized value does, frame addresses too:
 * an alloca's address could be recomputed from %rsp, but the register
 * allocator may keep it in a callee-saved register instead (Debian's
 * __wake_up() kept its wait-queue entry's address in %r13 across its loop's
 * calls and spilled an argument).  Void, label, token and metadata values
 * are unsized. */
static bool occupies_register(LLVMValueRef v)
{
	return LLVMTypeIsSized(LLVMTypeOf(v));
}

/* Does I's code read its operands?  Lifetime and invariant markers emit
 * none: an alloca's address passed to llvm.lifetime.end after a call is not
 * live across that call. */
static bool reads_operands(LLVMValueRef i)
{
	static const char *const markers[] = { "llvm.lifetime.", "llvm.invariant.", NULL };
	LLVMValueRef callee;

	if (!LLVMIsACallInst(i))
		return true;
	callee = LLVMGetCalledValue(i);
	if (!LLVMIsAFunction(callee) || !LLVMGetIntrinsicID(callee))
		return true;
	for (const char *const *m = markers; *m; m++)
		if (!strncmp(passport_name(callee), *m, strlen(*m)))
			return false;
	return true;
}

/* Values and blocks of F, or false past MAX_VALUES or MAX_BLOCKS. */
static bool count(LLVMValueRef f, size_t *values, size_t *blocks)
{
	*values = *blocks = 0;
	for (LLVMValueRef a = LLVMGetFirstParam(f); a; a = LLVMGetNextParam(a))
		*values += occupies_register(a);
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
		++*blocks;
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
			*values += occupies_register(i);
	}
	return *values <= MAX_VALUES && *blocks <= MAX_BLOCKS;
}

static void add_value(struct liveness *l, LLVMValueRef v)
{
	if (occupies_register(v))
		l->values[l->nvalues++] = (struct value){ v, registers_for(l->td, LLVMTypeOf(v)) };
}

/* Number F's arguments and register-sized results, and its blocks, into
 * arrays sized by count(); each block gets its five sets. */
static bool collect(struct liveness *l, LLVMValueRef f)
{
	size_t values, blocks;

	if (!count(f, &values, &blocks))
		return false;
	l->words = values / 64 + 1;
	l->values = malloc((values + 1) * sizeof(*l->values));
	l->blocks = malloc((blocks + 1) * sizeof(*l->blocks));
	l->layout = malloc((blocks + 1) * sizeof(*l->layout));
	l->sets = calloc((5 * blocks + 2) * l->words, sizeof(uint64_t));
	if (!l->values || !l->blocks || !l->layout || !l->sets)
		return false;
	for (LLVMValueRef a = LLVMGetFirstParam(f); a; a = LLVMGetNextParam(a))
		add_value(l, a);
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
		uint64_t *set = l->sets + 5 * l->nblocks * l->words;

		l->blocks[l->nblocks] = (struct block){ bb, l->nblocks, set, set + l->words, set + 2 * l->words,
							set + 3 * l->words, set + 4 * l->words };
		l->nblocks++;
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
			add_value(l, i);
	}
	qsort(l->values, l->nvalues, sizeof(*l->values), by_pointer);
	qsort(l->blocks, l->nblocks, sizeof(*l->blocks), by_pointer);
	for (size_t k = 0; k < l->nblocks; k++)
		l->layout[l->blocks[k].pos] = &l->blocks[k];
	return true;
}

/* Two sets that belong to no block, for solve() and max_pressure(). */
static uint64_t *scratch(const struct liveness *l, int n)
{
	return l->sets + (5 * l->nblocks + n) * l->words;
}

static void set_bit(uint64_t *s, int i) { s[i / 64] |= 1ull << (i % 64); }
static void clear_bit(uint64_t *s, int i) { s[i / 64] &= ~(1ull << (i % 64)); }
static bool test_bit(const uint64_t *s, int i) { return s[i / 64] >> (i % 64) & 1; }

/* use/def per block; a phi's incoming value is used at the end of the
 * incoming block, not in the phi's block.  A call's callee is an operand
 * too: a global, untracked, unless the call is indirect. */
static void local_sets(struct liveness *l)
{
	for (size_t k = 0; k < l->nblocks; k++) {
		struct block *b = &l->blocks[k];

		for (LLVMValueRef i = LLVMGetFirstInstruction(b->bb); i; i = LLVMGetNextInstruction(i)) {
			int d = value_index(l, i);

			if (LLVMIsAPHINode(i)) {
				for (unsigned n = 0; n < LLVMCountIncoming(i); n++) {
					int u = value_index(l, LLVMGetIncomingValue(i, n));
					struct block *from = block_of(l, LLVMGetIncomingBlock(i, n));

					if (u >= 0 && from)
						set_bit(from->phi_use, u);
				}
			} else if (reads_operands(i)) {
				for (unsigned n = 0; n < (unsigned)LLVMGetNumOperands(i); n++) {
					int u = value_index(l, LLVMGetOperand(i, n));

					if (u >= 0 && !test_bit(b->def, u))
						set_bit(b->use, u);
				}
			}
			if (d >= 0)
				set_bit(b->def, d);
		}
	}
}

/* in = use | (out - def), out = phi_use | union of the successors' in.
 * Backward, so the blocks go last to first in the function's order, which
 * mostly visits a block after its successors: few rounds to the fixed
 * point even in a large function. */
static void solve(struct liveness *l)
{
	size_t bytes = l->words * sizeof(uint64_t);
	uint64_t *out = scratch(l, 0), *in = scratch(l, 1);
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t k = l->nblocks; k-- > 0;) {
			struct block *b = l->layout[k];
			LLVMValueRef term = LLVMGetBasicBlockTerminator(b->bb);

			memcpy(out, b->phi_use, bytes);
			for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term); s++) {
				struct block *succ = block_of(l, LLVMGetSuccessor(term, s));

				for (size_t w = 0; succ && w < l->words; w++)
					out[w] |= succ->in[w];
			}
			for (size_t w = 0; w < l->words; w++)
				in[w] = b->use[w] | (out[w] & ~b->def[w]);
			if (memcmp(in, b->in, bytes) || memcmp(out, b->out, bytes)) {
				memcpy(b->in, in, bytes);
				memcpy(b->out, out, bytes);
				changed = true;
			}
		}
	}
}

static unsigned registers_live(const struct liveness *l, const uint64_t *live)
{
	unsigned regs = 0;

	for (size_t w = 0; w < l->words; w++)
		for (uint64_t bits = live[w]; bits; bits &= bits - 1)
			regs += l->values[w * 64 + (size_t)__builtin_ctzll(bits)].regs;
	return regs;
}

/*
 * The most registers block B can hold at once, in whatever order the
 * instruction scheduler gives it.  The IR order is not that order: the
 * scheduler hoisted all eleven loads of a straight-line block above the sums
 * that consume them in mm/vmstat.c's fragmentation_index(), spilling 64
 * bytes where the IR order keeps six values live.  Only data dependences
 * are sure to survive scheduling (alias analysis lets loads and stores pass
 * each other), and the order of B's volatile and atomic memory operations
 * and calls of functions (the DAG chains them), so B's values form a
 * partial order: u comes before v when
 * u does not leave the block and every use of u in B is v's defining
 * instruction or one it depends on (u is dead when v is born).  Values that
 * are live at once come before one another in no way, an antichain, and the
 * largest antichain is as large as the fewest chains covering the order
 * (Dilworth): the number of values less a maximum matching of the
 * "comes before" pairs.  A value of several registers counts as that many.
 * Past MAX_ORDERED of them, or MAX_BLOCK_INSNS instructions, every value
 * B may hold counts (its live-in and live-out values and all it defines).
 */
#define MAX_ORDERED 128
#define MAX_BLOCK_INSNS 1024

struct position {
	LLVMValueRef insn;
	long pos;
};

struct block_order {
	size_t ninsns, words;		/* instructions of B, bitset words */
	LLVMValueRef *insns;		/* B's instructions in order */
	struct position *sorted;	/* the same, by pointer, with positions */
	uint64_t *deps;			/* per instruction: those it depends on */
	size_t n;			/* values (a copy per register) */
	int *first;			/* per value of L: its first element + 1, or 0 */
	long def[MAX_ORDERED];		/* defining position, -1 for live-in */
	uint64_t *uses;			/* per element: positions of its uses in B */
	bool leaves[MAX_ORDERED];	/* live-out: never dead in B */
	int match[MAX_ORDERED];		/* matching: element -> element before it */
	bool seen[MAX_ORDERED];
};

/* Does SelectionDAG keep I in program order with the others like it? */
static bool keeps_its_place(LLVMValueRef i)
{
	LLVMValueRef callee;

	switch (LLVMGetInstructionOpcode(i)) {
	case LLVMLoad:
	case LLVMStore:
		return LLVMGetVolatile(i);
	case LLVMAtomicRMW:
	case LLVMAtomicCmpXchg:
	case LLVMFence:
		return true;
	case LLVMCall:
	case LLVMInvoke:
	case LLVMCallBr:
		callee = LLVMGetCalledValue(i);
		return !LLVMIsAInlineAsm(callee) &&
		       !(LLVMIsAFunction(callee) && LLVMGetIntrinsicID(callee));
	default:
		return false;
	}
}

static long position_in_block(const struct block_order *o, LLVMValueRef v)
{
	const struct position *hit = bsearch(&v, o->sorted, o->ninsns, sizeof(*hit), by_pointer);

	return hit ? hit->pos : -1;
}

/* Does u come before v (u dead, in any order, once v is defined)? */
static bool comes_before(const struct block_order *o, size_t u, size_t v)
{
	const uint64_t *uses = o->uses + u * o->words, *deps;

	if (o->leaves[u] || o->def[v] < 0)
		return false;
	deps = o->deps + (size_t)o->def[v] * o->words;
	for (size_t w = 0; w < o->words; w++) {
		uint64_t outside = uses[w] & ~deps[w];

		if ((size_t)o->def[v] / 64 == w)
			outside &= ~(1ull << (o->def[v] % 64));
		if (outside)
			return false;
	}
	return true;
}

static bool no_bits(const uint64_t *s, size_t words)
{
	for (size_t w = 0; w < words; w++)
		if (s[w])
			return false;
	return true;
}

/* Kuhn's augmenting path from U in the "comes before" pairs. */
static bool augment(struct block_order *o, size_t u)
{
	for (size_t v = 0; v < o->n; v++) {
		if (o->seen[v] || !comes_before(o, u, v))
			continue;
		o->seen[v] = true;
		if (o->match[v] < 0 || augment(o, (size_t)o->match[v])) {
			o->match[v] = (int)u;
			return true;
		}
	}
	return false;
}

/* Add L's value IDX to the order, defined at DEF (-1: live-in), as one
 * element per register; false when the order is full. */
static bool add_ordered(struct block_order *o, const struct liveness *l, const struct block *b,
			int idx, long def)
{
	unsigned regs = l->values[idx].regs;

	if (o->n + regs > MAX_ORDERED)
		return false;
	o->first[idx] = (int)o->n + 1;
	for (unsigned r = 0; r < regs; r++, o->n++) {
		o->def[o->n] = def;
		o->leaves[o->n] = test_bit(b->out, idx);
		o->match[o->n] = -1;
	}
	return true;
}

/* Each element's uses in B, in one pass over B; an unused result that
 * does not leave B is live at its definition. */
static void record_uses(struct block_order *o, const struct liveness *l)
{
	for (size_t p = 0; p < o->ninsns; p++) {
		LLVMValueRef i = o->insns[p];

		if (LLVMIsAPHINode(i) || !reads_operands(i))
			continue;	/* a phi's operands are used in the incoming block */
		for (unsigned n = 0; n < (unsigned)LLVMGetNumOperands(i); n++) {
			int idx = value_index(l, LLVMGetOperand(i, n));
			int e = idx >= 0 ? o->first[idx] - 1 : -1;

			for (size_t c = 0; e >= 0 && c < l->values[idx].regs; c++)
				set_bit(o->uses + ((size_t)e + c) * o->words, (int)p);
		}
	}
	for (size_t e = 0; e < o->n; e++)
		if (o->def[e] >= 0 && !o->leaves[e] && no_bits(o->uses + e * o->words, o->words))
			set_bit(o->uses + e * o->words, (int)o->def[e]);
}

static unsigned all_it_may_hold(const struct liveness *l, const struct block *b)
{
	uint64_t *live = scratch(l, 0);

	for (size_t w = 0; w < l->words; w++)
		live[w] = b->in[w] | b->out[w] | b->def[w];
	return registers_live(l, live);
}

static unsigned block_width(const struct liveness *l, const struct block *b)
{
	struct block_order o = { 0 };
	unsigned width = 0;
	long last_in_place = -1;
	bool ok = true;

	for (LLVMValueRef i = LLVMGetFirstInstruction(b->bb); i; i = LLVMGetNextInstruction(i))
		o.ninsns++;
	if (o.ninsns > MAX_BLOCK_INSNS)
		return all_it_may_hold(l, b);
	o.words = o.ninsns / 64 + 1;
	o.insns = malloc(o.ninsns * sizeof(*o.insns));
	o.sorted = malloc(o.ninsns * sizeof(*o.sorted));
	o.deps = calloc(o.ninsns * o.words, sizeof(uint64_t));
	o.uses = calloc(MAX_ORDERED * o.words, sizeof(uint64_t));
	o.first = calloc(l->nvalues + 1, sizeof(int));
	if (!o.insns || !o.sorted || !o.deps || !o.uses || !o.first) {
		width = all_it_may_hold(l, b);
		goto out;
	}
	o.ninsns = 0;
	for (LLVMValueRef i = LLVMGetFirstInstruction(b->bb); i; i = LLVMGetNextInstruction(i)) {
		o.sorted[o.ninsns] = (struct position){ i, (long)o.ninsns };
		o.insns[o.ninsns++] = i;
	}
	qsort(o.sorted, o.ninsns, sizeof(*o.sorted), by_pointer);
	for (size_t k = 0; k < o.ninsns; k++) {
		LLVMValueRef i = o.insns[k];
		uint64_t *deps = o.deps + k * o.words;

		if (keeps_its_place(i)) {
			if (last_in_place >= 0) {
				for (size_t w = 0; w < o.words; w++)
					deps[w] |= o.deps[(size_t)last_in_place * o.words + w];
				set_bit(deps, (int)last_in_place);
			}
			last_in_place = (long)k;
		}

		if (!LLVMIsAPHINode(i))
			for (unsigned n = 0; n < (unsigned)LLVMGetNumOperands(i); n++) {
				long p = position_in_block(&o, LLVMGetOperand(i, n));

				if (p < 0)
					continue;
				for (size_t w = 0; w < o.words; w++)
					deps[w] |= o.deps[(size_t)p * o.words + w];
				set_bit(deps, (int)p);
			}
	}
	for (size_t w = 0; w < l->words && ok; w++)
		for (uint64_t bits = b->in[w]; bits && ok; bits &= bits - 1)
			ok = add_ordered(&o, l, b, (int)(w * 64 + (size_t)__builtin_ctzll(bits)), -1);
	for (size_t p = 0; p < o.ninsns && ok; p++) {
		int d = value_index(l, o.insns[p]);

		if (d >= 0)
			ok = add_ordered(&o, l, b, d, (long)p);
	}
	if (!ok) {
		width = all_it_may_hold(l, b);
		goto out;
	}
	record_uses(&o, l);
	width = (unsigned)o.n;
	for (size_t u = 0; u < o.n; u++) {
		memset(o.seen, 0, sizeof(o.seen));
		width -= augment(&o, u);
	}
out:
	free(o.insns);
	free(o.sorted);
	free(o.deps);
	free(o.uses);
	free(o.first);
	return width;
}

/* The most registers live at once (block_width()), and across a call
 * (live after it, but its result): for that, walk each block backwards from
 * its live-out set, counting what is live after each call. */
static unsigned max_pressure(const struct liveness *l, unsigned *across)
{
	unsigned most = 0;

	*across = 0;

	for (size_t k = 0; k < l->nblocks; k++) {
		const struct block *b = &l->blocks[k];
		uint64_t *live = scratch(l, 0);
		unsigned now = block_width(l, b);

		if (now > most)
			most = now;
		memcpy(live, b->out, l->words * sizeof(uint64_t));
		for (LLVMValueRef i = LLVMGetLastInstruction(b->bb); i; i = LLVMGetPreviousInstruction(i)) {
			int d = value_index(l, i);

			if (passport_is_real_call(i)) {
				if (d >= 0)
					clear_bit(live, d);
				now = registers_live(l, live);
				if (now > *across)
					*across = now;
			}
			if (d >= 0)
				clear_bit(live, d);
			if (!LLVMIsAPHINode(i) && reads_operands(i))
				for (unsigned n = 0; n < (unsigned)LLVMGetNumOperands(i); n++) {
					int u = value_index(l, LLVMGetOperand(i, n));

					if (u >= 0)
						set_bit(live, u);
				}
		}
	}
	return most;
}

/* Does the inline-asm constraint list allow memory for an operand that is
 * not indirect?  Then the backend may give that operand a stack slot. */
static unsigned asm_memory_operands(LLVMValueRef inline_asm)
{
	size_t len;
	const char *c = passport_inline_asm_constraints(inline_asm, &len);
	const char *end = c + len;
	unsigned slots = 0;

	while (c < end) {
		bool clobber = *c == '~', indirect = false, memory = false;

		for (; c < end && *c != ','; c++) {
			if (*c == '{') {	/* a named register: skip its name */
				while (c < end && *c != '}')
					c++;
				continue;
			}
			indirect |= *c == '*';
			memory |= strchr("mogVX<>", *c) != NULL;
		}
		slots += !clobber && !indirect && memory;
		c += c < end;
	}
	return slots;
}

/* Bytes of stack the argument list of CALL takes beyond the six integer
 * argument registers; -1 for a byval argument (a copy of any size). */
static long outgoing_stack_bytes(LLVMTargetDataRef td, LLVMValueRef call)
{
	static unsigned byval;
	unsigned regs = 0, n = LLVMGetNumArgOperands(call);

	if (!byval)
		byval = LLVMGetEnumAttributeKindForName("byval", 5);
	for (unsigned a = 0; a < n; a++) {
		LLVMTypeRef ty = LLVMTypeOf(LLVMGetOperand(call, a));

		if (LLVMGetCallSiteEnumAttribute(call, a + 1, byval))
			return -1;
		if (LLVMTypeIsSized(ty))	/* not metadata (intrinsics) */
			regs += registers_for(td, ty);
	}
	return regs > 6 ? 8L * (regs - 6) : 0;
}

static uint64_t round_up(uint64_t n, uint64_t to)
{
	return (n + to - 1) / to * to;
}

/* The canary slot StackProtector may add in codegen (the same frame as
 * the locals, in GCC's get_frame_size() too): see the header. */
static bool may_get_canary(LLVMValueRef f, bool has_allocas)
{
	return passport_has_fn_attr(f, "sspreq") ||
	       (has_allocas && (passport_has_fn_attr(f, "sspstrong") ||
				passport_has_fn_attr(f, "ssp")));
}

/* Everything but the spills: allocas, stack arguments, asm slots, padding,
 * the canary. */
static bool frame_objects(LLVMModuleRef M, LLVMValueRef f, uint64_t *bytes)
{
	LLVMTargetDataRef td = LLVMGetModuleDataLayout(M);
	uint64_t allocas = 0, asm_slots = 0;
	long args = 0;

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
			LLVMOpcode op = LLVMGetInstructionOpcode(i);
			LLVMValueRef callee;

			if (op == LLVMAlloca) {
				unsigned align = LLVMGetAlignment(i);

				if (passport_alloca_is_dynamic(i))
					return false;
				allocas += round_up(passport_alloca_bytes(M, i), align > 8 ? align : 8);
				continue;
			}
			if (op != LLVMCall && op != LLVMInvoke && op != LLVMCallBr)
				continue;
			callee = LLVMGetCalledValue(i);
			if (LLVMIsAInlineAsm(callee)) {
				asm_slots += 8 * asm_memory_operands(callee);
			} else {
				long stack = outgoing_stack_bytes(td, i);

				if (stack < 0)
					return false;
				if (stack > args)
					args = stack;
			}
		}
	*bytes = allocas + (uint64_t)args + asm_slots + 8 + (may_get_canary(f, allocas != 0) ? 8 : 0);
	return true;
}

/* "frame-pointer"="all" or "non-leaf": push %rbp in the prologue. */
static bool keeps_frame_pointer(LLVMValueRef f)
{
	LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex,
							  "frame-pointer", 13);
	unsigned len;
	const char *v = a ? LLVMGetStringAttributeValue(a, &len) : NULL;

	return v && !(len == 4 && !memcmp(v, "none", 4));
}

bool passport_frame_bound(LLVMModuleRef M, LLVMValueRef f, uint64_t *bound,
			  char *why, size_t why_len)
{
	struct liveness l = { .td = LLVMGetModuleDataLayout(M) };
	unsigned live, across;
	bool ok = false;

	if (LLVMPointerSize(l.td) != 8 || passport_has_fn_attr(f, "naked"))
		snprintf(why, why_len, "not x86-64 code with a frame");
	else if (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(f)))
		snprintf(why, why_len, "variable arguments");
	else if (!frame_objects(M, f, bound))
		snprintf(why, why_len, "a dynamic alloca or a byval argument");
	else if (!collect(&l, f))
		snprintf(why, why_len, "over %d values or %d blocks", MAX_VALUES, MAX_BLOCKS);
	else {
		local_sets(&l);
		solve(&l);
		live = max_pressure(&l, &across);
		snprintf(why, why_len, "%u registers live, %u across a call (at most %d and %d)",
			 live, across, LIVE_REGS, ACROSS_CALL_REGS);
		ok = live <= LIVE_REGS && across <= ACROSS_CALL_REGS;
		if (across || live > CALLER_SAVED_REGS)
			*bound += CALLEE_SAVED_PUSHES;
		if (keeps_frame_pointer(f))
			*bound += 8;
	}
	free(l.values);
	free(l.blocks);
	free(l.layout);
	free(l.sets);
	return ok;
}
