#!/usr/bin/env python3
"""Verdicts of two backends on the same dataset: `python scripts/backend-verdicts.py A B`.

A and B are copies of one dataset whose `validations` and `runs/*/executions` were made by
`execute` with different `--backend`s (A: process, B: docker, say). Prints, per family and per
run, how many verdicts are equal (validations: status, validity, cases, mutants killed;
executions: status, cases passed, fingerprint) and every difference, and the isolation each
side recorded. Exit 1 when a verdict differs.
"""

import os
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tables  # noqa: E402


def key_validation(r):
    return (r["status"], r["valid"], r["cases"], r["mutants_killed"])


def key_execution(r):
    return (r["status"], r["cases_passed"], r["cases_total"], r["fingerprint"])


def compare(name, rows_a, rows_b, ident, key, group):
    a = {ident(r): r for r in rows_a}
    b = {ident(r): r for r in rows_b}
    equal, differ, only = Counter(), defaultdict(list), Counter()
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b:
            only[group(a.get(k) or b.get(k))] += 1
            continue
        g = group(a[k])
        if key(a[k]) == key(b[k]):
            equal[g] += 1
        else:
            differ[g].append((k, key(a[k]), key(b[k])))
    iso_a = Counter(r["isolation"] for r in rows_a)
    iso_b = Counter(r["isolation"] for r in rows_b)
    print(f"== {name}: isolation A {dict(iso_a)}, B {dict(iso_b)}")
    for g in sorted(set(equal) | set(differ) | set(only)):
        n = equal[g] + len(differ[g])
        print(f"  {g:<22} equal {equal[g]}/{n}" + (f", in one side only {only[g]}" if only[g] else ""))
        for k, ka, kb in differ[g][:20]:
            print(f"    differs {k}: A {ka} B {kb}")
    return sum(len(v) for v in differ.values()), sum(only.values())


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    da, db = sys.argv[1], sys.argv[2]
    bad = 0
    missing = 0
    va = tables.table(da, "validations")
    family = {r["task_id"]: r["family"] for r in va}
    d, m = compare("validations", va, tables.table(db, "validations"),
                   lambda r: r["task_id"], key_validation, lambda r: r["family"])
    bad += d
    missing += m
    runs_a = os.path.join(da, "runs")
    for run in sorted(os.listdir(runs_a)) if os.path.isdir(runs_a) else []:
        ra = tables.table(os.path.join(da, "runs", run), "executions")
        rb = tables.table(os.path.join(db, "runs", run), "executions")
        if not ra and not rb:
            continue
        d, m = compare(f"run {run}", ra, rb, lambda r: (r["task_id"], r["sample"]), key_execution,
                       lambda r: family.get(r["task_id"], "unknown"))
        bad += d
        missing += m
    print(f"verdicts that differ: {bad}; rows on one side only: {missing}")
    sys.exit(1 if bad or missing else 0)


if __name__ == "__main__":
    main()
