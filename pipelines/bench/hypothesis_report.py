"""The table of scripts/bench-synth.sh: synthesize-tests' coverage search (function_tasks)
beside the Hypothesis baseline's results (hypothesis_baseline.py's JSON lines), function by
function, printed as Markdown.

Functions compared: the tasks freshbench could call (`arcs_total > 0`), less those rejected
as `nondeterministic` (synthesize-tests records no coverage for them). Two Hypothesis
columns: its arcs counted the way synthesize-tests counts its own (only the calls it would
keep as test cases: returned, or raised an exception that is not an accidental TypeError,
AttributeError, ... unless the function raises it itself), and every call's arcs."""

import argparse
import json
import statistics
from collections import Counter

import pyarrow.parquet as pq


def pct(x):
    return f"{100 * x:.1f}%"


def secs(x):
    return f"{x:.2f}"


def annotated(params):
    """Every parameter that a call fills (all but **kwargs) has an annotation."""
    return all(p.get("annotation") for p in params if p["kind"] != "var_keyword")


def table(rows, title):
    n = len(rows)
    print(f"\n**{title}**: {n} functions\n")
    if not n:
        return
    fb = [r["fb"] for r in rows]
    hu = [r["hyp_usable"] for r in rows]
    ha = [r["hyp_all"] for r in rows]
    fb_t = [r["fb_seconds"] for r in rows]
    hy_t = [r["hyp_seconds"] for r in rows]

    def vs(other):
        higher = sum(1 for a, b in zip(fb, other) if a > b + 1e-12)
        lower = sum(1 for a, b in zip(fb, other) if a + 1e-12 < b)
        return f"{higher} / {n - higher - lower} / {lower}"

    full = lambda xs: sum(1 for x in xs if x >= 1 - 1e-12)  # noqa: E731
    fb_total, hy_total = sum(fb_t), sum(hy_t)
    fb_med, hy_med = statistics.median(fb_t), statistics.median(hy_t)
    lines = [
        ("", "freshbench", "Hypothesis, calls counted as freshbench's", "Hypothesis, every call"),
        ("mean arc coverage", pct(statistics.mean(fb)), pct(statistics.mean(hu)),
         pct(statistics.mean(ha))),
        ("functions at full coverage", str(full(fb)), str(full(hu)), str(full(ha))),
        ("freshbench higher / equal / lower", "", vs(hu), vs(ha)),
        ("calls (mean per function)", f"{statistics.mean(r['fb_calls'] for r in rows):.0f}",
         f"{statistics.mean(r['hyp_examples'] for r in rows):.0f}", "(same run)"),
        ("total seconds", secs(fb_total), secs(hy_total), "(same run)"),
        ("median seconds per function", f"{fb_med:.3f}", f"{hy_med:.3f}", "(same run)"),
        ("time against freshbench (total; median)", "1.00; 1.00",
         f"{hy_total / fb_total:.2f}; {hy_med / fb_med:.2f}" if fb_total and fb_med else "n/a",
         "(same run)"),
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(4)]
    for i, line in enumerate(lines):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--build", default="?")
    ap.add_argument("--calls", default="?")
    ap.add_argument("--jobs", default="?")
    ap.add_argument("--freshbench-wall", type=float)
    ap.add_argument("--hypothesis-wall", type=float)
    ap.add_argument("--show", type=int, default=15, help="functions listed where Hypothesis wins")
    ap.add_argument("--figures-only", action="store_true",
                    help="name no function (a held-out corpus: its figures are read, its "
                         "functions are not looked at)")
    args = ap.parse_args()

    tasks = pq.read_table(f"{args.data}/function_tasks.parquet").to_pylist()
    params = {r["function_id"]: r["params"] for r in pq.read_table(
        f"{args.data}/functions.parquet", columns=["function_id", "params"]).to_pylist()}
    repo_names = {r["repo_id"]: r["name"] for r in pq.read_table(
        f"{args.data}/repos.parquet", columns=["repo_id", "name"]).to_pylist()}
    hyp = {}
    with open(args.baseline, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            hyp[r["function_id"]] = r

    callable_ = [t for t in tasks if t["arcs_total"] > 0]
    nondet = [t for t in callable_ if (t["reason"] or "").startswith("nondeterministic")]
    missing = [t for t in callable_ if t["function_id"] not in hyp]
    rows, total_mismatch = [], []
    for t in callable_:
        if t in nondet or t in missing:
            continue
        h = hyp[t["function_id"]]
        total = t["arcs_total"]
        if h.get("arcs_total") not in (None, total):
            total_mismatch.append((t["entry_point"], total, h["arcs_total"]))
        rows.append({
            "task": t, "hyp": h,
            "fb": t["arcs_covered"] / total,
            "hyp_usable": min(h["arcs_covered_usable"], total) / total,
            "hyp_all": min(h["arcs_covered"], total) / total,
            "fb_seconds": t["search_seconds"], "hyp_seconds": h["seconds"],
            "fb_calls": t["calls"], "hyp_examples": h["examples"],
            "annotated": annotated(params.get(t["function_id"], [])),
        })

    print("## synthesize-tests against Hypothesis (st.from_type), same functions\n")
    print(f"- binaries: {args.build}; call budget {args.calls} per function "
          f"(Hypothesis: max_examples, no shrinking); {args.jobs} functions at a time on each side")
    if args.freshbench_wall is not None and args.hypothesis_wall is not None:
        print(f"- whole commands, wall clock: synthesize-tests {args.freshbench_wall:.1f}s "
              f"({len(tasks)} candidates), Hypothesis baseline {args.hypothesis_wall:.1f}s "
              f"({len(hyp)} functions, a python process each)")
    names = (lambda ts: "names not shown") if args.figures_only else (
        lambda ts: ", ".join(t["entry_point"] for t in ts))
    print(f"- tasks: {len(tasks)}; freshbench could call {len(callable_)} (`arcs_total > 0`); "
          f"compared {len(rows)}" +
          (f"; left out: {len(nondet)} rejected as nondeterministic (no coverage recorded: "
           + names(nondet) + ")" if nondet else "") +
          (f"; {len(missing)} without a baseline result" if missing else ""))
    print("- seconds per function: freshbench `search_seconds` (its coverage search, sandbox "
          "and worker round trips included); Hypothesis the whole `@given` run in its process "
          "(strategy building, generation, calls, coverage; interpreter start and the module's "
          "import excluded)")

    table(rows, "All functions compared")
    table([r for r in rows if r["annotated"]], "Functions whose parameters are all annotated")

    print("\n**Notes**\n")
    fb_stops = Counter(r["task"]["stop"] for r in rows)
    hy_stops = Counter(r["hyp"].get("stop") or "?" for r in rows)
    print("- freshbench stopped on: " + ", ".join(f"{k} {v}" for k, v in fb_stops.most_common()))
    print("- Hypothesis stopped on: " + ", ".join(f"{k} {v}" for k, v in hy_stops.most_common()))
    errors = Counter()
    for r in rows:
        e = r["hyp"].get("error")
        if e:
            errors[e.split(":")[0] + ": " + e.split(":")[1].strip() if ":" in e else e] += 1
    if errors:
        print("- Hypothesis errors (function counted with what it covered before): " +
              ", ".join(f"{k} x{v}" for k, v in errors.most_common(8)))
    any_unevaluated = sum(1 for r in rows if r["hyp"].get("unevaluated"))
    if any_unevaluated:
        print(f"- {any_unevaluated} functions had an annotation that did not evaluate "
              "(drawn from st.from_type(object) instead)")
    if total_mismatch:
        print(f"- static arcs differ between the two measures for {len(total_mismatch)} "
              f"functions" + ("" if args.figures_only else f": {total_mismatch[:5]}"))
    fb_status = Counter(r["task"]["status"] + ("" if r["task"]["status"] == "ok" else
                                               ":" + (r["task"]["reason"] or "").split(":")[0])
                        for r in rows)
    print("- freshbench task status: " + ", ".join(f"{k} {v}" for k, v in fb_status.most_common()))

    wins = sorted((r for r in rows if r["hyp_usable"] > r["fb"] + 1e-12),
                  key=lambda r: r["fb"] - r["hyp_usable"])
    if wins and args.figures_only:
        print(f"\n**Where Hypothesis covers more**: {len(wins)} functions (a held-out corpus: "
              "not named)")
    elif wins:
        print(f"\n**Where Hypothesis covers more** (calls counted as freshbench's; "
              f"{len(wins)} functions, {min(len(wins), args.show)} shown)\n")
        print("| function | project | freshbench | stop, calls | Hypothesis | its exceptions |")
        print("|---|---|---|---|---|---|")
        for r in wins[:args.show]:
            t, h = r["task"], r["hyp"]
            exc = ", ".join(f"{k} {v}" for k, v in Counter(h.get("exceptions") or {}).most_common(3))
            print(f"| `{t['entry_point']}` | {repo_names.get(t['repo_id'], '?')} | "
                  f"{t['arcs_covered']}/{t['arcs_total']} | {t['stop']}, {t['calls']} | "
                  f"{h['arcs_covered_usable']}/{t['arcs_total']} | {exc} |")


if __name__ == "__main__":
    main()
