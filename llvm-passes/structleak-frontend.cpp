// SPDX-License-Identifier: GPL-2.0
/*
 * structleak-frontend.cpp - the Clang half of structleak (the pass is
 * structleak.c).  Two facts the IR does not have:
 *
 *  1. `__user`.  The kernel spells it `__attribute__((user))` when
 *     STRUCTLEAK_PLUGIN is defined; Clang has no such attribute.  We
 *     register it (always, as GCC does, so a `__user` declaration never
 *     warns, even with -Werror or with the pass disabled) and remember the
 *     fields that carry it.  Clang only calls plugin attributes on
 *     declarations: in a type name (`(void __user *)p`) it warns
 *     -Wignored-attributes.  So the other spelling, the kernel's Clang one,
 *     `__attribute__((btf_type_tag("user")))`, which Clang accepts
 *     everywhere, counts too, anywhere in a field's type.  A struct/union is
 *     "userspace" if a field has either or a field's type (arrays stripped)
 *     is a userspace struct/union; pointers to such structs do not
 *     propagate (GCC's is_userspace_type).
 *
 *  2. Which allocas are C locals, of what kind, with what initialiser.  IR
 *     allocas also hold parameters, the return value and temporaries, and
 *     release builds of clang drop value names.
 *
 * When -passport-structleak is on, every local that the mode can select
 * (struct/union locals in user and byref mode, every local in byref-all)
 * gets an implicit annotate attribute
 *
 *     passport.structleak:KIND:FLAGS:COLUMN:NAME
 *
 * KIND is struct, union, array or scalar; FLAGS has `u` for a userspace
 * type and `i` for an aggregate initialiser (`= {...}`, GCC's CONSTRUCTOR);
 * COLUMN is the name's column (the annotation itself carries file and line),
 * so notes read FILE:LINE:COL like GCC's.
 * CodeGen turns it into llvm.var.annotation(alloca, ...) at the point of the
 * declaration (after llvm.lifetime.start), which is where the pass zeroes;
 * the pass deletes the annotations, so the final IR carries none.  The
 * attribute is added from a consumer that runs before CodeGen
 * (AddBeforeMainAction), one function body at a time, to the bodies that
 * are emitted, in the frontend halves' one walk (frontend-walk.h).
 */
#include <set>
#include <string>

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#define PASSPORT_COMPAT_CLANG
#include "compat.h"
#include "frontend-walk.h"

extern "C" {
#include "passport.h"
}

using namespace clang;

namespace {

/* Fields that carry __attribute__((user)); one compiler process is one TU. */
std::set<const FieldDecl *> &user_fields()
{
	static std::set<const FieldDecl *> s;
	return s;
}

struct UserAttrInfo : public ParsedAttrInfo {
	static constexpr Spelling spellings[] = {
		{ParsedAttr::AS_GNU, "user"},
		{ParsedAttr::AS_GNU, "__user__"},
	};

	UserAttrInfo()
	{
		Spellings = spellings;
		OptArgs = 0;
	}

	/* Accepted anywhere, silently: GCC keeps it on fields and drops it
	 * elsewhere without a word. */
	bool diagAppertainsToDecl(Sema &, const ParsedAttr &, const Decl *) const override
	{
		return true;
	}

	AttrHandling handleDeclAttribute(Sema &, Decl *D, const ParsedAttr &) const override
	{
		if (const auto *F = dyn_cast<FieldDecl>(D))
			user_fields().insert(F);
		return AttributeApplied;
	}
};
constexpr ParsedAttrInfo::Spelling UserAttrInfo::spellings[];

ParsedAttrInfoRegistry::Add<UserAttrInfo> register_user("passport-user",
							"structleak's __user field marker");

enum Mode { MODE_USER, MODE_BYREF, MODE_BYREF_ALL };
const char *const mode_names[] = {"user", "byref", "byref-all", nullptr};

/* `btf_type_tag("user")` anywhere in the field's declared type: the
 * kernel's Clang spelling of __user, accepted silently everywhere, also in
 * casts, where Clang warns about a declaration attribute. */
bool has_user_type_tag(const FieldDecl *F)
{
	const TypeSourceInfo *TSI = F->getTypeSourceInfo();

	if (!TSI)
		return false;
	for (TypeLoc TL = TSI->getTypeLoc(); !TL.isNull(); TL = TL.getNextTypeLoc()) {
		if (passport_compat::has_user_btf_tag(TL))
			return true;
	}
	return false;
}

bool is_userspace(const RecordDecl *RD, std::set<const RecordDecl *> &seen)
{
	RD = RD->getDefinition();
	if (!RD || !seen.insert(RD).second)
		return false;
	for (const FieldDecl *F : RD->fields()) {
		if (user_fields().count(F) || has_user_type_tag(F))
			return true;
		const Type *T = F->getType()->getBaseElementTypeUnsafe();
		if (const auto *RT = T->getAs<RecordType>())
			if (is_userspace(RT->getDecl(), seen))
				return true;
	}
	return false;
}

bool is_aggregate_initialiser(const Expr *E)
{
	if (!E)
		return false;
	E = E->IgnoreParenImpCasts();
	if (const auto *CL = dyn_cast<CompoundLiteralExpr>(E))
		E = CL->getInitializer()->IgnoreParenImpCasts();
	return isa<InitListExpr>(E);
}

/* A declaration that only reserves storage: local, no initialiser, not a VLA. */
bool storage_only(const DeclStmt *DS)
{
	for (const Decl *D : DS->decls()) {
		const auto *VD = dyn_cast<VarDecl>(D);
		if (!VD || !VD->hasLocalStorage() || VD->hasInit() ||
		    VD->getType()->isVariablyModifiedType())
			return false;
	}
	return true;
}

class Marker : public passport_walk::Hooks {
	ASTContext &Ctx;
	Mode mode;

