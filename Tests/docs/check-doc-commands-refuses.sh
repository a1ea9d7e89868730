#!/bin/sh
# Checks that Tests/docs/check-doc-commands.py can fail: run on
# Tests/docs/fixtures/unchecked-commands.md, a document whose every block breaks one rule, it
# must exit 1 and name each of them. Exits 1 naming what it missed, 0 otherwise.
#
# Usage: Tests/docs/check-doc-commands-refuses.sh   (needs the build, as check-doc-commands.py does)
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
fixture=Tests/docs/fixtures/unchecked-commands.md
output=$(cd "$root" && ${PYTHON:-python3} Tests/docs/check-doc-commands.py "$fixture" 2>&1)
status=$?
if [ "$status" -ne 1 ]; then
    echo "check-doc-commands-refuses: exit status $status on $fixture, not 1:"
    echo "$output"
    exit 1
fi
missed=0
for expected in \
    "$fixture:8: a command block without a <!-- check: ... --> marker" \
    "$fixture:15: \`rowcast publish --feed cars --no-such-option\`: rowcast publish has no option --no-such-option" \
    "$fixture:22: \`false\`: exit status 1" \
    "$fixture:30: \`rowcast status\`: succeeded, though the doc shows \`error: missing_field" \
    "$fixture:38: no test file Tests/**/NoSuchEndToEndTests.swift" \
    "$fixture:44: an unlabeled block of commands" \
    "$fixture:48: \`rowcast status --no-such-flag\`: rowcast status has no option --no-such-flag"; do
    case "$output" in
        *"$expected"*) ;;
        *) echo "check-doc-commands-refuses: no complaint \"$expected\""; missed=1 ;;
    esac
done
if [ "$missed" -ne 0 ]; then
    echo "$output"
    exit 1
fi
