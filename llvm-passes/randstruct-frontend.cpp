// SPDX-License-Identifier: GPL-2.0
/*
 * randstruct-frontend.cpp - randstruct's frontend half: a Clang plugin (loaded by
 * -fplugin=, runs before the main action) that reorders a struct's fields
 * when its definition completes, before Clang computes any layout, so
 * offsetof, sizeof, bitfields, initialisers and DWARF all see the new order.
 * C++ because Clang's AST has no C API; the algorithm is in randstruct.c.
 *
 * Selection is the GCC plugin's: structs marked
 * randomize_layout and structs made only of function pointers (nested
 * pure-ops structs/unions allowed), never unions, never with
 * no_randomize_layout, never with fewer than two fields.
 *
 * Also here: the attributes Clang lacks (randomize_layout and
 * no_randomize_layout before Clang 15, designated_init always) with GCC's
 * errors, and the initialiser checks (positional initialisers of a
 * randomized struct are errors; GCC's flexible-array string rule).
 */
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/RecordLayout.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/DenseSet.h"

#define PASSPORT_COMPAT_CLANG
#include "compat.h"
#include "frontend-walk.h"

extern "C" {
#include "passport.h"
#include "randstruct.h"
}

using namespace clang;

namespace {

/* ---- attributes ---------------------------------------------------------- */

/* Canonical RecordDecls carrying each of passport's own attributes. */
std::set<const Decl *> &marked(int which)
{
	static std::set<const Decl *> sets[3];
	return sets[which];
}

enum { RANDOMIZE, NO_RANDOMIZE, DESIGNATED_INIT };

template <int Which> struct AttrInfo : public ParsedAttrInfo {
	static constexpr const char *names[3] = {"randomize_layout", "no_randomize_layout",
						 "designated_init"};
	Spelling spelling[1] = {{AttributeCommonInfo::AS_GNU, names[Which]}};

	AttrInfo()
	{
		OptArgs = 0;
		NumArgs = 0;
		Spellings = spelling;
	}

	/* GCC's handler decides (with its own messages): accept everywhere here. */
	bool diagAppertainsToDecl(Sema &, const ParsedAttr &, const Decl *) const override
	{
		return true;
	}

	AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &A) const override
	{
		DiagnosticsEngine &DE = S.getDiagnostics();
		const char *name = names[Which];

		if (Which == DESIGNATED_INIT) {
			/* GCC: c-attribs.cc handle_designated_init_attribute */
			auto *RD = dyn_cast<RecordDecl>(D);
			if (!RD || !RD->isStruct()) {
				DE.Report(A.getLoc(), DE.getCustomDiagID(
					DiagnosticsEngine::Error,
					"'designated_init' attribute is only valid on 'struct' type"));
				return AttributeNotApplied;
			}
			marked(DESIGNATED_INIT).insert(RD->getCanonicalDecl());
			return AttributeApplied;
		}
		/* GCC: randomize_layout_plugin.c handle_randomize_layout_attr */
		/* ParmVarDecl before VarDecl: a parameter is both. */
		const char *what = isa<FunctionDecl>(D) ? "functions" :
				   isa<ParmVarDecl>(D) ? "function parameters" :
				   isa<VarDecl>(D) ? "variables" : nullptr;
		if (what) {
			DE.Report(A.getLoc(), DE.getCustomDiagID(
				DiagnosticsEngine::Error,
				"'%0' attribute does not apply to %1 (%2)"))
				<< name << what << cast<NamedDecl>(D);
			return AttributeNotApplied;
		}
		if (isa<FieldDecl>(D))
			return AttributeApplied; /* GCC: accepted, no effect */
		QualType T;
		if (auto *TD = dyn_cast<TypeDecl>(D))
			T = S.Context.getTypeDeclType(TD);
		else if (auto *TND = dyn_cast<TypedefNameDecl>(D))
			T = TND->getUnderlyingType();
		auto *RD = dyn_cast<RecordDecl>(D);
		if (!RD || !RD->isStruct()) {
			DE.Report(A.getLoc(), DE.getCustomDiagID(
				DiagnosticsEngine::Error,
				"'%0' attribute used on %1 applies to struct types only"))
				<< name << T;
			return AttributeNotApplied;
		}
		if (!marked(Which).insert(RD->getCanonicalDecl()).second) {
			DE.Report(A.getLoc(), DE.getCustomDiagID(
				DiagnosticsEngine::Error,
				"'%0' attribute is already applied to the type %1"))
				<< name << T;
			return AttributeNotApplied;
		}
		return AttributeApplied;
	}
};

