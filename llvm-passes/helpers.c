// SPDX-License-Identifier: GPL-2.0
/*
 * helpers.c - the shared helper layer of passport's passes (contract in
 * passport.h): options, diagnostics, function facts, allocas, insertion.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>

#include "diag.h"
#include "passport.h"

/* ---- options ------------------------------------------------------------ */

const struct passport_option *passport_option(const struct passport_pass *pass,
					      const char *name)
{
	for (const struct passport_option *o = pass->options; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	passport_fatal(pass, "internal: no option '%s'", name);
}

bool passport_option_long(const struct passport_pass *pass, const char *name,
			  long min, long max, long dflt, long *out)
{
	const struct passport_option *o = passport_option(pass, name);
	char *end;
	long v;

	*out = dflt;
	if (!o->value)
		return false;
	errno = 0;
	v = strtol(o->value, &end, 10);
	if (!*o->value || *end || errno || v < min || v > max)
		passport_fatal(pass, "-passport-%s-%s=%s: expected an integer in %ld..%ld",
			       pass->name, name, o->value, min, max);
	*out = v;
	return true;
}

int passport_option_choice(const struct passport_pass *pass, const char *name,
			   const char *const *choices, int dflt)
{
	const struct passport_option *o = passport_option(pass, name);
	char list[256] = "";

	if (!o->value)
		return dflt;
	for (int i = 0; choices[i]; i++) {
		if (!strcmp(o->value, choices[i]))
			return i;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", choices[i]);
	}
	passport_fatal(pass, "-passport-%s-%s=%s: expected one of: %s",
		       pass->name, name, o->value, list);
}

/* ---- diagnostics -------------------------------------------------------- */

void passport_note(const struct passport_pass *pass, const char *fmt, ...)
{
	va_list ap;

	if (!pass->verbose)
		return;
	fprintf(stderr, "passport: %s: ", pass->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void passport_verify_module(const struct passport_pass *pass, LLVMModuleRef M)
{
	char *msg = NULL;

	if (LLVMVerifyModule(M, LLVMReturnStatusAction, &msg)) {
		char *nl = msg ? strchr(msg, '\n') : NULL;

		if (nl)
			*nl = '\0';
		passport_fatal(pass, "the IR is invalid after this pass (-passport-verify): %s",
			       msg ? msg : "?");
	}
	LLVMDisposeMessage(msg);
	passport_note(pass, "IR verified after the pass");
}

void passport_fatal(const struct passport_pass *pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	passport_vdie(pass->name, fmt, ap);
}

/* ---- functions ---------------------------------------------------------- */

const char *passport_name(LLVMValueRef fn)
{
	size_t len;
	const char *name = LLVMGetValueName2(fn, &len);

	return name ? name : "";
}

bool passport_is_definition(LLVMValueRef fn)
{
	return LLVMCountBasicBlocks(fn) != 0;
}

const char *passport_section(LLVMValueRef fn)
{
	const char *s = LLVMGetSection(fn);

	return s ? s : "";
}

bool passport_in_sections(LLVMValueRef fn, const char *const *list)
{
	const char *s = passport_section(fn);

	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static unsigned attr_kind(const char *name)
{
	return LLVMGetEnumAttributeKindForName(name, strlen(name));
}

bool passport_has_fn_attr(LLVMValueRef fn, const char *name)
{
	return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
					   attr_kind(name)) != NULL;
}

void passport_add_fn_attr(LLVMValueRef fn, const char *name)
{
	LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));

	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(ctx, attr_kind(name), 0));
}

void passport_remove_fn_attr(LLVMValueRef fn, const char *name)
{
	unsigned kind = attr_kind(name);

	if (kind)
		LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind);
}

/* Intrinsics that emit no call instruction. */
static bool intrinsic_is_free(LLVMValueRef callee)
{
	static const char *const free_prefixes[] = {
		"llvm.dbg.", "llvm.lifetime.", "llvm.assume", "llvm.experimental.noalias",
		"llvm.stacksave", "llvm.stackrestore", "llvm.read_register",
		"llvm.write_register", "llvm.frameaddress", "llvm.returnaddress",
		"llvm.expect", "llvm.prefetch", "llvm.annotation", "llvm.var.annotation",
		"llvm.ptr.annotation", "llvm.donothing", "llvm.trap", "llvm.debugtrap",
		"llvm.objectsize", "llvm.is.constant", "llvm.invariant.", "llvm.launder",
		"llvm.strip", "llvm.fshl", "llvm.fshr", "llvm.bswap", "llvm.ctpop",
		"llvm.ctlz", "llvm.cttz", "llvm.abs", "llvm.smax", "llvm.smin",
		"llvm.umax", "llvm.umin", "llvm.sadd", "llvm.uadd", "llvm.ssub",
		"llvm.usub", "llvm.smul", "llvm.umul", "llvm.bitreverse",
		"llvm.x86.", "llvm.vector.", "llvm.fabs", "llvm.sqrt", "llvm.pseudoprobe",
		"llvm.experimental.", "llvm.sideeffect", "llvm.masked.", "llvm.fmuladd",
		NULL,
	};
	const char *name = passport_name(callee);

	for (const char *const *p = free_prefixes; *p; p++)
		if (!strncmp(name, *p, strlen(*p)))
			return true;
	return false;
}

