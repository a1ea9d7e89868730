#!/bin/sh
# Checks that every repository path docs/ARCHITECTURE.md names exists.
#
# A path is a backticked span, or the first word of one, that starts with Sources/, SDK/,
# Tests/, docs/, Benchmarks/, Plugins/, Examples/, Fuzz/, Config/ or systemd/. Run from
# anywhere; paths are resolved against the repository root. Exits 1 naming every missing
# path, 0 when all exist.
#
# Usage: Tests/docs/check-architecture-paths.sh [DOC]   (DOC defaults to docs/ARCHITECTURE.md)
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
doc=${1:-$root/docs/ARCHITECTURE.md}

if [ ! -f "$doc" ]; then
    echo "check-architecture-paths: $doc not found" >&2
    exit 1
fi

paths=$(grep -o '`[^`]*`' "$doc" \
    | sed -e 's/^`//' -e 's/`$//' -e 's/[[:space:]].*$//' \
    | grep -E '^(Sources|SDK|Tests|docs|Benchmarks|Plugins|Examples|Fuzz|Config|systemd)/' \
    | sed -e 's/[.,;:)]*$//' \
    | sort -u)

missing=0
checked=0
for path in $paths; do
    checked=$((checked + 1))
    if [ ! -e "$root/$path" ]; then
        echo "check-architecture-paths: $path (named in ${doc#"$root"/}) does not exist" >&2
        missing=$((missing + 1))
    fi
done

if [ "$missing" -gt 0 ]; then
    echo "check-architecture-paths: $missing of $checked paths missing" >&2
    exit 1
fi
echo "check-architecture-paths: all $checked paths exist"