/* A Clang without randstruct of its own gets passport's attributes (the
 * registry keeps the nodes: they live as long as the plugin). */
static bool register_layout_attrs()
{
	if (passport_compat::has_native_randstruct)
		return false;
	new ParsedAttrInfoRegistry::Add<AttrInfo<RANDOMIZE>>(
		"randomize_layout", "GCC randstruct: randomize this struct's layout");
	new ParsedAttrInfoRegistry::Add<AttrInfo<NO_RANDOMIZE>>(
		"no_randomize_layout", "GCC randstruct: never randomize this struct");
	return true;
}
/* Read by no one: the call, at load time, is the point (as a plain constant
 * initialiser, Clang >= 15 warned that the variable is unused, in the kernel
 * build of the plugin). */
[[maybe_unused]] static const bool layout_attrs_registered = register_layout_attrs();
ParsedAttrInfoRegistry::Add<AttrInfo<DESIGNATED_INIT>>
	reg_designated("designated_init", "GCC: positional initialisers of this struct warn");

/*
 * Clang >= 15 parses randomize_layout itself and only warns (and drops it)
 * on a function, variable or parameter, where GCC's plugin gives an error.
 * This consumer sits in front of Clang's: it swallows that warning for the
 * two randstruct attributes and remembers where, so the randstruct consumer
 * can report GCC's error at the end of the translation unit.
 */
class AttrDiagFilter : public DiagnosticConsumer {
	DiagnosticConsumer *inner;
	std::unique_ptr<DiagnosticConsumer> owned;

public:
	std::vector<std::pair<SourceLocation, std::string>> misplaced;

	/* Clang's exit status is the error count of the engine's client at the
	 * end (ExecuteAction), so the filter starts from the counts the client
	 * it replaces has already: errors reported before the plugin's
	 * consumer exists, such as an unknown -W option under -Werror, must
	 * still fail the compile. */
	AttrDiagFilter(DiagnosticConsumer *inner, std::unique_ptr<DiagnosticConsumer> owned)
		: inner(inner), owned(std::move(owned))
	{
		NumErrors = inner->getNumErrors();
		NumWarnings = inner->getNumWarnings();
	}

	void BeginSourceFile(const LangOptions &LO, const Preprocessor *PP) override
	{
		inner->BeginSourceFile(LO, PP);
	}
	void EndSourceFile() override { inner->EndSourceFile(); }
	void finish() override { inner->finish(); }
	void clear() override { inner->clear(); DiagnosticConsumer::clear(); }
	bool IncludeInDiagnosticCounts() const override
	{
		return inner->IncludeInDiagnosticCounts();
	}

	void HandleDiagnostic(DiagnosticsEngine::Level L, const Diagnostic &Info) override
	{
		if (L == DiagnosticsEngine::Warning) {
			SmallString<128> msg;
			Info.FormatDiagnostic(msg);
			for (const char *name : {"'randomize_layout'", "'no_randomize_layout'"}) {
				std::string prefix = std::string(name) + " attribute only applies to";
				if (StringRef(msg).substr(0, prefix.size()) == prefix) {
					misplaced.push_back({Info.getLocation(), name});
					return;
				}
			}
		}
		DiagnosticConsumer::HandleDiagnostic(L, Info);
		inner->HandleDiagnostic(L, Info);
	}
};

/* ---- the consumer ------------------------------------------------------------ */

class RandstructConsumer;
std::unique_ptr<passport_walk::Hooks> init_checker(RandstructConsumer &C, DiagnosticsEngine &DE);

