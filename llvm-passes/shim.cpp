// SPDX-License-Identifier: GPL-2.0
/*
 * shim.cpp - the C++ that LLVM's plugin interface requires and nothing else:
 * cl::opt options made from the C pass table, the pass wrapper that hands
 * the module to C, and the pass-builder callbacks.  Pass logic is in C.
 *
 * It also supplies the one helper the LLVM C API lacks (setting dso_local).
 *
 * Options are LLVM options (-mllvm -passport-...), registered when the
 * plugin is loaded: clang must load it with -fplugin= as well as
 * -fpass-plugin=, or it parses -mllvm before the options exist.
 */
#include <array>
#include <cstring>
#include <deque>
#include <string>
#include <type_traits>
#include <utility>

#include "llvm/IR/GlobalValue.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"

#define PASSPORT_COMPAT_LLVM
#include "compat.h"

extern "C" {
#include "passport.h"
}

using namespace llvm;

namespace {

/* Slots for pass types (CPass<I, PREP>): at least the entries of passport_passes[]. */
constexpr size_t max_passes = 8;

struct PassOptions {
	cl::opt<bool> *enable, *verbose, *disable;
	std::deque<cl::opt<std::string>> values;
};

/* cl::opt keeps a StringRef to its name: keep the names alive. */
std::deque<std::string> &names()
{
	static std::deque<std::string> n;
	return n;
}

StringRef keep(std::string s)
{
	names().push_back(std::move(s));
	return names().back();
}

cl::opt<bool> *flag(const std::string &name, const std::string &help)
{
	return new cl::opt<bool>(keep(name), cl::desc(keep(help)), cl::ZeroOrMore,
				 cl::init(false));
}

std::deque<PassOptions> &options()
{
	static std::deque<PassOptions> o;
	return o;
}

/* One PassOptions per entry of passport_passes[], same index. */
struct RegisterOptions {
	RegisterOptions()
	{
		size_t n = 0;
		for (passport_pass *const *p = passport_passes; *p; p++)
			n++;
		if (n > max_passes)
			report_fatal_error("passport: more passes than shim.cpp's max_passes");
		for (passport_pass *const *p = passport_passes; *p; p++) {
			std::string base = std::string("passport-") + (*p)->name;
			PassOptions &o = options().emplace_back();

			o.enable = flag(base, (*p)->help);
			o.verbose = flag(base + "-verbose", "print one line per decision");
			o.disable = flag(base + "-disable", "turn the pass off for this file");
			for (struct passport_option *v = (*p)->options; v && v->name; v++)
				o.values.emplace_back(keep(base + "-" + v->name),
						      cl::desc(v->help), cl::ZeroOrMore);
		}
	}
} register_options;

/* Copy the parsed option values into the C pass table. */
void sync_options(passport_pass *p, const PassOptions &o)
{
	p->enabled = *o.enable;
	p->verbose = *o.verbose;
	p->disabled = *o.disable;
	size_t i = 0;
	for (struct passport_option *v = p->options; v && v->name; v++, i++) {
		const cl::opt<std::string> &opt = o.values[i];
		v->value = opt.getNumOccurrences() ? opt.getValue().c_str() : nullptr;
	}
}

/* -passport-verify: the IR verifier after every passport pass. */
cl::opt<bool> verify_each("passport-verify",
			  cl::desc("run the IR verifier after every passport pass"),
			  cl::ZeroOrMore, cl::init(false));

/* "passport-NAME" of passport_passes[I], or "" past the table's end. */
StringRef pass_name(size_t i)
{
	static std::deque<std::string> n;
	if (n.empty())
		for (passport_pass *const *p = passport_passes; *p; p++)
			n.push_back(std::string("passport-") + (*p)->name);
	return i < n.size() ? StringRef(n[i]) : StringRef();
}

/* "passport-NAME-prepare" of passport_passes[I] if it has a prepare(),
 * else "". */
StringRef prepare_name(size_t i)
{
	static std::deque<std::string> n;
	if (n.empty())
		for (passport_pass *const *p = passport_passes; *p; p++)
			n.push_back((*p)->prepare ? std::string("passport-") + (*p)->name + "-prepare"
						  : std::string());
	return i < n.size() ? StringRef(n[i]) : StringRef();
}

/*
 * The pass manager's wrapper around passport_passes[I]: its run() (PREP
 * false), or its prepare() at PipelineStart for a pass that runs later
 * (PREP true).  One type per table slot and hook, because the new pass
 * manager names a pass by its type: with its own name() each shows as
 * "passport-NAME" (or "passport-NAME-prepare") in -debug-pass-manager and
 * answers to -print-after= and -passes= by that name.
 */
template <size_t I, bool PREP> class CPass : public PassInfoMixin<CPass<I, PREP>> {
	const PassOptions *O;

public:
	explicit CPass(const PassOptions *O) : O(O) {}

	static StringRef name() { return PREP ? prepare_name(I) : pass_name(I); }

	PreservedAnalyses run(Module &M, ModuleAnalysisManager &)
	{
		passport_pass *P = passport_passes[I];

		sync_options(P, *O);
		bool changed = (PREP ? P->prepare : P->run)(P, wrap(&M));
		if (verify_each)
			passport_verify_module(P, wrap(&M));
		return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
	}

	/* Hardening must run at -O0 and on optnone functions too. */
	static bool isRequired() { return true; }
};

/* add_pass[I](MPM): schedule CPass<I, false>; add_prepare[I]: CPass<I, true>. */
using add_fn = void (*)(ModulePassManager &);

template <bool PREP, size_t... I>
constexpr std::array<add_fn, sizeof...(I)> make_adders(std::index_sequence<I...>)
{
	return {{[](ModulePassManager &MPM) { MPM.addPass(CPass<I, PREP>(&options()[I])); }...}};
}
constexpr auto add_pass = make_adders<false>(std::make_index_sequence<max_passes>());
constexpr auto add_prepare = make_adders<true>(std::make_index_sequence<max_passes>());

void add_enabled(ModulePassManager &MPM, passport_extension_point ep)
{
	size_t i = 0;
	for (passport_pass *const *p = passport_passes; *p; p++, i++) {
		if (!*options()[i].enable)
			continue;
		if (ep == PASSPORT_EP_PIPELINE_START && (*p)->prepare &&
		    (*p)->ep != PASSPORT_EP_PIPELINE_START)
			add_prepare[i](MPM);
		if ((*p)->ep == ep)
			add_pass[i](MPM);
	}
}

bool parse_pipeline(StringRef name, ModulePassManager &MPM)
{
	size_t i = 0;
	for (passport_pass *const *p = passport_passes; *p; p++, i++) {
		if ((*p)->ep != PASSPORT_EP_FRONTEND && name == pass_name(i)) {
			add_pass[i](MPM);
			return true;
		}
		if ((*p)->prepare && name == prepare_name(i)) {
			add_prepare[i](MPM);
			return true;
		}
	}
	return false;
}

/* Map each pass type's name to its pipeline name, for -print-after etc. */
template <size_t... I> void name_passes(PassInstrumentationCallbacks &PIC, std::index_sequence<I...>)
{
	(void)std::initializer_list<int>{
		(pass_name(I).empty() ? 0 : (PIC.addClassToPassName(CPass<I, false>::name(), pass_name(I)), 0))...};
	(void)std::initializer_list<int>{
		(prepare_name(I).empty()
			 ? 0
			 : (PIC.addClassToPassName(CPass<I, true>::name(), prepare_name(I)), 0))...};
}

void register_callbacks(PassBuilder &PB)
{
	if (PassInstrumentationCallbacks *PIC = PB.getPassInstrumentationCallbacks())
		name_passes(*PIC, std::make_index_sequence<max_passes>());
	PB.registerPipelineStartEPCallback(
		[](ModulePassManager &MPM, OptimizationLevel) {
			add_enabled(MPM, PASSPORT_EP_PIPELINE_START);
		});
	passport_compat::register_optimizer_last(PB, [](ModulePassManager &MPM) {
		add_enabled(MPM, PASSPORT_EP_OPTIMIZER_LAST);
	});
	PB.registerPipelineParsingCallback(
		[](StringRef name, ModulePassManager &MPM,
		   ArrayRef<PassBuilder::PipelineElement>) {
			return parse_pipeline(name, MPM);
		});
}

} // namespace

