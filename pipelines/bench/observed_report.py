"""scripts/bench-synth.sh's comparison of synthesize-tests with and without the seeds observed
in the repositories' own tests (`observed_calls`), on the same functions and call budget,
printed as Markdown.

Reads two scratch datasets that differ only by `--no-observed`: their `function_tasks` and
`test_cases`, and the `observed_calls` both were given. A function counts when both runs
could call it (`arcs_total > 0`). "Gains a usable input only from observed calls": the run
without seeds kept no test case for it, the run with seeds kept at least one."""

import argparse
import statistics

import pyarrow.parquet as pq


def read(path, columns):
    try:
        return pq.read_table(path, columns=columns).to_pylist()
    except FileNotFoundError:
        return []


def tasks(d):
    rows = read(f"{d}/function_tasks.parquet",
                ["task_id", "function_id", "arcs_covered", "arcs_total", "cases", "search_seconds"])
    return {r["function_id"]: r for r in rows}


def cases(d):
    out = {}
    for c in read(f"{d}/test_cases.parquet", ["task_id", "from_observed"]):
        n, k = out.get(c["task_id"], (0, 0))
        out[c["task_id"]] = (n + 1, k + int(bool(c["from_observed"])))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--with", dest="with_", required=True, help="the run with observed seeds")
    ap.add_argument("--without", required=True, help="the run with --no-observed")
    ap.add_argument("--title", default="held-out projects")
    ap.add_argument("--seeded", nargs="*", default=[], metavar="SEED=DIR",
                    help="runs with observed seeds and another --seed, for the spread of chance")
    a = ap.parse_args()
    w, wo = tasks(a.with_), tasks(a.without)
    cw = cases(a.with_)
    observed = {r["function_id"] for r in read(f"{a.with_}/observed_calls.parquet", ["function_id"])}
    both = sorted(f for f in w if f in wo and w[f]["arcs_total"] > 0 and wo[f]["arcs_total"] > 0)
    print(f"\n**With and without observed seeds ({a.title})**: {len(both)} functions, "
          f"{sum(1 for f in both if f in observed)} of them with observed calls\n")
    if not both:
        return

    def cov(t):
        return t["arcs_covered"] / t["arcs_total"]

    def full(ts):
        return sum(1 for t in ts if t["arcs_covered"] >= t["arcs_total"])

    tw, two = [w[f] for f in both], [wo[f] for f in both]
    gained = [f for f in both if wo[f]["cases"] == 0 and w[f]["cases"] > 0]
    from_obs = sum(cw.get(w[f]["task_id"], (0, 0))[1] for f in both)
    all_cases = sum(cw.get(w[f]["task_id"], (0, 0))[0] for f in both)
    rows = [
        ("", "with observed seeds", "without (--no-observed)"),
        ("share at full branch coverage", f"{100 * full(tw) / len(both):.1f}%",
         f"{100 * full(two) / len(both):.1f}%"),
        ("functions at full coverage", str(full(tw)), str(full(two))),
        ("mean arc coverage", f"{100 * statistics.mean(map(cov, tw)):.1f}%",
         f"{100 * statistics.mean(map(cov, two)):.1f}%"),
        ("higher / equal / lower", "{} / {} / {}".format(
            sum(1 for x, y in zip(tw, two) if cov(x) > cov(y) + 1e-12),
            sum(1 for x, y in zip(tw, two) if abs(cov(x) - cov(y)) <= 1e-12),
            sum(1 for x, y in zip(tw, two) if cov(x) + 1e-12 < cov(y))), ""),
        ("median seconds per function", f"{statistics.median(t['search_seconds'] for t in tw):.3f}",
         f"{statistics.median(t['search_seconds'] for t in two):.3f}"),
        ("functions with a usable input only from observed calls", str(len(gained)), ""),
        ("test cases from observed calls (of all kept)", f"{from_obs} of {all_cases}", ""),
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for i, r in enumerate(rows):
        print("| " + " | ".join(c.ljust(wd) for c, wd in zip(r, widths)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (wd + 2) for wd in widths) + "|")
    if a.seeded:
        # The same functions, searched again with other random seeds: how much of a figure
        # is chance. A function missing from a run counts as not at full coverage.
        shares, arcs = [full(tw) / len(both)], [statistics.mean(map(cov, tw))]
        parts = []
        for spec in a.seeded:
            seed, d = spec.split("=", 1)
            ts = tasks(d)
            got = [ts[f] for f in both if f in ts and ts[f]["arcs_total"] > 0]
            n_full = full(got)
            shares.append(n_full / len(both))
            arcs.append(sum(map(cov, got)) / len(both))
            parts.append(f"--seed {seed}: {n_full} ({100 * n_full / len(both):.1f}%)")
        print(f"\n- with observed seeds, other random seeds: {'; '.join(parts)}. Share at full "
              f"coverage over all {len(shares)} runs: min {100 * min(shares):.1f}%, mean "
              f"{100 * statistics.mean(shares):.1f}%, max {100 * max(shares):.1f}%; mean arc "
              f"coverage min {100 * min(arcs):.1f}%, max {100 * max(arcs):.1f}%")


if __name__ == "__main__":
    main()
