// SPDX-License-Identifier: GPL-2.0
/*
 * loader.c - passport-llvmN.so, the file users load: a version guard in
 * front of the real plugin (passport-llvmN-core.so, and in clang also
 * passport-llvmN-frontend.so, which needs clang's own symbols).
 *
 * An LLVM plugin only works in the LLVM major it was built against, and a
 * mismatch is not reported by LLVM: a 14-built plugin segfaults clang-19, a
 * 19-built one fails in clang-14 with an undefined symbol, a frontend plugin
 * may load and silently do nothing.  This file references no LLVM symbol,
 * so it always loads; its constructor finds the LLVM of the process it was
 * loaded into and either loads the core next to it or stops the compiler
 * with one line naming both versions.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PASSPORT_LLVM_MAJOR
#error "build with -DPASSPORT_LLVM_MAJOR=N"
#endif
#include "compat.h"
#include "diag.h"
#define PASSPORT_STR_(x) #x
#define PASSPORT_STR(x) PASSPORT_STR_(x)

static void *core;

static _Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	passport_vdie(NULL, fmt, ap);
}

/* The LLVM major from a loaded library's soname, e.g. libLLVM-14.so.1,
 * libLLVM.so.19.1, libclang-cpp.so.14. */
static int major_from_soname(const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned major;

	base = base ? base + 1 : path;
	if (sscanf(base, "libLLVM-%u", &major) == 1 ||
	    sscanf(base, "libLLVM.so.%u", &major) == 1 ||
	    sscanf(base, "libclang-cpp.so.%u", &major) == 1)
		return (int)major;
	return 0;
}

static int find_llvm_library(struct dl_phdr_info *info, size_t size, void *data)
{
	int *major = data;

	(void)size;
	if (info->dlpi_name && (*major = major_from_soname(info->dlpi_name)))
		return 1;
	return 0;
}

static int find_clang_library(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	return info->dlpi_name && strstr(info->dlpi_name, "libclang-cpp");
}

/* Is this clang (frontend symbols available), not opt or another tool? */
static int host_is_clang(void)
{
	return dl_iterate_phdr(find_clang_library, NULL) ||
	       dlsym(RTLD_DEFAULT, "_ZN5clang11ASTConsumerD2Ev");
}

/* Load NAME from the loader's directory, RTLD_GLOBAL so that later objects
 * and clang's plugin registries see its symbols. */
static void *load_beside(const char *self, const char *name)
{
	char path[PATH_MAX], dir[PATH_MAX];
	void *h;

	snprintf(dir, sizeof(dir), "%s", self);
	snprintf(path, sizeof(path), "%s/%s", dirname(dir), name);
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h)
		die("cannot load %s: %s", path, dlerror());
	return h;
}

/* The LLVM major of this process, or 0 if it has no LLVM. */
static int host_llvm_major(void)
{
	void (*get_version)(unsigned *, unsigned *, unsigned *);
	int major = 0;

	dl_iterate_phdr(find_llvm_library, &major);
	if (major)
		return major;
	/* A statically linked LLVM exporting its symbols (LLVM >= 16). */
	*(void **)&get_version = dlsym(RTLD_DEFAULT, "LLVMGetVersion");
	if (get_version) {
		unsigned maj, min, patch;

		get_version(&maj, &min, &patch);
		return (int)maj;
	}
	return 0;
}

static const char *self_path(void)
{
	Dl_info info;

	if (!dladdr((void *)host_llvm_major, &info) || !info.dli_fname)
		return "passport-llvm" PASSPORT_STR(PASSPORT_LLVM_MAJOR) ".so";
	return info.dli_fname;
}

__attribute__((constructor)) static void passport_load_core(void)
{
	const char *self = self_path();
	const char *name = strrchr(self, '/') ? strrchr(self, '/') + 1 : self;
	int host = host_llvm_major();

	if (!host)
		die("%s is an LLVM %d plugin, but this program has no LLVM (load it into clang-%d or opt-%d)",
		    name, PASSPORT_LLVM_MAJOR, PASSPORT_LLVM_MAJOR, PASSPORT_LLVM_MAJOR);
	if (host != PASSPORT_LLVM_MAJOR)
		die("%s is built for LLVM %d but this compiler is LLVM %d; use passport-llvm%d.so (./passport flags --llvm %d)",
		    name, PASSPORT_LLVM_MAJOR, host, host, host);

	core = load_beside(self, PASSPORT_CORE_NAME);
	if (host_is_clang())
		load_beside(self, PASSPORT_FRONTEND_NAME);
}

/* The entry point LLVM looks up by name (no header declares it for C). */
__attribute__((visibility("default"))) struct passport_plugin_info llvmGetPassPluginInfo(void);

struct passport_plugin_info llvmGetPassPluginInfo(void)
{
	struct passport_plugin_info (*info)(void);

	*(void **)&info = dlsym(core, "passport_core_plugin_info");
	if (!info)
		die("%s has no passport_core_plugin_info: %s", PASSPORT_CORE_NAME, dlerror());
	return info();
}
