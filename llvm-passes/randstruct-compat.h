/* SPDX-License-Identifier: GPL-2.0 */
/*
 * randstruct-compat.h - what differs between the Clangs randstruct-frontend.cpp is
 * built for.  Clang >= 15 has its own randstruct: native randomize_layout /
 * no_randomize_layout attributes and -frandomize-layout-seed(-file)
 * (LangOptions::RandstructSeed, used in Sema::ActOnFields).  Clang 14 has
 * neither, so passport registers the attributes itself.
 */
#ifndef PASSPORT_RANDSTRUCT_COMPAT_H
#define PASSPORT_RANDSTRUCT_COMPAT_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/LangOptions.h"
#include "llvm/Config/llvm-config.h"

namespace passport_compat {

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
#endif
	return n;
}

/* Clang's own randstruct seed: "" when it is off (or does not exist). */
inline std::string *native_seed(clang::LangOptions &LO)
{
#if LLVM_VERSION_MAJOR >= 15
	return &LO.RandstructSeed;
#else
	(void)LO;
	return nullptr;
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

} // namespace passport_compat

#endif
