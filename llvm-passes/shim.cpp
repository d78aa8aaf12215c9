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
#include <cstring>
#include <deque>
#include <string>

#include "llvm/IR/GlobalValue.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"

extern "C" {
#include "passport.h"
}

using namespace llvm;

namespace {

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

class CPass : public PassInfoMixin<CPass> {
	passport_pass *P;
	const PassOptions *O;

public:
	CPass(passport_pass *P, const PassOptions *O) : P(P), O(O) {}

	PreservedAnalyses run(Module &M, ModuleAnalysisManager &)
	{
		sync_options(P, *O);
		bool changed = P->run(P, wrap(&M));
		if (verify_each)
			passport_verify_module(P, wrap(&M));
		return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
	}

	/* Hardening must run at -O0 and on optnone functions too. */
	static bool isRequired() { return true; }
};

void add_enabled(ModulePassManager &MPM, passport_extension_point ep)
{
	size_t i = 0;
	for (passport_pass *const *p = passport_passes; *p; p++, i++)
		if ((*p)->ep == ep && *options()[i].enable)
			MPM.addPass(CPass(*p, &options()[i]));
}

bool parse_pipeline(StringRef name, ModulePassManager &MPM)
{
	size_t i = 0;
	for (passport_pass *const *p = passport_passes; *p; p++, i++)
		if ((*p)->ep != PASSPORT_EP_FRONTEND &&
		    name == std::string("passport-") + (*p)->name) {
			MPM.addPass(CPass(*p, &options()[i]));
			return true;
		}
	return false;
}

void register_callbacks(PassBuilder &PB)
{
	PB.registerPipelineStartEPCallback(
		[](ModulePassManager &MPM, OptimizationLevel) {
			add_enabled(MPM, PASSPORT_EP_PIPELINE_START);
		});
#if LLVM_VERSION_MAJOR >= 20
	PB.registerOptimizerLastEPCallback(
		[](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
			add_enabled(MPM, PASSPORT_EP_OPTIMIZER_LAST);
		});
#else
	PB.registerOptimizerLastEPCallback(
		[](ModulePassManager &MPM, OptimizationLevel) {
			add_enabled(MPM, PASSPORT_EP_OPTIMIZER_LAST);
		});
#endif
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

/* Called through the version-checking loader (loader.c), never directly. */
extern "C" __attribute__((visibility("default"))) PassPluginLibraryInfo
passport_core_plugin_info()
{
	return {LLVM_PLUGIN_API_VERSION, "passport", PASSPORT_VERSION,
		register_callbacks};
}

/* passport.h: the LLVM C API has no setter for dso_local. */
extern "C" __attribute__((visibility("default"))) void
passport_set_dso_local(LLVMValueRef global)
{
	unwrap<GlobalValue>(global)->setDSOLocal(true);
}
