/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the LLVM and Clang majors passport
 * builds for (14, 19, 22), in one place, as the kernel's gcc-common.h does
 * for GCC.  No other file of llvm-passes/ tests a version: a new major
 * means new lines here, and the passes, the shim and the frontends stay as
 * they are.
 *
 *   C (loader.c; PASSPORT_LLVM_MAJOR from the build)
 *     passport_plugin_info   LLVM's PassPluginLibraryInfo as C returns it
 *                            (shim.cpp checks it against the real one)
 *   LLVM (shim.cpp)
 *     PassPlugin.h           llvm/Passes/ before 22, llvm/Plugins/ since
 *     register_optimizer_last  the callback gained a ThinOrFullLTOPhase
 *                            argument in 20
 *   Clang (the *-frontend.cpp files)
 *     ParsedAttrInfo.h       split out of ParsedAttr.h in 17
 *     AS_C23                 the C23 attribute syntax (AS_C2x before 18)
 *     make_annotation        AnnotateAttr::CreateImplicit's last argument
 *     make_aligned           AlignedAttr::CreateImplicit's arguments
 *     make_compound          CompoundStmt::Create's FPOptionsOverride (15)
 *     has_user_btf_tag       btf_type_tag("user") on a TypeLoc (15 gives it
 *                            a TypeLoc of its own)
 *     bit_width              FieldDecl::getBitWidthValue (no context since 20)
 *     record_type            the QualType of a RecordDecl (22 renames it)
 *     has_native_randstruct, native_attrs, native_seed
 *                            Clang's own randstruct (since 15)
 */
#ifndef PASSPORT_COMPAT_H
#define PASSPORT_COMPAT_H

/* ---- C: the plugin entry point's return value ---------------------------- */
#ifdef PASSPORT_LLVM_MAJOR
#ifndef __cplusplus
#include <stdbool.h>
#endif
#include <stdint.h>

/* LLVM's PassPluginLibraryInfo, by value, C layout: LLVM 22 added a field,
 * and a struct returned into a caller's larger (or smaller) slot corrupts
 * it.  shim.cpp checks the sizes against the real one. */
struct passport_plugin_info {
	uint32_t api_version;
	const char *name;
	const char *version;
	void (*register_callbacks)(void *pass_builder);
#if PASSPORT_LLVM_MAJOR >= 22
	bool (*pre_codegen)(void *module, void *target_machine, int file_type, void *os);
#endif
};
#endif /* PASSPORT_LLVM_MAJOR */

#ifdef __cplusplus
#include "llvm/Config/llvm-config.h"

/* ---- LLVM ------------------------------------------------------------------ */
#ifdef PASSPORT_COMPAT_LLVM
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#if LLVM_VERSION_MAJOR >= 22
#include "llvm/Plugins/PassPlugin.h"
#else
#include "llvm/Passes/PassPlugin.h"
#endif

namespace passport_compat {

/* PB.registerOptimizerLastEPCallback with ADD(MPM). */
template <typename F>
void register_optimizer_last(llvm::PassBuilder &PB, F add)
{
#if LLVM_VERSION_MAJOR >= 20
	PB.registerOptimizerLastEPCallback(
		[add](llvm::ModulePassManager &MPM, llvm::OptimizationLevel,
		      llvm::ThinOrFullLTOPhase) { add(MPM); });
#else
	PB.registerOptimizerLastEPCallback(
		[add](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) { add(MPM); });
#endif
}

} // namespace passport_compat
#endif /* PASSPORT_COMPAT_LLVM */

/* ---- Clang ----------------------------------------------------------------- */
#ifdef PASSPORT_COMPAT_CLANG
#include <string>

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Sema/ParsedAttr.h"
#if LLVM_VERSION_MAJOR >= 17
#include "clang/Basic/ParsedAttrInfo.h"
#endif

