#!/usr/bin/env python3
"""Fail when a test ran a program that the test command would not install.

usage: scripts/check-installs.py --execs FILE --groups test[,boot] [--root DIR]
                                 [--verbose]

  --execs FILE   the programs the tests executed, one path per line (what
                 ./passport test records with strace -e trace=execve)
  --groups G,..  the package groups of scripts/packages.txt the test command
                 installed (test, boot, compare)
  --root DIR     the repository; programs below it, below the build
                 directory or in a temporary directory are the tests' own
                 and are not checked (default: this script's repository)
  --verbose      also list every program with the package that provides it

Contract: every other executed program must be a file of an installed
Debian package that is one of GROUPS' packages, or one of their
dependencies (recursively), or an Essential or Priority: required package
(every Debian system has those). A program that no package owns (a pip or
pyenv install, /usr/local) fails too: a fresh machine may not have it.
Output: one line per offending program naming it and its package, then a
summary line; exit 0 only when there is none.  This is the check the
fresh-machine failure needed: on a machine where `./passport compare` had
installed gnuplot, report.test passed while the test command did not
install gnuplot.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def read_groups(packages_txt, groups):
    """The packages of GROUPS in scripts/packages.txt."""
    names = set()
    with open(packages_txt) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if words and words[0] in groups:
                names.update(words[1:])
    return names


def installed_packages():
    """name -> (essential_or_required, depends names, provides names)."""
    fmt = "${Package}\t${db:Status-Abbrev}\t${Essential}\t${Priority}\t${Provides}\t${Depends}, ${Pre-Depends}\n"
    out = subprocess.run(["dpkg-query", "-W", "-f", fmt], capture_output=True, text=True,
                         check=True).stdout
    pkgs = {}
    for line in out.splitlines():
        name, status, essential, priority, provides, depends = (line.split("\t") + [""] * 6)[:6]
        if not status.startswith("ii"):
            continue
        base = essential == "yes" or priority == "required"
        pkgs[name] = (base, relation_names(depends), relation_names(provides))
    return pkgs


def relation_names(field):
    """Every package name in a Depends/Provides field, alternatives included."""
    names = set()
    for clause in field.split(","):
        for alt in clause.split("|"):
            word = alt.strip().split(" ")[0].split(":")[0]
            if word:
                names.add(word)
    return names


def allowed_packages(pkgs, roots):
    """ROOTS and the base system, with their dependency closure."""
    providers = {}
    for name, (_, _, provides) in pkgs.items():
        for virtual in provides:
            providers.setdefault(virtual, set()).add(name)
    todo = [n for n in roots] + [n for n, (base, _, _) in pkgs.items() if base]
    seen = set()
    while todo:
        n = todo.pop()
        for real in ({n} if n in pkgs else set()) | providers.get(n, set()):
            if real in seen:
                continue
            seen.add(real)
            todo.extend(pkgs[real][1])
    return seen


def owners(paths):
    """path -> package that ships it (None when no package does)."""
    found, candidates = {}, {}
    for p in paths:
        real = os.path.realpath(p)
        alts = [real, p]
        for a in list(alts):  # merged /usr: dpkg knows one spelling
            for x, y in (("/usr/bin/", "/bin/"), ("/usr/sbin/", "/sbin/"), ("/usr/lib/", "/lib/")):
                if a.startswith(x):
                    alts.append(y + a[len(x):])
                elif a.startswith(y):
                    alts.append(x + a[len(y):])
        candidates[p] = alts
    query = sorted({a for alts in candidates.values() for a in alts})
    owner_of = {}
    for i in range(0, len(query), 200):
        out = subprocess.run(["dpkg-query", "-S"] + query[i:i + 200], capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            if line.startswith("diversion ") or ": " not in line:
                continue
            pkgs, path = line.split(": ", 1)
            owner_of[path] = pkgs.split(",")[0].strip().split(":")[0]
    for p, alts in candidates.items():
        found[p] = next((owner_of[a] for a in alts if a in owner_of), None)
    return found


def own_program(path, roots):
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def main():
    ap = argparse.ArgumentParser(usage=argparse.SUPPRESS, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--execs", required=True)
    ap.add_argument("--groups", required=True)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()

    root = os.path.realpath(args.root)
    build = os.path.realpath(os.environ.get("PASSPORT_BUILD", os.path.join(root, "build")))
    own_roots = [root, build, os.path.realpath(tempfile.gettempdir()), "/tmp", "/var/tmp"]
    with open(args.execs) as f:
        execs = sorted({l.strip() for l in f if l.strip()})
    # A relative path was run from a working directory (a kernel tree's
    # scripts/basic/fixdep): the tests' own, as is anything below own_roots.
    checked = [p for p in execs if os.path.isabs(p)
               and not own_program(os.path.realpath(p), own_roots) and not own_program(p, own_roots)]
    groups = set(args.groups.split(","))
    installs = read_groups(os.path.join(root, "scripts", "packages.txt"), groups)
    pkgs = installed_packages()
    allowed = allowed_packages(pkgs, installs)
    owner = owners(checked)

    bad = 0
    for p in checked:
        pkg = owner[p]
        if pkg is None:
            print(f"FAIL: {p}: no Debian package ships it, so the test command cannot install it")
            bad += 1
        elif pkg not in allowed:
            print(f"FAIL: {p}: from package {pkg}, which the test command does not install "
                  f"(add it to a group {args.groups} of scripts/packages.txt)")
            bad += 1
        elif args.verbose:
            print(f"ok: {p}: {pkg}")
    print(f"install check: {len(checked)} programs the tests ran, {bad} not installed by the "
          f"test command ({len(execs) - len(checked)} of the tests' own)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