bool passport_is_real_call(LLVMValueRef i)
{
	LLVMOpcode op = LLVMGetInstructionOpcode(i);
	LLVMValueRef callee;

	if (op != LLVMCall && op != LLVMInvoke && op != LLVMCallBr)
		return false;
	callee = LLVMGetCalledValue(i);
	if (LLVMIsAInlineAsm(callee))
		return false;	/* GCC: an asm is not a call */
	return !(LLVMIsAFunction(callee) && LLVMGetIntrinsicID(callee) &&
		 intrinsic_is_free(callee));
}

bool passport_makes_calls(LLVMValueRef fn)
{
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i))
			if (passport_is_real_call(i))
				return true;
	return false;
}

bool passport_target_is_x86(LLVMModuleRef M)
{
	const char *t = LLVMGetTarget(M);

	return t && (!strncmp(t, "x86_64", 6) || !strncmp(t, "i386", 4) ||
		     !strncmp(t, "i486", 4) || !strncmp(t, "i586", 4) ||
		     !strncmp(t, "i686", 4));
}

/* V without constant bitcasts/GEPs/addrspacecasts (LLVM 14 wraps both the
 * annotated global and the annotation string in them). */
static LLVMValueRef strip_const_casts(LLVMValueRef v)
{
	while (LLVMIsAConstantExpr(v) &&
	       (LLVMGetConstOpcode(v) == LLVMBitCast ||
		LLVMGetConstOpcode(v) == LLVMGetElementPtr ||
		LLVMGetConstOpcode(v) == LLVMAddrSpaceCast))
		v = LLVMGetOperand(v, 0);
	return v;
}

/* Is constant C used by nothing but other dead constants? */
static bool const_is_dead(LLVMValueRef c)
{
	if (!LLVMIsAConstant(c) || LLVMIsAGlobalValue(c))
		return false;
	for (LLVMUseRef u = LLVMGetFirstUse(c); u; u = LLVMGetNextUse(u))
		if (!const_is_dead(LLVMGetUser(u)))
			return false;
	return true;
}

/* Delete the llvm.metadata strings (annotation, file name) of removed
 * entries that nothing live uses any more. */
static void drop_dead_metadata_strings(LLVMValueRef *strs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		LLVMValueRef g = strs[i];
		const char *sec;
		bool dead = true;

		for (unsigned j = 0; j < i; j++)
			if (strs[j] == g)
				dead = false;	/* already handled */
		if (!dead || !LLVMIsAGlobalVariable(g) || !(sec = LLVMGetSection(g)) ||
		    strcmp(sec, "llvm.metadata"))
			continue;
		for (LLVMUseRef u = LLVMGetFirstUse(g); u && dead; u = LLVMGetNextUse(u))
			dead = const_is_dead(LLVMGetUser(u));
		if (!dead)
			continue;
		LLVMReplaceAllUsesWith(g, LLVMGetUndef(LLVMTypeOf(g)));
		LLVMDeleteGlobal(g);
		for (unsigned j = i + 1; j < n; j++)
			if (strs[j] == g)
				strs[j] = NULL;
	}
}

