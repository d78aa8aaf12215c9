// SPDX-License-Identifier: GPL-2.0
/*
 * latent_entropy-frontend.cpp - the Clang half of latent_entropy (the pass
 * is latent_entropy.c).
 *
 * Registers __attribute__((latent_entropy)) (also [[gnu::latent_entropy]]),
 * always, so __latent_entropy never warns, even under -Werror or with the
 * pass off.  Like GCC's attribute handler it
 *
 *  - on a function: when -passport-latent-entropy is on (and not
 *    -disable'd), adds an implicit annotate("passport.latent_entropy"),
 *    which Clang inherits to the definition and CodeGen puts into
 *    llvm.global.annotations for the pass;
 *  - on a variable: rejects what GCC rejects, with GCC's messages (local or
 *    extern, initialised, not an integer / fixed-length integer array /
 *    struct of integer fields), and, when the pass is on (GCC: even with
 *    `disable`), gives it a random initialiser: one draw per scalar, array
 *    element or field (bit-fields masked to their width; an unnamed
 *    bit-field, even `int : 0`, consumes its draw, as in GCC, but its bits
 *    stay zero where GCC stores the draw's low bits).
 *
 * The initialiser is set on the AST from a consumer that runs before CodeGen
 * (AddBeforeMainAction), as soon as the declaration is complete (so `= x`
 * can be diagnosed) and before CodeGen or the optimiser can see the old
 * zero: reads of a `static const` variable fold to the random value.
 * Variables are handled in the order they were parsed, which is GCC's order
 * of draws.
 */
#include <vector>

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#define PASSPORT_COMPAT_CLANG
#include "compat.h"

extern "C" {
#include "latent_entropy.h"
}

using namespace clang;

namespace {

const char *const ATTR = "'latent_entropy'";

/* Is the pass on for this compilation (the frontend's view)? */
bool pass_enabled(bool for_functions)
{
	struct passport_pass *p = passport_pass_named("latent-entropy");

	/* GCC still initialises variables when the plugin is disabled. */
	return p && p->enabled && (!for_functions || !p->disabled);
}

/* A Clang error at LOC (GCC's messages, so the two builds read alike). */
void report(DiagnosticsEngine &D, SourceLocation loc, const std::string &msg)
{
	D.Report(loc, D.getCustomDiagID(DiagnosticsEngine::Error, "%0")) << msg;
}

std::string quoted(const NamedDecl *ND)
{
	return "'" + ND->getNameAsString() + "'";
}

/* GCC's INTEGER_TYPE: integers, but not enums or _Bool. */
bool is_gcc_integer(QualType T)
{
	T = T.getCanonicalType();
	return T->isIntegerType() && !T->isEnumeralType() && !T->isBooleanType();
}

/* The type check of GCC's handler: an empty string if VD's type is fine. */
std::string type_error(ASTContext &Ctx, const VarDecl *VD)
{
	QualType T = VD->getType().getCanonicalType();

	if (is_gcc_integer(T))
		return "";
	if (T->isArrayType()) {
		const auto *CAT = Ctx.getAsConstantArrayType(T);
		if (!CAT || !is_gcc_integer(CAT->getElementType()))
			return "array variable " + quoted(VD) + " with " + ATTR +
			       " attribute must be a fixed length integer array type";
		return "";
	}
	if (const auto *RT = T->getAs<RecordType>()) {
		const RecordDecl *RD = RT->getDecl()->getDefinition();
		if (RD && RD->isStruct()) {
			for (const FieldDecl *F : RD->fields())
				if (!is_gcc_integer(F->getType()))
					return "structure variable " + quoted(VD) + " with " + ATTR +
					       " attribute has a non-integer field " +
					       (F->getIdentifier() ? quoted(F) : std::string("<anonymous>"));
			return "";
		}
	}
	return "variable " + quoted(VD) + " with " + ATTR +
	       " attribute must be an integer or a fixed length integer array type or a "
	       "fixed sized structure with integer fields";
}

/* Variables that carry the attribute, in parse order, not yet initialised. */
struct Pending {
	VarDecl *VD;
	SourceLocation loc;
};

std::vector<Pending> &pending()
{
	static std::vector<Pending> v;
	return v;
}

struct LatentEntropyAttrInfo : public ParsedAttrInfo {
	static constexpr Spelling spellings[] = {
		{ParsedAttr::AS_GNU, "latent_entropy"},
		{ParsedAttr::AS_CXX11, "gnu::latent_entropy"},
		{passport_compat::AS_C23, "gnu::latent_entropy"},
	};

	LatentEntropyAttrInfo()
	{
		Spellings = spellings;
		NumArgs = 0;
		OptArgs = 0;
	}

	bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr, const Decl *D) const override
	{
		if (isa<FunctionDecl>(D) || (isa<VarDecl>(D) && !isa<ParmVarDecl>(D)))
			return true;
		if (isa<TagDecl>(D)) {	/* GCC only warns here (-Wattributes) */
			DiagnosticsEngine &Diags = S.getDiagnostics();
			Diags.Report(Attr.getLoc(),
				     Diags.getCustomDiagID(DiagnosticsEngine::Warning, "%0"))
				<< std::string(ATTR) + " attribute does not apply to types";
			return false;
		}
		report(S.getDiagnostics(), Attr.getLoc(),
		       std::string(ATTR) + " attribute only applies to functions and variables");
		return false;
	}

	AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &Attr) const override
	{
		if (auto *FD = dyn_cast<FunctionDecl>(D)) {
			if (pass_enabled(true))
				FD->addAttr(passport_compat::make_annotation(
					S.Context, PASSPORT_LATENT_ENTROPY_ANNOTATION, Attr.getRange()));
			return AttributeApplied;
		}
		auto *VD = dyn_cast<VarDecl>(D);
		if (!VD)
			return AttributeNotApplied;
		/* GCC: !TREE_STATIC, which is true for automatic and extern variables. */
		if (VD->hasLocalStorage() || VD->hasExternalStorage()) {
			report(S.getDiagnostics(), Attr.getLoc(),
			       "variable " + quoted(VD) + " with " + ATTR + " attribute must not be local");
			return AttributeNotApplied;
		}
		std::string err = type_error(S.Context, VD);
		if (!err.empty()) {
			report(S.getDiagnostics(), Attr.getLoc(), err);
			return AttributeNotApplied;
		}
		pending().push_back({VD, Attr.getLoc()});
		return AttributeApplied;
	}
};
constexpr ParsedAttrInfo::Spelling LatentEntropyAttrInfo::spellings[];

ParsedAttrInfoRegistry::Add<LatentEntropyAttrInfo> register_attr(
	"passport-latent-entropy", "__attribute__((latent_entropy)) for functions and variables");

/* One random constant of integer type T (bit-field: WIDTH bits), as GCC's
 * tree_get_random_const builds it. */
Expr *random_literal(ASTContext &Ctx, QualType T, unsigned width, SourceLocation loc)
{
	T = T.getUnqualifiedType();
	unsigned bits = Ctx.getIntWidth(T);
	uint64_t v = passport_latent_entropy_draw();

	if (width < 64)
		v &= (UINT64_C(1) << width) - 1;
	llvm::APInt ap(64, v);
	/* Wider than 64 bits: GCC extends the 64-bit draw by the type's sign. */
	ap = T->isSignedIntegerType() ? ap.sextOrTrunc(bits) : ap.zextOrTrunc(bits);
	return IntegerLiteral::Create(Ctx, ap, T, loc);
}

Expr *list(ASTContext &Ctx, QualType T, std::vector<Expr *> &inits, SourceLocation loc)
{
	auto *ILE = new (Ctx) InitListExpr(Ctx, loc, inits, loc);
	ILE->setType(T);
	return ILE;
}

Expr *random_initialiser(ASTContext &Ctx, const VarDecl *VD, SourceLocation loc)
{
	QualType T = VD->getType();
	QualType C = T.getCanonicalType();
	std::vector<Expr *> inits;

	if (is_gcc_integer(C))
		return random_literal(Ctx, T, Ctx.getTypeSize(C), loc);
	if (const auto *CAT = Ctx.getAsConstantArrayType(C)) {
		QualType E = CAT->getElementType();
		uint64_t n = CAT->getSize().getZExtValue();
		for (uint64_t i = 0; i < n; i++)
			inits.push_back(random_literal(Ctx, E, Ctx.getTypeSize(E), loc));
		return list(Ctx, T, inits, loc);
	}
	const RecordDecl *RD = C->getAs<RecordType>()->getDecl()->getDefinition();
	for (const FieldDecl *F : RD->fields()) {
		unsigned width = F->isBitField() ? passport_compat::bit_width(F, Ctx)
						 : Ctx.getTypeSize(F->getType());
		/* Unnamed bit-fields (also `int : 0`) take no initialiser in
		 * Clang, but GCC draws for them: so do we. */
		Expr *lit = random_literal(Ctx, F->getType(), width, loc);
		if (!(F->isBitField() && !F->getIdentifier()))
			inits.push_back(lit);
	}
	return list(Ctx, T, inits, loc);
}

class Consumer : public ASTConsumer {
	CompilerInstance &CI;

	void initialise_pending()
	{
		ASTContext &Ctx = CI.getASTContext();
		DiagnosticsEngine &D = CI.getDiagnostics();
		std::vector<Pending> todo;

		todo.swap(pending());
		for (const Pending &p : todo) {
			VarDecl *VD = p.VD;

			if (VD->isInvalidDecl())
				continue;
			if (VD->getAnyInitializer()) {
				report(D, p.loc, "variable " + quoted(VD) + " with " + ATTR +
						 " attribute must not be initialized");
				continue;
			}
			if (!pass_enabled(false) || D.hasErrorOccurred())
				continue;
			VD->setInit(random_initialiser(Ctx, VD, p.loc));
		}
	}

public:
	explicit Consumer(CompilerInstance &CI) : CI(CI) {}

	/* A top-level declaration is complete: so is every variable parsed
	 * before or inside it (static locals). */
	bool HandleTopLevelDecl(DeclGroupRef) override
	{
		if (!pending().empty())
			initialise_pending();
		return true;
	}

	void HandleTranslationUnit(ASTContext &) override
	{
		if (!pending().empty())
			initialise_pending();
	}
};

class LatentEntropyAction : public PluginASTAction {
protected:
	std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override
	{
		return std::make_unique<Consumer>(CI);
	}

	bool ParseArgs(const CompilerInstance &, const std::vector<std::string> &) override
	{
		return true;
	}

	ActionType getActionType() override { return AddBeforeMainAction; }
};

FrontendPluginRegistry::Add<LatentEntropyAction> register_action(
	"passport-latent-entropy", "check and initialise __latent_entropy variables");

} // namespace
