#!/usr/bin/env python3
"""Figures of a dataset's slices (`slice --data DIR`, after `execute --validate`):

    python scripts/slice-report.py data/real

Per family: valid tasks, tasks with an `ok` slice (the share, goal >= 98%), the other
statuses with a reason each; the distribution of ESV, MCL, DFI and depth (min, quartiles,
p90, max); Spearman's rho between the three figures (they should not be one figure three
times); and the slicing cost per task: seconds of the traced runs (median, p90) and the
ratio to the same runs without the tracer, measured in the same worker just before
(median, p90, and the ratio of the totals).
"""

import collections
import statistics
import sys

from tables import table

def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    i = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[i]


def ranks(xs):
    """Average ranks (ties share the mean of their positions)."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(a, b):
    if len(a) < 3:
        return None
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return None if den == 0 else num / den


def dist(xs):
    if not xs:
        return "-"
    return "min %g  q1 %g  median %g  q3 %g  p90 %g  max %g" % (
        min(xs), quantile(xs, 0.25), quantile(xs, 0.5), quantile(xs, 0.75), quantile(xs, 0.9),
        max(xs))


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    d = argv[1]
    slices = table(d, "slices")
    if not slices:
        print(f"{d}: no slices.parquet (run `slice --data {d}` first)", file=sys.stderr)
        return 2
    valid = {v["task_id"]: v["family"] for v in table(d, "validations") if v["valid"]}
    by_id = {s["task_id"]: s for s in slices}
    families = sorted(set(valid.values()), key=["function", "completion", "assertion"].index)
    worst = 100.0
    for fam in families:
        ids = [t for t, f in valid.items() if f == fam]
        rows = [by_id[t] for t in ids if t in by_id]
        ok = [r for r in rows if r["status"] == "ok"]
        share = 100.0 * len(ok) / len(ids) if ids else 0.0
        worst = min(worst, share)
        print(f"== {fam}: {len(ids)} valid tasks, {len(rows)} with a row, {len(ok)} ok "
              f"({share:.1f}%)")
        reasons = collections.Counter((r["status"], (r["reason"] or "")[:90])
                                      for r in rows if r["status"] != "ok")
        for (st, why), n in reasons.most_common(8):
            print(f"   {st:<12} {n:>4}  {why}")
        if not ok:
            continue
        figs = {k: [r[k] for r in ok] for k in ("esv", "mcl", "dfi", "depth")}
        for k, xs in figs.items():
            print(f"   {k.upper():<6} {dist(xs)}")
        pairs = [("esv", "mcl"), ("esv", "dfi"), ("mcl", "dfi")]
        rhos = []
        for a, b in pairs:
            rho = spearman(figs[a], figs[b])
            rhos.append(f"{a.upper()}~{b.upper()} {'-' if rho is None else f'{rho:.2f}'}")
        print(f"   Spearman rho: {', '.join(rhos)}")
        secs = [r["trace_seconds"] for r in ok]
        ratio = [r["trace_seconds"] / max(r["plain_seconds"], 1e-6) for r in ok]
        total = sum(secs) / max(sum(r["plain_seconds"] for r in ok), 1e-9)
        print(f"   cost per task: traced {quantile(secs, 0.5):.2f} s median, "
              f"{quantile(secs, 0.9):.2f} s p90; against the same runs without the tracer "
              f"{quantile(ratio, 0.5):.2f}x median, {quantile(ratio, 0.9):.2f}x p90, "
              f"{total:.2f}x in total")
        capped = sum(1 for r in rows if r["status"] == "too_large")
        print(f"   event cap {ok[0]['event_cap']}: {capped} tasks over it")
    print(f"worst family share of valid tasks with a slice: {worst:.1f}% (goal >= 98%)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