unsigned passport_take_annotated(LLVMModuleRef M, const char *annotation,
				 void (*fn)(LLVMValueRef global, void *ctx), void *ctx)
{
	LLVMValueRef ga = LLVMGetNamedGlobal(M, "llvm.global.annotations");
	LLVMValueRef init, *kept, *strs, ng;
	unsigned n, nkept = 0, found = 0, nstrs = 0;
	size_t want = strlen(annotation);

	if (!ga || !(init = LLVMGetInitializer(ga)) || !LLVMIsAConstantArray(init))
		return 0;
	n = LLVMGetNumOperands(init);
	kept = calloc(n ? n : 1, sizeof(*kept));
	strs = calloc(2 * (n ? n : 1), sizeof(*strs));
	if (!kept || !strs)
		abort();
	for (unsigned i = 0; i < n; i++) {
		LLVMValueRef e = LLVMGetOperand(init, i);
		LLVMValueRef str = strip_const_casts(LLVMGetOperand(e, 1));
		LLVMValueRef s_init = LLVMIsAGlobalVariable(str) ? LLVMGetInitializer(str) : NULL;
		const char *s = NULL;
		size_t len = 0;

		if (s_init && LLVMIsAConstantDataSequential(s_init) && LLVMIsConstantString(s_init)) {
			s = LLVMGetAsString(s_init, &len);
			if (len && s[len - 1] == '\0')
				len--;
		}
		if (s && len == want && !memcmp(s, annotation, len)) {
			found++;
			fn(strip_const_casts(LLVMGetOperand(e, 0)), ctx);
			strs[nstrs++] = str;
			strs[nstrs++] = strip_const_casts(LLVMGetOperand(e, 2));
		} else {
			kept[nkept++] = e;
		}
	}
	if (found) {
		if (nkept) {
			LLVMTypeRef elt = LLVMTypeOf(kept[0]);

			ng = LLVMAddGlobal(M, LLVMArrayType(elt, nkept), "");
			LLVMSetInitializer(ng, LLVMConstArray(elt, kept, nkept));
			LLVMSetLinkage(ng, LLVMAppendingLinkage);
			LLVMSetSection(ng, "llvm.metadata");
			LLVMDeleteGlobal(ga);
			LLVMSetValueName2(ng, "llvm.global.annotations",
					  strlen("llvm.global.annotations"));
		} else {
			LLVMDeleteGlobal(ga);
		}
		drop_dead_metadata_strings(strs, nstrs);
	}
	free(kept);
	free(strs);
	return found;
}

/* ---- allocas ------------------------------------------------------------ */

bool passport_alloca_is_dynamic(LLVMValueRef alloca)
{
	LLVMBasicBlockRef bb = LLVMGetInstructionParent(alloca);
	LLVMValueRef fn = LLVMGetBasicBlockParent(bb);

	return !LLVMIsAConstantInt(LLVMGetOperand(alloca, 0)) ||
	       bb != LLVMGetEntryBasicBlock(fn);
}

uint64_t passport_alloca_bytes(LLVMModuleRef M, LLVMValueRef alloca)
{
	LLVMTargetDataRef dl = LLVMGetModuleDataLayout(M);
	uint64_t elt = LLVMABISizeOfType(dl, LLVMGetAllocatedType(alloca));
	LLVMValueRef count = LLVMGetOperand(alloca, 0);

	if (!LLVMIsAConstantInt(count))
		return 0;
	return elt * LLVMConstIntGetZExtValue(count);
}

void passport_for_each_alloca(LLVMValueRef f,
			      void (*fn)(LLVMValueRef alloca, void *ctx), void *ctx)
{
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef i = LLVMGetFirstInstruction(bb);

		while (i) {
			LLVMValueRef next = LLVMGetNextInstruction(i);

			if (LLVMGetInstructionOpcode(i) == LLVMAlloca)
				fn(i, ctx);
			i = next;
		}
	}
}

static bool is_pointer_cast(LLVMOpcode op)
{
	return op == LLVMBitCast || op == LLVMGetElementPtr || op == LLVMAddrSpaceCast;
}

LLVMValueRef passport_underlying_alloca(LLVMValueRef v)
{
	for (;;) {
		if (LLVMIsAAllocaInst(v))
			return v;
		if (LLVMIsAInstruction(v) && is_pointer_cast(LLVMGetInstructionOpcode(v)))
			v = LLVMGetOperand(v, 0);
		else if (LLVMIsAConstantExpr(v) && is_pointer_cast(LLVMGetConstOpcode(v)))
			v = LLVMGetOperand(v, 0);
		else
			return NULL;
	}
}

const char *passport_const_string(LLVMValueRef v, size_t *len)
{
	LLVMValueRef init;
	const char *s;

	while (LLVMIsAConstantExpr(v) && is_pointer_cast(LLVMGetConstOpcode(v)))
		v = LLVMGetOperand(v, 0);
	if (!LLVMIsAGlobalVariable(v) || !(init = LLVMGetInitializer(v)) ||
	    !LLVMIsAConstantDataSequential(init) || !LLVMIsConstantString(init))
		return NULL;
	s = LLVMGetAsString(init, len);
	if (*len && s[*len - 1] == '\0')
		--*len;
	return s;
}

/* ---- inserting code ----------------------------------------------------- */

/* Line 0 in F's DISubprogram for what B inserts next, or no location
 * when F has no debug info. */
static void set_debug_location(LLVMBuilderRef b, LLVMValueRef f)
{
	LLVMMetadataRef sp = LLVMGetSubprogram(f);
	LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(f));

	LLVMSetCurrentDebugLocation2(b, sp ? LLVMDIBuilderCreateDebugLocation(ctx, 0, 0, sp, NULL)
					   : NULL);
}

