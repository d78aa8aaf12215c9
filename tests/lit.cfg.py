# lit configuration for passport.  Loaded once per LLVM major through the
# generated lit.site.cfg.py, which sets passport_llvm/bindir/build/root.
#
# Substitutions:
#   %clang %opt %llc      that major's tools     %llvm      the major ("14")
#   %flags                ./passport flags --llvm N   (append feature options)
#   %cc                   ./passport cc --
#   %plugin               build/lib/passport-llvmN.so
#   %finalize             build/bin/passport-finalize
#   %passport_opt         opt with the plugin loaded, for .ll tests: LLVM 14's
#                         opt parses options before it loads pass plugins,
#                         so the plugin is also -load'ed (its -passport-*
#                         options exist in time), and reads `ptr` only with
#                         -opaque-pointers: one .ll text serves every major
#   %csmith_slice         K/N: this major's share of a csmith run (csmith-diff.sh
#                         --slice), K its index among the N built majors
#   %randstruct_attrs     OWN (Clang 14: passport registers randomize_layout
#                         itself) or NATIVE (Clang >= 15 parses it): the
#                         FileCheck prefix of the diagnostics that differ
#   %other_clang %other_plugin  the other built major, for mismatch tests
#   %gcc_plugins          build/gcc-plugins (the kernel's own GCC plugins)
#   %linux %kplain %kpatched  the kernel version a series test runs on (6.1;
#                         tests/kstack-erase/6.12/ runs the same tests on 6.12),
#                         its plain tree and its patched tree (apply.sh)
#   %root                 the repository
import os
import re
import lit.formats

config.name = "passport-llvm" + config.passport_llvm
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".c", ".ll", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.passport_build, "tests", "llvm" + config.passport_llvm)

llvm = config.passport_llvm
bindir = config.passport_bindir
build = config.passport_build
root = config.passport_root
passport = os.path.join(root, "passport")

config.environment["PATH"] = os.pathsep.join([bindir, "/usr/lib/llvm-14/bin", config.environment.get("PATH", os.environ["PATH"])])
config.environment["PASSPORT_BUILD"] = build
for var in ("HOME", "TMPDIR", "CI", "CSMITH_COUNT", "PASSPORT_TEST_STRICT"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

built = sorted(m.group(1) for m in (re.match(r"passport-llvm(\d+)\.so$", d)
                                     for d in os.listdir(os.path.join(build, "lib"))) if m)
other = [m for m in built if m != llvm]

config.substitutions += [
    ("%python", "python3"),
    ("%clang", os.path.join(bindir, "clang")),
    ("%opt", os.path.join(bindir, "opt")),
    ("%llc", os.path.join(bindir, "llc")),
    ("%lld", os.path.join(bindir, "ld.lld")),
    ("%llvm", llvm),
    ("%flags", passport + " flags --llvm " + llvm),
    ("%cc", passport + " cc --"),
    ("%plugin", os.path.join(build, "lib", "passport-llvm%s.so" % llvm)),
    ("%finalize", os.path.join(build, "bin", "passport-finalize")),
    ("%gcc_plugins", os.path.join(build, "gcc-plugins")),
    ("%root", root),
    ("%linux", "6.1"),
    ("%kplain", os.path.join(root, "build", "kernel", "src")),
    ("%kpatched", os.path.join(root, "build", "kernel", "src-patched")),
    ("%csmith_slice", "%d/%d" % (built.index(llvm), len(built)) if llvm in built else "0/1"),
    ("%randstruct_attrs", "OWN" if int(llvm) < 15 else "NATIVE"),
    ("%passport_opt", "%s%s -load=%s -load-pass-plugin=%s" % (
        os.path.join(bindir, "opt"), " -opaque-pointers" if int(llvm) < 15 else "",
        os.path.join(build, "lib", "passport-llvm%s.so" % llvm),
        os.path.join(build, "lib", "passport-llvm%s.so" % llvm))),
]
if other:
    config.available_features.add("other-llvm")
    config.substitutions += [
        ("%other_clang", "/usr/lib/llvm-%s/bin/clang" % other[0]),
        ("%other_plugin", os.path.join(build, "lib", "passport-llvm%s.so" % other[0])),
        ("%other_llvm", other[0]),
    ]
config.available_features.add("llvm" + llvm)
if os.path.exists(os.path.join(build, "gcc-plugins", "gcc-12", "stackleak_plugin.so")):
    config.available_features.add("gcc-plugins")

# Features that depend on what is installed.  Under the test command
# (PASSPORT_TEST_STRICT=1: ./passport test installs everything) a missing one
# is an error, not a pile of UNSUPPORTED tests that hide a missing install
# step.  llvmN features only pick the major a test runs on.
missing = {
    "gcc-plugins": "the kernel's GCC plugins are not built (gcc-12-plugin-dev, gcc-11-plugin-dev, linux-source-6.1)",
    "other-llvm": "passport-llvm%s.so is the only plugin built (the mismatch tests need two majors)" % llvm,
}
if os.environ.get("PASSPORT_TEST_STRICT") == "1":
    for feature, why in missing.items():
        if feature not in config.available_features:
            lit_config.fatal("feature %s missing: %s; ./passport test should have installed it" % (feature, why))
