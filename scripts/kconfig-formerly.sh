#!/usr/bin/env bash
# Print the option renames a kernel tree declares, one "OLD NEW STATE" line
# each: a "formerly OLD" attribute of the config entry NEW (the series'
# kconfig patch: a .config that sets OLD and not NEW gives NEW OLD's value).
# STATE is "gone" when no Kconfig file defines OLD any more (a pure rename,
# e.g. STACKLEAK_METRICS), "kept" when OLD is still a symbol of its own (e.g.
# GCC_PLUGIN_STACKLEAK, now derived from KSTACK_ERASE).
#
# usage: scripts/kconfig-formerly.sh TREE
#
# An unpatched tree has none, and prints nothing.  Attributes are indented
# with tabs only; help text (a tab and spaces) is not read.
set -euo pipefail
tree=${1:?usage: $0 TREE}
[ -f "$tree/Kconfig" ] || { echo "$0: $tree is not a kernel tree" >&2; exit 1; }
find "$tree" -name 'Kconfig*' -type f -not -path "$tree/Documentation/*" -print0 |
  LC_ALL=C sort -z |
  xargs -0 cat |
  awk '
    /^[ \t]*(menu)?config[ \t]+[A-Za-z0-9_]+[ \t]*$/ { sym = $2; defined[sym] = 1; next }
    /^[ \t]*(choice|comment|menu|endmenu|if|endif|endchoice|source)([ \t]|$)/ { sym = ""; next }
    /^\t+formerly[ \t]+[A-Za-z0-9_]+[ \t]*$/ { if (sym != "") { old[++n] = $2; new[n] = sym } }
    END { for (i = 1; i <= n; i++) print old[i], new[i], (old[i] in defined) ? "kept" : "gone" }'