namespace passport_compat {

/* The C23 spelling kind of [[gnu::NAME]] in C. */
#if LLVM_VERSION_MAJOR >= 18
constexpr auto AS_C23 = clang::ParsedAttr::AS_C23;
#else
constexpr auto AS_C23 = clang::ParsedAttr::AS_C2x;
#endif

/* An implicit __attribute__((annotate(TEXT))) covering RANGE. */
inline clang::AnnotateAttr *make_annotation(clang::ASTContext &Ctx, llvm::StringRef text,
					    clang::SourceRange range)
{
#if LLVM_VERSION_MAJOR >= 15
	return clang::AnnotateAttr::CreateImplicit(Ctx, text, nullptr, 0, range);
#else
	return clang::AnnotateAttr::CreateImplicit(Ctx, text, nullptr, 0,
						   clang::AttributeCommonInfo(range));
#endif
}

/* An implicit __attribute__((aligned(BYTES))) at LOC. */
inline clang::AlignedAttr *make_aligned(clang::ASTContext &Ctx, unsigned bytes,
					clang::SourceLocation loc)
{
	auto *E = clang::IntegerLiteral::Create(Ctx, llvm::APInt(32, bytes), Ctx.IntTy, loc);
#if LLVM_VERSION_MAJOR >= 15
	return clang::AlignedAttr::CreateImplicit(Ctx, true, E, clang::SourceRange(loc),
						  clang::AlignedAttr::GNU_aligned);
#else
	return clang::AlignedAttr::CreateImplicit(Ctx, true, E, clang::SourceRange(loc),
						  clang::AttributeCommonInfo::AS_GNU,
						  clang::AlignedAttr::GNU_aligned);
#endif
}

/* A compound statement { STMTS } between LB and RB. */
inline clang::CompoundStmt *make_compound(clang::ASTContext &Ctx,
					  llvm::ArrayRef<clang::Stmt *> stmts,
					  clang::SourceLocation lb, clang::SourceLocation rb)
{
#if LLVM_VERSION_MAJOR >= 15
	return clang::CompoundStmt::Create(Ctx, stmts, clang::FPOptionsOverride(), lb, rb);
#else
	return clang::CompoundStmt::Create(Ctx, stmts, lb, rb);
#endif
}

/* Is TL the kernel's __user, btf_type_tag("user")? */
inline bool has_user_btf_tag(clang::TypeLoc TL)
{
#if LLVM_VERSION_MAJOR >= 15
	if (auto BTL = TL.getAs<clang::BTFTagAttributedTypeLoc>())
		if (const clang::BTFTypeTagAttr *A = BTL.getAttr())
			return A->getBTFTypeTag() == "user";
#else
	if (auto ATL = TL.getAs<clang::AttributedTypeLoc>())
		if (const auto *A = ATL.getAttrAs<clang::BTFTypeTagAttr>())
			return A->getBTFTypeTag() == "user";
#endif
	return false;
}

/* The width of bit-field F. */
inline unsigned bit_width(const clang::FieldDecl *F, const clang::ASTContext &Ctx)
{
#if LLVM_VERSION_MAJOR >= 20
	(void)Ctx;
	return F->getBitWidthValue();
#else
	return F->getBitWidthValue(Ctx);
#endif
}

/* The type `struct/union TAG` of RD, for diagnostics. */
inline clang::QualType record_type(const clang::ASTContext &Ctx, const clang::RecordDecl *RD)
{
#if LLVM_VERSION_MAJOR >= 22
	return Ctx.getCanonicalTagType(RD);
#else
	return Ctx.getRecordType(RD);
#endif
}

/* Does Clang know randomize_layout/no_randomize_layout itself? */
constexpr bool has_native_randstruct = LLVM_VERSION_MAJOR >= 15;

/* Number of randomize_layout (NO: no_randomize_layout) attributes Clang
 * itself put on RD's redeclarations (inherited copies not counted). */
inline unsigned native_attrs(const clang::RecordDecl *RD, bool no)
{
	unsigned n = 0;
#if LLVM_VERSION_MAJOR >= 15
	for (const clang::TagDecl *R : RD->redecls())
		for (const clang::Attr *A : R->attrs())
			if (!A->isInherited() &&
			    (no ? clang::isa<clang::NoRandomizeLayoutAttr>(A)
				: clang::isa<clang::RandomizeLayoutAttr>(A)))
				n++;
#else
	(void)RD, (void)no;
#endif
	return n;
}

/* Clang's own randstruct seed: nullptr where it does not exist. */
inline std::string *native_seed(clang::LangOptions &LO)
{
#if LLVM_VERSION_MAJOR >= 15
	return &LO.RandstructSeed;
#else
	(void)LO;
	return nullptr;
#endif
}

} // namespace passport_compat
#endif /* PASSPORT_COMPAT_CLANG */
#endif /* __cplusplus */

#endif /* PASSPORT_COMPAT_H */
