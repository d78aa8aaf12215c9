#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""checker-verdicts.py - what kernel-hardening-checker says about the four
features of a .config.

usage: checker-verdicts.py [--fail-on FEATURE[,FEATURE...]] CONFIG...

For each CONFIG (a kernel .config file) prints one line per rule of
a13xp0p0v/kernel-hardening-checker (checks.py at commit 0b9aebf) that
concerns stackleak, structleak, latent_entropy or randstruct:

  CONFIG: FEATURE: SYMBOL WANTED: RESULT

SYMBOL and WANTED are the option and value the checker lists for the rule,
RESULT its result string ("OK", "OK: CONFIG_X is \"y\"", "FAIL: is not found",
"FAIL: CONFIG_CC_IS_GCC is not \"y\"", ...).  The rules and their evaluation
are analysis/kfacts.py's (checker_verdicts); ./passport compare's report shows
the same verdicts per kernel.  The checker itself is not needed: it is not a
Debian package.

  --fail-on LIST  exit 1 when the first rule of one of these features (the
                  one that says whether the feature is on) does not say OK
  -h, --help      this text

Exit 0; 1 as --fail-on says; 2 on bad usage or an unreadable CONFIG.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kelf  # noqa: E402
import kfacts  # noqa: E402

FEATURES = ("stackleak", "structleak", "latent_entropy", "randstruct")


def feature_list(text):
    names = [f for f in text.split(",") if f]
    bad = [f for f in names if f not in FEATURES]
    if bad:
        raise argparse.ArgumentTypeError("unknown feature %s (one of %s)" % (", ".join(bad), ", ".join(FEATURES)))
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 usage="%(prog)s [--fail-on FEATURE[,FEATURE...]] CONFIG...",
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--fail-on", type=feature_list, default=[], metavar="LIST")
    ap.add_argument("configs", nargs="+", metavar="CONFIG")
    args = ap.parse_args()
    failed = False
    for path in args.configs:
        try:
            cfg = kelf.parse_config(path, not_set=True)
        except OSError as e:
            print("checker-verdicts.py: error: %s: %s" % (path, e.strerror), file=sys.stderr)
            return 2
        seen = set()
        for feature, sym, wanted, result in kfacts.checker_verdicts(cfg):
            print("%s: %s: %s %s: %s" % (path, feature, sym, wanted, result))
            if feature in args.fail_on and feature not in seen and not result.startswith("OK"):
                failed = True
            seen.add(feature)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