class RandstructConsumer : public ASTConsumer {
	passport_pass *P;
	bool active;		/* passport reorders (not off, not disabled) */
	bool performance = false;
	uint64_t seed[4] = {};
	ASTContext *Ctx = nullptr;
	std::set<const Decl *> randomized, flexible; /* canonical decls */
	AttrDiagFilter *filter = nullptr;

public:
	RandstructConsumer(CompilerInstance &CI, passport_pass *P) : P(P)
	{
		static const char *const modes[] = {"full", "performance", nullptr};

		if (passport_compat::has_native_randstruct) {
			DiagnosticsEngine &DE = CI.getDiagnostics();
			DiagnosticConsumer *inner = DE.getClient();
			std::unique_ptr<DiagnosticConsumer> owned;
			if (DE.ownsClient())
				owned = DE.takeClient();
			filter = new AttrDiagFilter(inner, std::move(owned));
			DE.setClient(filter, true);
		}
		/* designated_init is checked whether or not passport reorders */
		checker = init_checker(*this, CI.getDiagnostics());
		passport_walk::add(checker.get());

		active = P->enabled && !P->disabled;
		std::string *native = passport_compat::native_seed(CI.getLangOpts());
		if (!active) {
			if (native && !native->empty())
				passport_note(P, "clang's built-in randstruct is active "
					      "(-frandomize-layout-seed); passport's is off");
			else if (P->enabled)
				passport_note(P, "disabled for this file");
			return;
		}
		performance = passport_option_choice(P, "mode", modes, 0) == 1;
		passport_randstruct_read_seed(P, passport_option(P, "seed-file")->value, seed);
		if (native && !native->empty()) {
			/* Both asked for: passport's (GCC-compatible) layout wins;
			 * Clang's Sema would reorder first, in ActOnFields. */
			native->clear();
			passport_note(P, "passport's randstruct is active (%s mode); clang's "
				      "-frandomize-layout-seed is overridden",
				      performance ? "performance" : "full");
		} else {
			passport_note(P, "passport's randstruct is active (%s mode)",
				      performance ? "performance" : "full");
		}
	}

	void Initialize(ASTContext &C) override { Ctx = &C; }

	/* the initialiser checks, hooks of the frontend halves' one walk */
	std::unique_ptr<passport_walk::Hooks> checker;

	bool is_randomized(const RecordDecl *RD) const
	{
		return randomized.count(RD->getCanonicalDecl());
	}
	bool is_designated(const RecordDecl *RD) const
	{
		return is_randomized(RD) || marked(DESIGNATED_INIT).count(RD->getCanonicalDecl());
	}
	bool has_flexible_tail(const RecordDecl *RD) const
	{
		return flexible.count(RD->getCanonicalDecl());
	}
	/* whether any initialiser can need a check */
	bool has_checked_types() const
	{
		return !randomized.empty() || !marked(DESIGNATED_INIT).empty();
	}

	void HandleTagDeclDefinition(TagDecl *TD) override;

	~RandstructConsumer() override
	{
		if (checker)
			passport_walk::remove(checker.get());
	}

	void HandleTranslationUnit(ASTContext &) override
	{
		if (!filter)
			return;
		DiagnosticsEngine &DE = Ctx->getDiagnostics();
		for (auto &m : filter->misplaced)
			DE.Report(m.first, DE.getCustomDiagID(
				DiagnosticsEngine::Error,
				"%0 attribute does not apply to functions, variables or "
				"parameters: it applies to struct types only"))
				<< m.second;
		filter->misplaced.clear();
	}

private:
	bool has_attr(const RecordDecl *RD, int which) const
	{
		return marked(which).count(RD->getCanonicalDecl()) ||
		       passport_compat::native_attrs(RD, which == NO_RANDOMIZE);
	}
	void check_native_attrs(RecordDecl *RD);
	bool is_pure_ops(const RecordDecl *RD) const;
	bool is_flexible_array(const FieldDecl *F) const;
	uint64_t gcc_size(const FieldDecl *F) const;
	void relayout(RecordDecl *RD, const char *why);
	void emulate_gcc_relayout(RecordDecl *RD, const std::vector<FieldDecl *> &declared);
};

