"""The figures of synthesize-tests on a dataset directory, per repository and in all.

Usage: python scripts/synth-report.py DATA_DIR

Reads function_tasks, repos (and functions, for names) and prints Markdown tables: tasks,
ok, full branch and full arc coverage (of all, and of those callable with literals), median mutation score, median and 90th-percentile seconds per
function; the held-out mutation score; then every reason a function fell short, counted,
with examples.
"""

import collections
import statistics
import sys

import pyarrow.parquet as pq


def pct(n, d):
    return f"{100.0 * n / d:.1f}%" if d else "-"


def quantile(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    i = min(len(v) - 1, max(0, int(round(q * (len(v) - 1)))))
    return v[i]


# Reasons that say the function cannot be a task with literal inputs at all (it needs an
# object, a class, a file; returns a function; does not import), as opposed to a search
# that fell short.
NOT_GENERATABLE = ("no_usable_input", "load_error", "environment", "method", "nested", "parse",
                   "no_parameters", "nondeterministic")


def main(data):
    tasks = pq.read_table(f"{data}/function_tasks.parquet").to_pylist()
    repos = {r["repo_id"]: r["name"] for r in pq.read_table(f"{data}/repos.parquet").to_pylist()}
    names = {f["function_id"]: f["qualname"] for f in
             pq.read_table(f"{data}/functions.parquet", columns=["function_id", "qualname"]).to_pylist()}
    by_repo = collections.defaultdict(list)
    for t in tasks:
        by_repo[repos.get(t["repo_id"], t["repo_id"])].append(t)

    def kind(t):
        return (t["reason"] or "").split(":")[0]

    def row(name, ts):
        full = [t for t in ts if t["arcs_total"] > 0 and t["arcs_covered"] == t["arcs_total"]]
        # Branch coverage as coverage.py counts it (branch arcs only); a function without
        # branches has it full once it has a case.
        fullb = [t for t in ts if t["arcs_total"] > 0 and t["cases"] > 0
                 and t["branches_covered"] == t["branches_total"]]
        callable_ = [t for t in ts if kind(t) not in NOT_GENERATABLE]
        full_callable = [t for t in callable_ if t in full]
        fullb_callable = [t for t in callable_ if t in fullb]
        ms = [t["mutation_score"] for t in ts if t["mutation_score"] is not None and t["status"] == "ok"]
        secs = [t["seconds"] for t in ts]
        ok = [t for t in ts if t["status"] == "ok"]
        return (f"| {name} | {len(ts)} | {len(ok)} | {len(fullb)} ({pct(len(fullb), len(ts))}) | "
                f"{len(fullb_callable)}/{len(callable_)} ({pct(len(fullb_callable), len(callable_))}) | "
                f"{len(full)} ({pct(len(full), len(ts))}) | "
                f"{len(full_callable)}/{len(callable_)} ({pct(len(full_callable), len(callable_))}) | "
                f"{statistics.median(ms) if ms else float('nan'):.3f} | "
                f"{statistics.median(secs) if secs else float('nan'):.2f} | {quantile(secs, 0.9):.2f} | "
                f"{sum(t['cases'] for t in ok)} |")

    print("| repo | candidates | ok | full branch coverage | full branch, of those callable with literals | "
          "full arc coverage | full arc, of those callable with literals | "
          "median mutation score (ok) | median s | p90 s | cases (ok) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in sorted(by_repo):
        print(row(name, by_repo[name]))
    print(row("**all**", tasks))
    ms_all = [t["mutation_score"] for t in tasks if t["mutation_score"] is not None]
    if ms_all:
        print(f"\nmedian mutation score over every task with mutants: {statistics.median(ms_all):.3f} "
              f"(mean {statistics.mean(ms_all):.3f}, {len(ms_all)} tasks)")
    for label, rows in (("every task", tasks), ("ok tasks", [t for t in tasks if t["status"] == "ok"])):
        held = [t["held_out_mutation_score"] for t in rows if t.get("held_out_mutation_score") is not None]
        if held:
            print(f"held-out mutation score (mutants the cases were not completed for), {label}: "
                  f"median {statistics.median(held):.3f}, mean {statistics.mean(held):.3f} ({len(held)} tasks)")

    print("\nWhy functions fell short of a task or of full coverage (a function may have two reasons):\n")
    reasons = collections.Counter()
    examples = collections.defaultdict(list)
    for t in tasks:
        if not t["reason"]:
            continue
        for part in t["reason"].split("; "):
            k = part.split(":")[0]
            detail = part.split(":", 1)[1].strip() if ":" in part else ""
            # The family of a discard: the commonest cause named in the detail.
            if k == "no_usable_input" and "(" in detail:
                k = f"{k} ({detail.split('(', 1)[1].split(' x')[0]})"
            reasons[k] += 1
            if len(examples[k]) < 3:
                examples[k].append(f"{repos.get(t['repo_id'], '?')}:{names.get(t['function_id'], '?')}")
    print("| reason | functions | examples |")
    print("|---|---|---|")
    for k, n in reasons.most_common():
        print(f"| {k} | {n} | {', '.join(examples[k])} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
