#!/usr/bin/env python3
"""Figures of a dataset's assertion tasks (`mask --family assertion`, then
`execute --validate` and the reference runs oracle, null and memorized):

    python scripts/assertion-report.py data/real

Per repository: assertions kept, tasks, the share of assertions with a mutated variant,
valid tasks; over all: tasks per form and program, validation reasons, the kinds of values,
the seconds mask spent recording an assertion (median, p90), and each reference run's
pass rate on original and on mutated tasks (oracle must be 100% on both, null 0%,
memorized 100% on originals and 0% on mutated ones).
"""

import collections
import json
import os
import statistics
import sys

from tables import table


def pct(a, b):
    return "-" if b == 0 else f"{100.0 * a / b:.1f}%"


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: assertion-report.py DATA_DIR")
    d = sys.argv[1]
    tasks = table(d, "assertion_tasks")
    if not tasks:
        sys.exit(f"{d}: no assertion_tasks.parquet (run `mask --data {d} --family assertion`)")
    names = {r["repo_id"]: r["name"] for r in table(d, "repos")}
    valid = {v["task_id"]: v for v in table(d, "validations") if v["family"] == "assertion"}
    by_repo = collections.defaultdict(list)
    for t in tasks:
        by_repo[names.get(t["repo_id"], t["repo_id"])].append(t)
    print(f"{'repository':<20} {'assertions':>10} {'with variant':>12} {'tasks':>6} {'valid':>6}")
    all_groups = 0
    all_variant = 0
    for repo in sorted(by_repo):
        ts = by_repo[repo]
        groups = {t["group_id"] for t in ts}
        variant = {t["group_id"] for t in ts if t["mutated"]}
        n_valid = sum(1 for t in ts if valid.get(t["task_id"], {}).get("valid"))
        all_groups += len(groups)
        all_variant += len(variant)
        print(f"{repo:<20} {len(groups):>10} {pct(len(variant), len(groups)):>12} {len(ts):>6} {n_valid:>6}")
    n_valid = sum(1 for t in tasks if valid.get(t["task_id"], {}).get("valid"))
    print(f"{'all':<20} {all_groups:>10} {pct(all_variant, all_groups):>12} {len(tasks):>6} {n_valid:>6}"
          f"   ({len(tasks) / max(1, len(by_repo)):.1f} tasks and {n_valid / max(1, len(by_repo)):.1f} valid per repository)")
    print("\ntasks by form and program:")
    for (form, mutated), n in sorted(collections.Counter((t["form"], t["mutated"]) for t in tasks).items()):
        print(f"  {form:<7} {'mutated' if mutated else 'original':<9} {n}")
    print("\nkinds:", dict(collections.Counter(t["kind"] for t in tasks)))
    values = collections.Counter(json.loads(t["value_json"])["t"] for t in tasks if t["form"] == "value")
    print("values (value form, top-level type):", dict(values))
    reasons = collections.Counter((v["reason"] or "valid").split(":")[0] for v in valid.values())
    print("validation:", dict(reasons))
    rec = {t["group_id"]: t["record_seconds"] for t in tasks if "record_seconds" in t}
    if rec:
        print(f"recording one assertion: median {statistics.median(rec.values()):.2f} s, "
              f"p90 {quantile(rec.values(), 0.9):.2f} s ({len(rec)} assertions)")
    caps = [v["original_seconds"] for v in valid.values() if v["original_seconds"]]
    if caps:
        print(f"one validation capture run: median {statistics.median(caps):.2f} s, p90 {quantile(caps, 0.9):.2f} s")
    by_id = {t["task_id"]: t for t in tasks}
    runs = os.path.join(d, "runs")
    for run in ("oracle", "null", "memorized"):
        rows = table(os.path.join(runs, run), "executions")
        rows = [r for r in rows if r["task_id"] in by_id and valid.get(r["task_id"], {}).get("valid")]
        if not rows:
            continue
        c = collections.Counter((by_id[r["task_id"]]["mutated"], r["status"] == "pass") for r in rows)
        o = (c[(False, True)], c[(False, True)] + c[(False, False)])
        m = (c[(True, True)], c[(True, True)] + c[(True, False)])
        print(f"run {run:<9}: original {o[0]}/{o[1]} ({pct(*o)}), mutated {m[0]}/{m[1]} ({pct(*m)})")


if __name__ == "__main__":
    main()
