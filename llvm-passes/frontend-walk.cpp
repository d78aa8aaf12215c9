// SPDX-License-Identifier: GPL-2.0
/*
 * frontend-walk.cpp - the one walk of the frontend halves (contract in
 * frontend-walk.h): a consumer that runs before CodeGen's
 * (AddBeforeMainAction), walks what frontend-reach.h says is emitted, and
 * calls every registered half's hooks at each variable, compound statement
 * and initialiser list.  No option: it runs whenever the plugin is loaded,
 * and does nothing when no half registered hooks.
 */
/* RecursiveASTVisitor instantiations trip GCC's -Wnonnull inside clang headers. */
#pragma GCC diagnostic ignored "-Wnonnull"

#include <algorithm>
#include <vector>

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "frontend-reach.h"
#include "frontend-walk.h"

using namespace clang;

namespace passport_walk {

/* One compiler process is one translation unit. */
static std::vector<Hooks *> &registry()
{
	static std::vector<Hooks *> hooks;
	return hooks;
}

void add(Hooks *h)
{
	registry().push_back(h);
}

void remove(Hooks *h)
{
	auto &r = registry();
	r.erase(std::remove(r.begin(), r.end(), h), r.end());
}

} // namespace passport_walk

namespace {

using passport_walk::Hooks;
using passport_walk::registry;

class Walker : public RecursiveASTVisitor<Walker> {
	passport_reach::Reach &reach;
	const std::vector<Hooks *> &hooks;

public:
	Walker(passport_reach::Reach &reach, const std::vector<Hooks *> &hooks)
		: reach(reach), hooks(hooks) {}

	bool shouldVisitImplicitCode() const { return true; }

	/* What the walked code reaches: calls and addresses of functions
	 * (cleanup functions: reach.var). */
	bool VisitDeclRefExpr(DeclRefExpr *E)
	{
		reach.refer(E->getDecl());
		return true;
	}

	bool VisitVarDecl(VarDecl *VD)
	{
		reach.var(VD);
		for (Hooks *h : hooks)
			h->var(VD);
		return true;
	}

	bool VisitCompoundStmt(CompoundStmt *CS)
	{
		for (Hooks *h : hooks)
			h->compound(CS);
		return true;
	}

	bool VisitInitListExpr(InitListExpr *IL)
	{
		for (Hooks *h : hooks)
			h->init_list(IL);
		return true;
	}

	/* The semantic form only: it holds every initialiser value; the list
	 * as written is one pointer away (getSyntacticForm).  Walking both, as
	 * RecursiveASTVisitor does with implicit code, walked each value
	 * twice. */
	bool TraverseInitListExpr(InitListExpr *S, DataRecursionQueue *Queue = nullptr)
	{
		InitListExpr *sem = S->isSemanticForm() ? S : S->getSemanticForm();

		return TraverseSynOrSemInitListExpr(sem ? sem : S, Queue);
	}
};

class WalkConsumer : public ASTConsumer {
	passport_reach::Reach reach;

	void walk(Decl *D)
	{
		if (!registry().empty())
			Walker(reach, registry()).TraverseDecl(D);
	}

public:
	bool HandleTopLevelDecl(DeclGroupRef DG) override
	{
		reach.top_level(DG, [&](Decl *D) { walk(D); });
		return true;
	}

	void HandleTranslationUnit(ASTContext &) override
	{
		bool needed = false;

		for (Hooks *h : registry())
			needed |= h->needs_reached();
		if (needed)
			reach.finish([&](Decl *D) { walk(D); });
	}
};

class WalkAction : public PluginASTAction {
protected:
	std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &, StringRef) override
	{
		return std::make_unique<WalkConsumer>();
	}

	bool ParseArgs(const CompilerInstance &, const std::vector<std::string> &) override
	{
		return true;
	}

	/* Before CodeGen's consumer: it emits external functions as they
	 * come, with the annotations the hooks add. */
	ActionType getActionType() override { return AddBeforeMainAction; }
};

FrontendPluginRegistry::Add<WalkAction> register_walk(
	"passport-walk", "the frontend halves' one walk over emitted code");

} // namespace
