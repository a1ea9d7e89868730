#!/usr/bin/env python3
"""Guards instructions per item against a committed baseline.

Reads the `instructions` figures that `rowcast-bench instructions` wrote to bench-results.json
and compares each path with Benchmarks/Thresholds/instructions.json: a path that costs more
than its baseline by more than the tolerance (the file's, or the path's own `tolerance`) fails
the check (exit 1). Instruction counts from
callgrind repeat to a few instructions for the same binary and inputs, so a small tolerance
catches real regressions without flaking.

    check-instructions.py [--results bench-results.json] [--baseline FILE] [--update]

--update writes the measured figures into the baseline (keeping its tolerance and machine),
for a change that costs instructions on purpose: say why in the commit.
"""
import argparse
import json
import sys

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--results", default="bench-results.json")
parser.add_argument("--baseline", default="Benchmarks/Thresholds/instructions.json")
parser.add_argument("--update", action="store_true", help="write the measured figures into the baseline")
args = parser.parse_args()

try:
    with open(args.results) as f:
        measured = json.load(f).get("instructions", {})
except (OSError, ValueError) as error:
    sys.exit(f"check-instructions: cannot read {args.results}: {error} (run rowcast-bench instructions first)")
with open(args.baseline) as f:
    baseline = json.load(f)
tolerance = baseline["tolerance"]
paths = baseline["paths"]

if args.update:
    for key in paths:
        if key in measured:
            paths[key]["instructionsPerItem"] = round(measured[key]["instructionsPerItem"])
    with open(args.baseline, "w") as f:
        json.dump(baseline, f, indent=2)
        f.write("\n")
    print(f"check-instructions: {args.baseline} updated")
    sys.exit(0)

failed = []
print(f"{'path':<14} {'baseline':>10} {'now':>10} {'change':>8}  (tolerance +{tolerance:.1%}, {baseline['machine']})")
for key, entry in paths.items():
    if key not in measured:
        failed.append(f"{key}: not measured")
        print(f"{key:<14} {entry['instructionsPerItem']:>10,} {'-':>10}")
        continue
    now = measured[key]["instructionsPerItem"]
    base = entry["instructionsPerItem"]
    allowed = entry.get("tolerance", tolerance)
    change = now / base - 1
    mark = ""
    if change > allowed:
        failed.append(f"{key}: {now:,.0f} instructions per item, {change:+.2%} over the baseline {base:,} ({entry['what']})")
        mark = "  REGRESSION"
    elif change < -allowed:
        mark = "  cheaper: lower the baseline (--update) to keep the gain"
    print(f"{key:<14} {base:>10,} {now:>10,.0f} {change:>+8.2%}{mark}")

if failed:
    print("check-instructions: FAILED\n  " + "\n  ".join(failed))
    print("If the cost is wanted, say why in the commit and run check-instructions.py --update.")
    sys.exit(1)
print("check-instructions: every path within its tolerance")