	/*
	 * `switch (x) { T v; case 1: use(&v); }`: the declaration before the
	 * first case never runs, so Clang emits no code for it, and the
	 * annotation the pass zeroes at would not exist (GCC's plugin zeroes
	 * every variable at function entry and covers it).  Hoist such
	 * storage-only declarations in front of the switch, into a new block
	 * {decls; switch}: the same variables and lifetimes, but their
	 * declarations now run.  Only for a switch that is a statement of a
	 * compound statement; declarations with an initialiser stay (running
	 * it would change the program).
	 */
	Stmt *hoist_switch_preamble(SwitchStmt *SS)
	{
		auto *body = dyn_cast_or_null<CompoundStmt>(SS->getBody());
		SmallVector<Stmt *, 4> hoisted;

		if (!body)
			return nullptr;
		for (Stmt *&S : body->body()) {
			if (isa<SwitchCase>(S))
				break;
			auto *DS = dyn_cast<DeclStmt>(S);
			if (!DS || !storage_only(DS))
				continue;
			hoisted.push_back(DS);
			S = new (Ctx) NullStmt(DS->getBeginLoc());
		}
		if (hoisted.empty())
			return nullptr;
		hoisted.push_back(SS);
		return passport_compat::make_compound(Ctx, hoisted, SS->getBeginLoc(),
						      SS->getEndLoc());
	}

public:
	Marker(ASTContext &Ctx, Mode mode) : Ctx(Ctx), mode(mode) {}

	/* Pre-order: the walk visits the hoisted declarations next. */
	void compound(CompoundStmt *CS) override
	{
		for (Stmt *&S : CS->body())
			if (auto *SS = dyn_cast_or_null<SwitchStmt>(S))
				if (Stmt *block = hoist_switch_preamble(SS))
					S = block;
	}

	void var(VarDecl *VD) override
	{
		if (!VD->isLocalVarDecl() || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD))
			return;
		QualType T = VD->getType().getCanonicalType();
		if (T->isVariableArrayType() || T->isDependentType() || T->isReferenceType())
			return;

		const char *kind;
		bool user = false;
		if (const auto *RT = T->getAs<RecordType>()) {
			std::set<const RecordDecl *> seen;
			kind = RT->getDecl()->isUnion() ? "union" : "struct";
			user = is_userspace(RT->getDecl(), seen);
		} else if (T->isArrayType()) {
			kind = "array";
		} else {
			kind = "scalar";
		}
		if (mode == MODE_USER && !user)
			return;
		if (mode == MODE_BYREF && !T->getAs<RecordType>())
			return;

		std::string s = std::string("passport.structleak:") + kind + ":";
		if (user)
			s += "u";
		if (is_aggregate_initialiser(VD->getInit()))
			s += "i";
		s += ":" + std::to_string(Ctx.getSourceManager().getPresumedColumnNumber(VD->getLocation()));
		s += ":" + VD->getNameAsString();
		VD->addAttr(passport_compat::make_annotation(Ctx, s, SourceRange(VD->getLocation())));
	}
};

/* Marks the locals of the code that is emitted, in the frontend halves'
 * one walk (frontend-walk.h): a static function nothing emitted reaches
 * gets no code, so its locals need no annotation.  Walking every header
 * inline instead cost a kernel compile about 1.5 % of its instructions. */
class Consumer : public ASTConsumer {
	Marker marker;

public:
	Consumer(CompilerInstance &CI, Mode mode) : marker(CI.getASTContext(), mode)
	{
		passport_walk::add(&marker);
	}
	~Consumer() override { passport_walk::remove(&marker); }
};

class StructleakAction : public PluginASTAction {
protected:
	std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override
	{
		struct passport_pass *p = passport_pass_named("structleak");

		if (!p || !p->enabled || p->disabled)
			return std::make_unique<ASTConsumer>();
		/* An unknown mode stops the compiler here with the list of modes. */
		Mode mode = (Mode)passport_option_choice(p, "mode", mode_names, MODE_USER);
		return std::make_unique<Consumer>(CI, mode);
	}

	bool ParseArgs(const CompilerInstance &, const std::vector<std::string> &) override
	{
		return true;
	}

	ActionType getActionType() override { return AddBeforeMainAction; }
};

FrontendPluginRegistry::Add<StructleakAction> register_action(
	"passport-structleak", "mark locals for structleak (__user fields, kinds, initialisers)");

} // namespace