extern "C" __attribute__((visibility("default"))) struct passport_pass *
passport_pass_named(const char *name)
{
	size_t i = 0;
	for (passport_pass *const *p = passport_passes; *p; p++, i++)
		if (!strcmp((*p)->name, name)) {
			sync_options(*p, options()[i]);
			return *p;
		}
	return nullptr;
}

/* loader.c hands this to LLVM as its llvmGetPassPluginInfo's result: the
 * C mirror in compat.h has the same size and, field by field, the layout. */
static_assert(sizeof(PassPluginLibraryInfo) == sizeof(passport_plugin_info),
	      "compat.h: passport_plugin_info does not match this LLVM's PassPluginLibraryInfo");
static_assert(std::is_trivially_copyable<PassPluginLibraryInfo>::value,
	      "PassPluginLibraryInfo is no longer plain data");

/* Called through the version-checking loader (loader.c), never directly.
 * It returns the C mirror, not LLVM's type: a C-linkage function must not
 * return a C++ type (LLVM 22's has default member initialisers, and
 * clang-22 warns about it in the kernel's build of the plugin). */
extern "C" __attribute__((visibility("default"))) passport_plugin_info
passport_core_plugin_info()
{
	PassPluginLibraryInfo info = {LLVM_PLUGIN_API_VERSION, "passport", PASSPORT_VERSION,
				      register_callbacks};
	passport_plugin_info c;

	memcpy(&c, &info, sizeof(c));
	return c;
}

/* passport.h: the LLVM C API has no setter for dso_local. */
extern "C" __attribute__((visibility("default"))) void
passport_set_dso_local(LLVMValueRef global)
{
	unwrap<GlobalValue>(global)->setDSOLocal(true);
}

/* passport.h: LLVM 14's C API cannot read an inline asm's constraints. */
extern "C" __attribute__((visibility("default"))) const char *
passport_inline_asm_constraints(LLVMValueRef inline_asm, size_t *len)
{
	StringRef c = unwrap<InlineAsm>(inline_asm)->getConstraintString();

	*len = c.size();
	return c.data();
}
