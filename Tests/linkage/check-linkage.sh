#!/usr/bin/env bash
# check-linkage.sh BINARY PATTERN: fails, naming what it found, when BINARY's symbols (nm) or
# shared libraries (ldd) match the extended regular expression PATTERN. make check-linkage
# runs it on rowcast and rowcast-plugin-host (docs/ARCHITECTURE.md, "What each may import").
set -euo pipefail
binary=$1
pattern=$2
[ -x "$binary" ] || { echo "check-linkage: $binary is not an executable"; exit 2; }
for tool in nm ldd; do command -v $tool >/dev/null || { echo "check-linkage: $tool is not installed"; exit 2; }; done
found=$({ nm "$binary"; ldd "$binary"; } 2>/dev/null | grep -E "$pattern" || true)
if [ -n "$found" ]; then
    count=$(printf '%s\n' "$found" | wc -l)
    echo "check-linkage: $(basename "$binary") links what it must not ($count symbols or libraries match $pattern), e.g.:"
    printf '%s\n' "$found" | head -5 || true
    exit 1
fi
echo "check-linkage: $(basename "$binary") links nothing matching $pattern"