/* Clang >= 15 parses the attributes itself (on unions too, twice too):
 * give GCC's errors for what GCC rejects. */
void RandstructConsumer::check_native_attrs(RecordDecl *RD)
{
	DiagnosticsEngine &DE = Ctx->getDiagnostics();

	for (int no = 0; no < 2; no++) {
		const char *name = no ? "no_randomize_layout" : "randomize_layout";
		unsigned n = passport_compat::native_attrs(RD, no);

		if (!n)
			continue;
		if (!RD->isStruct())
			DE.Report(RD->getLocation(), DE.getCustomDiagID(
				DiagnosticsEngine::Error,
				"'%0' attribute used on %1 applies to struct types only"))
				<< name << passport_compat::record_type(*Ctx, RD);
		else if (n > 1)
			DE.Report(RD->getLocation(), DE.getCustomDiagID(
				DiagnosticsEngine::Error,
				"'%0' attribute is already applied to the type %1"))
				<< name << passport_compat::record_type(*Ctx, RD);
	}
}

/* GCC is_pure_ops_struct: every field, arrays stripped, is a function
 * pointer or a struct/union that is itself pure-ops. */
bool RandstructConsumer::is_pure_ops(const RecordDecl *RD) const
{
	for (const FieldDecl *F : RD->fields()) {
		QualType T = Ctx->getBaseElementType(F->getType()).getCanonicalType();

		if (const auto *RT = T->getAs<RecordType>()) {
			const RecordDecl *Sub = RT->getDecl()->getDefinition();
			if (Sub == RD)
				continue;
			if (!Sub || !is_pure_ops(Sub))
				return false;
			continue;
		}
		const auto *PT = T->getAs<PointerType>();
		if (!PT || !PT->getPointeeType()->isFunctionType())
			return false;
	}
	return true;
}

/* GCC is_flexible_array: [] , or a constant size of 0 or of one element. */
bool RandstructConsumer::is_flexible_array(const FieldDecl *F) const
{
	QualType T = F->getType();
	const ArrayType *AT = Ctx->getAsArrayType(T);

	if (!AT)
		return false;
	if (isa<IncompleteArrayType>(AT))
		return true;
	if (!isa<ConstantArrayType>(AT))
		return false;
	uint64_t bits = Ctx->getTypeSize(T);
	return bits == 0 || bits == Ctx->getTypeSize(AT->getElementType());
}

/*
 * int_size_in_bytes(TREE_TYPE(field)) as GCC's C front end leaves it when
 * the plugin runs: a bitfield whose width differs from its declared type's
 * precision has been given an integer type of that width (so: the bytes of
 * the smallest integer mode that holds it); anything else has its own type.
 */
uint64_t RandstructConsumer::gcc_size(const FieldDecl *F) const
{
	QualType T = F->getType();

	if (T->isIncompleteType())
		return UINT64_MAX; /* -1 as unsigned long */
	if (F->isBitField()) {
		uint64_t width = passport_compat::bit_width(F, *Ctx);
		uint64_t precision = T->isBooleanType() ? 1 : Ctx->getTypeSize(T);

		if (width != precision) {
			uint64_t bytes = 1;
			while (bytes * 8 < width)
				bytes *= 2;
			return bytes;
		}
	}
	return Ctx->getTypeSizeInChars(T).getQuantity();
}

/*
 * GCC lays a randomized struct out twice: normally, then again after the
 * shuffle (layout_type with the fields' state from the first pass).  By then
 * the C front end has given every bitfield whose width differs from its
 * declared type's precision an integer type of exactly that width, whose
 * size and alignment are those of the smallest integer mode that holds it
 * (an `unsigned x:4` is laid out like an `unsigned char x:4`), and the
 * struct keeps at least its first alignment.  Clang lays out once, from the
 * declared types: give those bitfields the same-sized integer type (same
 * signedness; integer promotion gives `int` either way, the width is
 * unchanged) and keep the alignment the declared types gave the struct.
 *
 * In a packed struct one more first-layout decision survives: a bitfield
 * exactly 8 bits wide that started on a byte became an ordinary QImode
 * field (stor-layout.cc layout_decl), so it stays byte-aligned after the
 * shuffle.  DECLARED is the field list in declaration order.
 */
