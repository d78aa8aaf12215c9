/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frontend-walk.h - one walk over the code a translation unit emits, shared
 * by the frontend halves that look inside function bodies and initialisers
 * (randstruct's initialiser checks, structleak's marking).
 *
 * Each half was a RecursiveASTVisitor of its own over the same code, and
 * the walk, not what the halves do at each node, was the cost: on
 * arch/x86/events/intel/core.c (x86_64_defconfig, clang-19) randstruct's
 * walk was 2.8 % of the compile's instructions with randstruct off (it
 * still checks designated_init), structleak's another 1.1 %, most of both
 * in the constant tables of global initialisers, and randstruct walked
 * every initialiser list twice (as written and as Clang completed it).
 * frontend-walk.cpp walks once (frontend-reach.h decides what), visits
 * each initialiser list in its semantic form only, and calls the hooks of
 * every half registered when its consumer was made.
 *
 * Hooks, in the walk's order (pre-order: a node before its children):
 *   var(VD)        each variable declaration, global or local
 *   compound(CS)   each compound statement, before its statements are
 *                  walked (a hook may replace statements in it)
 *   init_list(IL)  each initialiser list, in the semantic form
 *                  (getSyntacticForm() has the list as written, or is null
 *                  when Clang made the list up: brace elision, a.b
 *                  designators, or a list that needed no completion)
 *   needs_reached()  at the end of the translation unit: whether the
 *                  functions of internal linkage that emitted code reaches
 *                  must be walked too (a hook with nothing left to do
 *                  there says no; the walk happens if any says yes)
 */
#ifndef PASSPORT_FRONTEND_WALK_H
#define PASSPORT_FRONTEND_WALK_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

namespace passport_walk {

class Hooks {
public:
	virtual ~Hooks() = default;
	virtual void var(clang::VarDecl *) {}
	virtual void compound(clang::CompoundStmt *) {}
	virtual void init_list(clang::InitListExpr *) {}
	virtual bool needs_reached() { return true; }
};

/* A half registers its hooks for the translation unit when its consumer
 * is made (CreateASTConsumer, before parsing) and removes them with it. */
void add(Hooks *h);
void remove(Hooks *h);

} // namespace passport_walk

#endif
