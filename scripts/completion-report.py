"""The figures of completion tasks on a dataset directory, per repository and per level.

Usage: python scripts/completion-report.py DATA_DIR [RUN ...]   (runs default: oracle null mutant)

Reads completion_tasks, validations, repos and the runs' executions; prints Markdown tables:
tasks and validated tasks per repository and level, the share of tasks lost at each
validation gate, the judges' mutant kill rate (median over valid tasks), the judge tests per
task and their seconds, and each run's pass rate on the valid tasks by level. Mask's own
gates (spans not executed by a passing test, leaks, caps) are in mask's summary on stderr.
"""

import collections
import os
import statistics
import sys

import pyarrow.parquet as pq

LEVELS = ("expression", "statement", "block", "function")


def pct(n, d):
    return f"{100.0 * n / d:.1f}%" if d else "-"


def rows(path):
    return pq.read_table(path).to_pylist() if os.path.exists(path) else []


def main(data, runs):
    tasks = rows(f"{data}/completion_tasks.parquet")
    if not tasks:
        sys.exit(f"completion-report: {data} has no completion tasks (run mask first)")
    repos = {r["repo_id"]: r["name"] for r in rows(f"{data}/repos.parquet")}
    vals = {v["task_id"]: v for v in rows(f"{data}/validations.parquet") if v["family"] == "completion"}
    by_id = {t["task_id"]: t for t in tasks}
    valid = {i for i, v in vals.items() if v["valid"]}

    print("## Completion tasks per repository and level (valid / masked)\n")
    print("| repository | " + " | ".join(LEVELS) + " | all | valid share |")
    print("|---|" + "---|" * (len(LEVELS) + 2))
    count = collections.Counter()
    for t in tasks:
        r = repos.get(t["repo_id"], t["repo_id"])
        ok = t["task_id"] in valid
        for key in ((r, t["span_kind"]), (r, "all"), ("all", t["span_kind"]), ("all", "all")):
            count[key + ("masked",)] += 1
            count[key + ("valid",)] += ok
    names = sorted({repos.get(t["repo_id"], t["repo_id"]) for t in tasks})
    for r in names + ["all"]:
        cells = [f"{count[(r, lv, 'valid')]} / {count[(r, lv, 'masked')]}" for lv in LEVELS + ("all",)]
        print(f"| {r} | " + " | ".join(cells) + f" | {pct(count[(r, 'all', 'valid')], count[(r, 'all', 'masked')])} |")
    n_repos = len(names)
    print(f"\nvalid tasks per repository: {count[('all', 'all', 'valid')] / max(n_repos, 1):.1f} on average over {n_repos}")

    print("\n## Where masked tasks are lost (validation gates)\n")
    reasons = collections.Counter()
    for t in tasks:
        v = vals.get(t["task_id"])
        if v is None:
            reasons["not validated"] += 1
        elif not v["valid"]:
            reasons[(v["reason"] or "?").split(":")[0]] += 1
    print("| gate | tasks | share of masked |")
    print("|---|---|---|")
    for g, n in reasons.most_common():
        print(f"| {g} | {n} | {pct(n, len(tasks))} |")

    rates = [v["mutants_killed"] / v["mutants_total"] for i, v in vals.items()
             if i in valid and v["mutants_total"]]
    judges = [len(by_id[i]["tests"]) for i in valid]
    secs = [by_id[i]["tests_seconds"] for i in valid]
    print("\n## Judges of the valid tasks\n")
    if rates:
        print(f"median mutant kill rate: {statistics.median(rates):.2f} over {len(rates)} tasks with mutants"
              f" (mean {statistics.mean(rates):.2f}; all killed on {sum(r == 1 for r in rates)})")
    if judges:
        print(f"judge tests per task: median {statistics.median(judges)}, max {max(judges)};"
              f" their seconds in repo_tests: median {statistics.median(secs):.2f}")

    print("\n## Runs on the valid tasks (pass share)\n")
    print("| run | " + " | ".join(LEVELS) + " | all |")
    print("|---|" + "---|" * (len(LEVELS) + 1))
    for run in runs:
        ex = [e for e in rows(f"{data}/runs/{run}/executions.parquet") if e["task_id"] in valid]
        if not ex:
            continue
        c = collections.Counter()
        for e in ex:
            lv = by_id[e["task_id"]]["span_kind"]
            for key in (lv, "all"):
                c[(key, "n")] += 1
                c[(key, "pass")] += e["status"] == "pass"
        print(f"| {run} | " + " | ".join(pct(c[(lv, 'pass')], c[(lv, 'n')]) for lv in LEVELS + ("all",)) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:] or ["oracle", "null", "mutant"])
