/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frontend-reach.h - which function bodies of a translation unit the
 * frontend halves must walk: those that emit code.
 *
 * randstruct's initialiser check and structleak's marking walk function
 * bodies with a RecursiveASTVisitor.  In a kernel translation unit most
 * bodies are the headers' static inline functions, and most of those are
 * never called: walking them all cost a compile several per cent of its
 * instructions.  Clang emits a function of internal linkage only when
 * emitted code refers to it, at the end of the translation unit (CodeGen
 * defers it until then); external functions and variables it emits as
 * they come.  So does this:
 *
 *   - top_level(DG, walk): a consumer's HandleTopLevelDecl.  External
 *     function definitions, functions that attributes keep without a
 *     reference (used, constructor, destructor) and variables with an
 *     initialiser are walked now; other internal functions wait.
 *   - the walker calls refer(D) for each declaration its code names
 *     (DeclRefExpr: a call or an address) and var(VD) for each variable
 *     (its cleanup function).
 *   - finish(walk): the consumer's HandleTranslationUnit, which runs
 *     before CodeGen's (AddBeforeMainAction).  Every waiting function that
 *     walked code reached, or that an alias names, is walked, until no
 *     walk reaches another.  The rest emit nothing.
 *
 * A reference from a function nothing reaches does not count: a chain of
 * unused static inlines stays unwalked.  Erring the other way is safe: a
 * variable's initialiser is walked even if the variable is never emitted.
 */
#ifndef PASSPORT_FRONTEND_REACH_H
#define PASSPORT_FRONTEND_REACH_H

#include <vector>

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclGroup.h"

namespace passport_reach {

class Reach {
	/* Hash sets, and names compared as the identifiers' own text: a kernel
	 * unit has thousands of waiting functions, and finish() looks each up
	 * once per round (a std::set, and a name built as a std::string per
	 * lookup, cost a compile about 0.5 % of its instructions). */
	std::vector<clang::FunctionDecl *> waiting;
	llvm::DenseSet<const clang::Decl *> reached;	/* canonical declarations */
	llvm::StringSet<> aliased;			/* alias targets, by name */

	static bool kept_without_reference(const clang::FunctionDecl *FD)
	{
		return FD->hasAttr<clang::UsedAttr>() || FD->hasAttr<clang::ConstructorAttr>() ||
		       FD->hasAttr<clang::DestructorAttr>();
	}

	void note_alias(const clang::Decl *D)
	{
		if (const auto *A = D->getAttr<clang::AliasAttr>())
			aliased.insert(A->getAliasee());
	}

public:
	void refer(const clang::Decl *D)
	{
		if (const auto *FD = llvm::dyn_cast_or_null<clang::FunctionDecl>(D))
			reached.insert(FD->getCanonicalDecl());
	}

	void var(const clang::VarDecl *VD)
	{
		if (const auto *A = VD->getAttr<clang::CleanupAttr>())
			refer(A->getFunctionDecl());
	}

	template <class Walk> void top_level(clang::DeclGroupRef DG, Walk walk)
	{
		for (clang::Decl *D : DG) {
			note_alias(D);
			if (auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D)) {
				if (!FD->doesThisDeclarationHaveABody())
					continue;
				if (!FD->isExternallyVisible() && !kept_without_reference(FD))
					waiting.push_back(FD);
				else
					walk(FD);
			} else if (auto *VD = llvm::dyn_cast<clang::VarDecl>(D)) {
				if (VD->hasInit())
					walk(VD);
			}
		}
	}

	template <class Walk> void finish(Walk walk)
	{
		/* An alias reaches its target as a reference does (the set of
		 * aliases is complete by now). */
		if (!aliased.empty())
			for (clang::FunctionDecl *FD : waiting)
				if (const clang::IdentifierInfo *II = FD->getIdentifier())
					if (aliased.count(II->getName()))
						refer(FD);
		for (bool more = true; more;) {
			more = false;
			for (clang::FunctionDecl *&FD : waiting) {
				if (!FD || !reached.count(FD->getCanonicalDecl()))
					continue;
				clang::FunctionDecl *now = FD;
				FD = nullptr;
				walk(now);
				more = true;
			}
		}
		waiting.clear();
	}
};

} // namespace passport_reach

#endif
