# SPDX-License-Identifier: GPL-2.0
"""checks.py - the line protocol of passport's static checks.

A check prints one "PASS: what" or "FAIL: what" line per verdict, evidence
as "FAIL-DETAIL:" and context as "INFO:" lines; tests/boot/run.sh counts the
PASS/FAIL lines and scripts/real-config-report.py quotes them.  A checker
exits with status() at the end: 1 if any verdict failed."""

failed = 0


def report(ok, text):
    """Print the verdict TEXT as PASS or FAIL and remember a failure."""
    global failed
    print(("PASS: " if ok else "FAIL: ") + text)
    failed += not ok


def status():
    return 1 if failed else 0
