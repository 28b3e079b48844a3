#!/usr/bin/env python3
"""The scan guard's checker (pgtap/scan_guard.sql): reads psql's output with auto_explain's plans
(JSON, one NOTICE per statement, nested statements included) and fails on any plan node that
removes far more rows by a filter calling one of the project's functions than it keeps: at least
MIN_REMOVED rows a loop, more than RATIO times what it returns. That is the shape a booking write's
lot lookup once had: an indexed column compared with a function of the input, which runs once per
row and keeps the index unused. Other wasteful filters (a small table read whole, where reading it whole is the cheaper
plan) are printed as notes and do not fail. Prints each node with its statement."""
import json
import re
import sys

MIN_REMOVED = 100
RATIO = 10
# A call of a function of the project's schemas, inside a filter.
PROJECT_FUNCTION = re.compile(r"\b(app|api|console|platform|webhook)\.[a-z_]+\(")


def nodes(plan):
    yield plan
    for child in plan.get("Plans", []):
        yield from nodes(child)


def plans(text):
    decoder = json.JSONDecoder()
    at = 0
    while True:
        at = text.find("plan:", at)
        if at < 0:
            return
        start = text.find("{", at)
        if start < 0:
            return
        try:
            plan, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            at = start + 1
            continue
        yield plan
        at = end


def main():
    text = sys.stdin.read()
    if "scan-guard: start" not in text or "scan-guard: end" not in text:
        print("scan guard: the workload did not run to its end", file=sys.stderr)
        return 1
    text = text[text.index("scan-guard: start"):text.index("scan-guard: end")]
    seen = 0
    offending, notes = [], []
    for explained in plans(text):
        seen += 1
        for node in nodes(explained["Plan"]):
            removed = node.get("Rows Removed by Filter", 0) + node.get("Rows Removed by Index Recheck", 0)
            kept = node.get("Actual Rows", 0)
            if removed >= MIN_REMOVED and removed > RATIO * max(kept, 1):
                calls = PROJECT_FUNCTION.search(node.get("Filter", "") + node.get("Recheck Cond", ""))
                (offending if calls else notes).append((node, explained.get("Query Text", "?")))
    if seen < 20:
        print(f"scan guard: only {seen} plans read: is auto_explain loaded?", file=sys.stderr)
        return 1
    for label, found in (("FAIL", offending), ("note", notes)):
        for node, query in found:
            print(f"scan guard {label}: {node.get('Node Type')} on {node.get('Relation Name', '?')} removed "
                  f"{node.get('Rows Removed by Filter', 0)} rows by {node.get('Filter', node.get('Recheck Cond', '?'))} "
                  f"to keep {node.get('Actual Rows')}\n  in: {' '.join(query.split())[:200]}", file=sys.stderr)
    print(f"scan guard: {seen} plans read; {len(offending)} filters calling a function per row of a scan "
          f"that removes most of what it reads; {len(notes)} other wasteful filters (notes)")
    return 1 if offending else 0


if __name__ == "__main__":
    sys.exit(main())