void RandstructConsumer::emulate_gcc_relayout(RecordDecl *RD,
					      const std::vector<FieldDecl *> &declared)
{
	bool packed = RD->hasAttr<PackedAttr>();
	uint64_t keep_align = 0, natural = 0, pos = 0;
	std::set<FieldDecl *> byte_fields;

	/* bit positions of the declared order, packed structs only */
	for (FieldDecl *F : packed ? declared : std::vector<FieldDecl *>()) {
		QualType T = F->getType();
		if (F->isBitField()) {
			uint64_t width = passport_compat::bit_width(F, *Ctx);
			if (!width) {
				pos = llvm::alignTo(pos, Ctx->getTypeAlign(T));
				continue;
			}
			if (width == 8 && pos % 8 == 0)
				byte_fields.insert(F);
			pos += width;
			continue;
		}
		pos = llvm::alignTo(pos, std::max<uint64_t>(8, F->getMaxAlignment()));
		if (!T->isIncompleteType())
			pos += Ctx->getTypeSize(T);
	}
	for (FieldDecl *F : byte_fields) {
		bool is_signed = F->getType()->isSignedIntegerOrEnumerationType();
		F->removeBitWidth();
		F->setType(Ctx->getIntTypeForBitwidth(8, is_signed));
	}

	for (FieldDecl *F : RD->fields()) {
		QualType T = F->getType();
		if (!F->isBitField()) {
			if (!packed && !F->hasAttr<PackedAttr>())
				natural = std::max<uint64_t>(natural, Ctx->getTypeAlign(T));
			continue;
		}
		uint64_t width = passport_compat::bit_width(F, *Ctx);
		uint64_t precision = T->isBooleanType() ? 1 : Ctx->getTypeSize(T);
		uint64_t bits = 8;
		while (bits < width)
			bits *= 2;
		if (width == 0 || width == precision || bits == Ctx->getTypeSize(T))
			continue;
		if (F->getIdentifier() && !packed && !F->hasAttr<PackedAttr>())
			keep_align = std::max<uint64_t>(keep_align, Ctx->getTypeAlign(T));
		bool is_signed = T->isSignedIntegerOrEnumerationType();
		F->setType(Ctx->getIntTypeForBitwidth(bits, is_signed));
	}
	if (const auto *MFA = RD->getAttr<MaxFieldAlignmentAttr>())
		keep_align = std::min<uint64_t>(keep_align, MFA->getAlignment());
	if (keep_align > natural && keep_align > RD->getMaxAlignment())
		RD->addAttr(passport_compat::make_aligned(*Ctx, keep_align / 8,
							  RD->getLocation()));
}

static std::string field_name(const FieldDecl *F)
{
	return F->getIdentifier() ? F->getName().str() : std::string("<anonymous>");
}