static LLVMValueRef function_of(LLVMValueRef i)
{
	return LLVMGetBasicBlockParent(LLVMGetInstructionParent(i));
}

void passport_position_at_entry(LLVMBuilderRef b, LLVMValueRef f)
{
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(f);
	LLVMValueRef i = LLVMGetFirstInstruction(entry);

	while (i && (LLVMGetInstructionOpcode(i) == LLVMAlloca ||
		     LLVMGetInstructionOpcode(i) == LLVMPHI))
		i = LLVMGetNextInstruction(i);
	if (i)
		LLVMPositionBuilderBefore(b, i);
	else
		LLVMPositionBuilderAtEnd(b, entry);
	set_debug_location(b, f);
}

void passport_position_at_top(LLVMBuilderRef b, LLVMValueRef f)
{
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(f);

	LLVMPositionBuilder(b, entry, LLVMGetFirstInstruction(entry));
	set_debug_location(b, f);
}

void passport_position_before(LLVMBuilderRef b, LLVMValueRef i)
{
	LLVMPositionBuilderBefore(b, i);
	set_debug_location(b, function_of(i));
}

void passport_position_after(LLVMBuilderRef b, LLVMValueRef i)
{
	LLVMValueRef next = LLVMGetNextInstruction(i);

	if (next)
		LLVMPositionBuilderBefore(b, next);
	else
		LLVMPositionBuilderAtEnd(b, LLVMGetInstructionParent(i));
	set_debug_location(b, function_of(i));
}

static LLVMTypeRef void_fn_type(LLVMContextRef ctx)
{
	return LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
}

void passport_declared_like_clang(LLVMModuleRef M, LLVMValueRef global)
{
	static const char pic[] = "PIC Level";

	if (!LLVMGetModuleFlag(M, pic, sizeof(pic) - 1))
		passport_set_dso_local(global);
}

LLVMValueRef passport_declare_global(LLVMModuleRef M, LLVMTypeRef ty, const char *name)
{
	LLVMValueRef gv = LLVMAddGlobal(M, ty, name);

	passport_declared_like_clang(M, gv);
	return gv;
}

LLVMValueRef passport_void_fn(LLVMModuleRef M, const char *name)
{
	LLVMValueRef fn = LLVMGetNamedFunction(M, name);

	if (!fn) {
		fn = LLVMAddFunction(M, name, void_fn_type(LLVMGetModuleContext(M)));
		passport_declared_like_clang(M, fn);
	}
	return fn;
}

LLVMValueRef passport_insert_void_call(LLVMBuilderRef b, LLVMModuleRef M,
				       const char *name)
{
	LLVMValueRef fn = passport_void_fn(M, name);

	return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, NULL, 0, "");
}

LLVMValueRef passport_insert_asm(LLVMBuilderRef b, const char *text,
				 const char *constraints, LLVMValueRef *args,
				 unsigned nargs)
{
	LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(
		LLVMGetBasicBlockParent(LLVMGetInsertBlock(b))));
	LLVMTypeRef params[8];
	LLVMTypeRef ty;
	LLVMValueRef fn;

	for (unsigned i = 0; i < nargs && i < 8; i++)
		params[i] = LLVMTypeOf(args[i]);
	ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, nargs, 0);
	fn = LLVMGetInlineAsm(ty, (char *)text, strlen(text), (char *)constraints,
			      strlen(constraints), /*HasSideEffects=*/1,
			      /*IsAlignStack=*/0, LLVMInlineAsmDialectATT,
			      /*CanThrow=*/0);
	return LLVMBuildCall2(b, ty, fn, args, nargs, "");
}

LLVMValueRef passport_insert_read_sp(LLVMBuilderRef b, LLVMModuleRef M)
{
	LLVMContextRef ctx = LLVMGetModuleContext(M);
	LLVMTargetDataRef dl = LLVMGetModuleDataLayout(M);
	unsigned bits = LLVMPointerSize(dl) * 8;
	const char *reg = bits == 64 ? "rsp" : "esp";
	char name[32];
	LLVMTypeRef int_ty = LLVMIntTypeInContext(ctx, bits);
	LLVMTypeRef md_ty = LLVMMetadataTypeInContext(ctx);
	LLVMTypeRef fn_ty = LLVMFunctionType(int_ty, &md_ty, 1, 0);
	LLVMMetadataRef reg_md = LLVMMDStringInContext2(ctx, reg, strlen(reg));
	LLVMValueRef arg = LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, &reg_md, 1));
	LLVMValueRef fn;

	snprintf(name, sizeof(name), "llvm.read_register.i%u", bits);
	fn = LLVMGetNamedFunction(M, name);
	if (!fn)
		fn = LLVMAddFunction(M, name, fn_ty);
	return LLVMBuildCall2(b, fn_ty, fn, &arg, 1, "sp");
}
