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

void passport_fatal(const struct passport_pass *pass, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "passport: error: %s: ", pass->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	/* The compiler is mid-pipeline: skip its destructors, just stop. */
	_Exit(1);
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

bool passport_makes_calls(LLVMValueRef fn)
{
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMOpcode op = LLVMGetInstructionOpcode(i);
			LLVMValueRef callee;

			if (op != LLVMCall && op != LLVMInvoke && op != LLVMCallBr)
				continue;
			callee = LLVMGetCalledValue(i);
			if (LLVMIsAInlineAsm(callee))
				continue;	/* GCC: an asm is not a call */
			if (LLVMIsAFunction(callee) && LLVMGetIntrinsicID(callee) &&
			    intrinsic_is_free(callee))
				continue;
			return true;
		}
	}
	return false;
}

bool passport_target_is_x86(LLVMModuleRef M)
{
	const char *t = LLVMGetTarget(M);

	return t && (!strncmp(t, "x86_64", 6) || !strncmp(t, "i386", 4) ||
		     !strncmp(t, "i486", 4) || !strncmp(t, "i586", 4) ||
		     !strncmp(t, "i686", 4));
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

/* ---- inserting code ----------------------------------------------------- */

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
}

void passport_position_after(LLVMBuilderRef b, LLVMValueRef i)
{
	LLVMValueRef next = LLVMGetNextInstruction(i);

	if (next)
		LLVMPositionBuilderBefore(b, next);
	else
		LLVMPositionBuilderAtEnd(b, LLVMGetInstructionParent(i));
}

static LLVMTypeRef void_fn_type(LLVMContextRef ctx)
{
	return LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
}

LLVMValueRef passport_void_fn(LLVMModuleRef M, const char *name)
{
	LLVMValueRef fn = LLVMGetNamedFunction(M, name);

	if (!fn)
		fn = LLVMAddFunction(M, name, void_fn_type(LLVMGetModuleContext(M)));
	return fn;
}

LLVMValueRef passport_insert_void_call(LLVMBuilderRef b, LLVMModuleRef M,
				       const char *name)
{
	LLVMValueRef fn = passport_void_fn(M, name);

	return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, NULL, 0, "");
}

LLVMValueRef passport_insert_asm(LLVMBuilderRef b, const char *text,
				 const char *clobbers)
{
	LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(
		LLVMGetBasicBlockParent(LLVMGetInsertBlock(b))));
	LLVMTypeRef ty = void_fn_type(ctx);
	LLVMValueRef fn = LLVMGetInlineAsm(ty, (char *)text, strlen(text),
					   (char *)clobbers, strlen(clobbers),
					   /*HasSideEffects=*/1, /*IsAlignStack=*/0,
					   LLVMInlineAsmDialectATT, /*CanThrow=*/0);

	return LLVMBuildCall2(b, ty, fn, NULL, 0, "");
}