void RandstructConsumer::relayout(RecordDecl *RD, const char *why)
{
	std::vector<FieldDecl *> fields(RD->field_begin(), RD->field_end());
	std::string name = RD->getIdentifier() ? RD->getName().str() : "anonymous";
	DiagnosticsEngine &DE = Ctx->getDiagnostics();

	/* GCC relayout_struct's early exits, in its order */
	if (fields.size() < 2)
		return;
	if (has_attr(RD, NO_RANDOMIZE)) {
		passport_note(P, "struct %s: no_randomize_layout: kept", name.c_str());
		return;
	}
	if (name == "INTNETTRUNKFACTORY" || name == "RAWPCIFACTORY")
		return;

	SourceManager &SM = Ctx->getSourceManager();
	PresumedLoc PL = SM.getPresumedLoc(SM.getExpansionLoc(fields[0]->getLocation()));
	if (PL.isValid() && strstr(PL.getFilename(), "/uapi/"))
		DE.Report(RD->getLocation(), DE.getCustomDiagID(
			DiagnosticsEngine::Error, "attempted to randomize userland API struct %0"))
			<< name;

	size_t n = fields.size();
	bool flex = is_flexible_array(fields.back());
	if (flex)
		n--;

	std::vector<passport_rs_field> desc(fields.size());
	std::vector<size_t> order(fields.size());
	for (size_t i = 0; i < fields.size(); i++) {
		desc[i].size = gcc_size(fields[i]);
		desc[i].bitfield = fields[i]->isBitField();
		order[i] = i;
	}
	passport_randstruct_shuffle(seed, name.c_str(), performance, desc.data(), n,
				    order.data());

	/* Re-chain: Clang lays fields out in DeclContext order. */
	for (FieldDecl *F : fields)
		RD->removeDecl(F);
	for (size_t i : order)
		RD->addDecl(fields[i]);

	emulate_gcc_relayout(RD, fields);

	/* Nothing may have cached the old order (FieldDecl::getFieldIndex). */
	unsigned idx = 0;
	for (const FieldDecl *F : RD->fields())
		if (F != fields[order[idx]] || F->getFieldIndex() != idx++)
			passport_fatal(P, "internal: struct %s: clang already used its field "
				       "order before passport could reorder it", name.c_str());

	randomized.insert(RD->getCanonicalDecl());
	if (flex)
		flexible.insert(RD->getCanonicalDecl());

	if (P->verbose) {
		std::string list;
		for (size_t i : order)
			list += " " + field_name(fields[i]);
		passport_note(P, "struct %s (%s, %s mode):%s", name.c_str(), why,
			      performance ? "performance" : "full", list.c_str());
	}
}

void RandstructConsumer::HandleTagDeclDefinition(TagDecl *TD)
{
	auto *RD = dyn_cast<RecordDecl>(TD);

	if (!RD || !RD->isCompleteDefinition() || RD->isInvalidDecl())
		return;
	check_native_attrs(RD);
	/* GCC: finish_type looks at RECORD_TYPEs with fields only */
	if (!active || !RD->isStruct() || RD->field_empty())
		return;
	if (has_attr(RD, RANDOMIZE))
		relayout(RD, "randomize_layout");
	else if (is_pure_ops(RD))
		relayout(RD, "function pointers only");
}

/* ---- initialisers -------------------------------------------------------------- */

/* The checks run in the frontend halves' one walk (frontend-walk.h) over
 * the code that is emitted: a static function nothing emitted reaches
 * emits nothing, so none of its initialisers can put a value in the wrong
 * field.  GCC checks it too; the walk over every header inline cost 2.4 %
 * of a kernel compile's instructions with the plugin merely loaded. */
class InitChecker : public passport_walk::Hooks {
	RandstructConsumer &C;
	DiagnosticsEngine &DE;
	/* Elements written without a designator.  The walk meets a list's
	 * semantic form before the lists inside it, so a list Clang made up
	 * finds here the positional elements of the written list around it. */
	llvm::DenseSet<const Expr *> positional;
	llvm::DenseSet<const InitListExpr *> seen; /* a range designator repeats lists */

	static bool is_zero(const Expr *E)
	{
		const auto *IL = dyn_cast<IntegerLiteral>(E->IgnoreParenImpCasts());
		return IL && IL->getValue() == 0;
	}

	void report(const Expr *at, const RecordDecl *RD)
	{
		QualType T = passport_compat::record_type(RD->getASTContext(), RD);

		if (C.is_randomized(RD))
			DE.Report(at->getBeginLoc(), DE.getCustomDiagID(
				DiagnosticsEngine::Error,
				"positional initialization of field in randomized %0: passport "
				"randstruct reordered its fields; use a designated initializer"))
				<< T;
		else
			DE.Report(at->getBeginLoc(), DE.getCustomDiagID(
				DiagnosticsEngine::Warning,
				"positional initialization of field in %0 declared with "
				"'designated_init' attribute"))
				<< T;
	}

public:
	InitChecker(RandstructConsumer &C, DiagnosticsEngine &DE) : C(C), DE(DE) {}

	bool needs_reached() override { return C.has_checked_types(); }

	/* E: the semantic form, or a written list that has none. */
	void init_list(InitListExpr *E) override
	{
		const InitListExpr *Syn = E->isSemanticForm() ? E->getSyntacticForm() : E;

		if (Syn)
			for (const Expr *I : Syn->inits())
				if (I && !isa<DesignatedInitExpr>(I))
					positional.insert(I->IgnoreImplicit());
		if (!E->isSemanticForm())
			return;
		const RecordDecl *RD = E->getType()->getAsRecordDecl();
		if (!RD || !C.is_designated(RD) || !seen.insert(E).second)
			return;

		/* A list written in braces is the syntactic form of a semantic
		 * one.  A list Clang made up (brace elision, .a.b designators) has
		 * no syntactic form: its positional elements are those that
		 * reached it without a designator from an enclosing written list. */
		std::vector<const Expr *> pos;
		bool zero_only = false;
		if (Syn) {
			for (const Expr *I : Syn->inits())
				if (I && !isa<DesignatedInitExpr>(I))
					pos.push_back(I);
			zero_only = Syn->getNumInits() == 1 && pos.size() == 1 &&
				    is_zero(pos[0]);
		} else {
			unsigned idx = 0, first = 0;
			for (const Expr *I : E->inits()) {
				if (I && positional.count(I->IgnoreImplicit())) {
					if (pos.empty())
						first = idx;
					pos.push_back(I);
				}
				idx++;
			}
			zero_only = pos.size() == 1 && first == 0 && is_zero(pos[0]);
		}
		if (pos.empty())
			return;
		/* {0} is allowed for randomized structs, as with Clang's own
		 * randstruct: all-zero whatever the order.  GCC's designated_init
		 * warns even then. */
		if (zero_only && C.is_randomized(RD))
			return;
		report(pos[0], RD);
	}

	/* GCC update_decl_size: a randomized struct with a flexible tail may
	 * initialise that tail only with a string constant. */
	void var(VarDecl *VD) override
	{
		const RecordDecl *RD = VD->getType()->getAsRecordDecl();
		if (!RD || !C.has_flexible_tail(RD) || !VD->getInit())
			return;
		const auto *IL = dyn_cast<InitListExpr>(VD->getInit()->IgnoreImplicit());
		if (!IL)
			return;
		if (!IL->isSemanticForm() && IL->getSemanticForm())
			IL = IL->getSemanticForm();
		unsigned last = 0;
		for (const FieldDecl *F : RD->fields())
			last = F->getFieldIndex();
		if (last >= IL->getNumInits())
			return;
		const Expr *I = IL->getInit(last);
		if (!I || isa<ImplicitValueInitExpr>(I) || isa<NoInitExpr>(I))
			return;
		if (!isa<StringLiteral>(I->IgnoreParenImpCasts()))
			DE.Report(I->getBeginLoc(), DE.getCustomDiagID(
				DiagnosticsEngine::Error,
				"Only string constants are supported as initializers for "
				"randomized structures with flexible arrays"));
	}
};

std::unique_ptr<passport_walk::Hooks> init_checker(RandstructConsumer &C, DiagnosticsEngine &DE)
{
	return std::make_unique<InitChecker>(C, DE);
}

/* ---- the plugin action ------------------------------------------------------- */

class RandstructAction : public PluginASTAction {
protected:
	std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
						       StringRef) override
	{
		passport_pass *P = passport_pass_named("randstruct");

		if (!P)
			abort(); /* the table always has it */
		return std::make_unique<RandstructConsumer>(CI, P);
	}

	bool ParseArgs(const CompilerInstance &, const std::vector<std::string> &) override
	{
		return true;
	}

	/* Before the main (code generation) consumer, so Clang's own
	 * HandleTagDeclDefinition already sees the new order. */
	ActionType getActionType() override { return AddBeforeMainAction; }
};

FrontendPluginRegistry::Add<RandstructAction>
	reg_action("passport-randstruct", "GCC-compatible struct layout randomization");

} // namespace
