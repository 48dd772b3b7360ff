#!/usr/bin/env bash
# make bench, code-age part: what dating every function by its code costs. The bench
# corpus is crawled and resolved twice in the same run: without a cutoff (no earlier
# release fetched, nothing compared) and with one (the last release before it fetched,
# its files compared with the crawled ones, and resolve hashing their functions). The
# difference is the cost of code age, reported as a share of crawl plus resolve with it.
# Each figure is the best of RUNS runs on a warm download cache; the extra downloads are
# reported in bytes (network time is not a property of freshbench) and, once, cold.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-data/bench}/code-age
runs=${RUNS:-3}
# Before both releases of the corpus: each one's baseline is the release before it.
cutoff=${CUTOFF:-2025-04-26}
py=.tools/venv/bin/python
cache="$dir/cache"
mkdir -p "$cache"
best() { sort -g | head -1; }
time_cmd() { local s e; s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N); printf '%d.%03d\n' $(((e - s) / 1000000000)) $(((e - s) / 1000000 % 1000)); }
cold=$(find "$cache" -type f | wc -l)

crawl_plain() { target/release/crawl -q --data "$dir/plain" --sources pipelines/sources/bench-corpus.toml --cache "$cache"; }
crawl_age() { target/release/crawl -q --data "$dir/age" --since "$cutoff" --sources pipelines/sources/bench-corpus.toml --cache "$cache"; }

time_cmd crawl_plain > "$dir/.first-plain.s"
time_cmd crawl_age > "$dir/.first-age.s"
for kind in plain age; do
  for _ in $(seq "$runs"); do time_cmd "crawl_$kind"; done | best > "$dir/.crawl-$kind.s"
  for _ in $(seq "$runs"); do time_cmd target/release/resolve -q --data "$dir/$kind"; done | best > "$dir/.resolve-$kind.s"
done

"$py" - "$dir" "$cutoff" "$cache" "$cold" <<'PY'
import os, sys, pyarrow.parquet as pq
d, cutoff, cache, cold = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "0"
s = lambda name: float(open(f"{d}/.{name}.s").read())
snaps = pq.read_table(f"{d}/age/snapshots.parquet").to_pylist()
hist = pq.read_metadata(f"{d}/age/history_files.parquet").num_rows
fns = pq.read_table(f"{d}/age/functions.parquet", columns=["after_cutoff"]).column(0).to_pylist()
fetched = ", ".join(f"{r['version']} ({r['status']})" for r in snaps)
print(f"code age on the bench corpus, cutoff {cutoff}: baselines {fetched}; "
      f"{hist} earlier files; {sum(1 for f in fns if f)} of {len(fns)} functions after the cutoff by code")
print(f"| {'step':<22} | {'without':>8} | {'with':>8} | {'cost':>8} |")
print(f"|{'-'*24}|{'-'*10}|{'-'*10}|{'-'*10}|")
rows = [("crawl (warm cache)", s("crawl-plain"), s("crawl-age")),
        ("resolve", s("resolve-plain"), s("resolve-age"))]
for name, a, b in rows:
    print(f"| {name:<22} | {a:8.2f} | {b:8.2f} | {b - a:8.2f} |")
without = sum(r[1] for r in rows)
with_ = sum(r[2] for r in rows)
print(f"| {'crawl + resolve':<22} | {without:8.2f} | {with_:8.2f} | {with_ - without:8.2f} |")
print(f"code age's share of crawl + resolve: {(with_ - without) / with_:.1%} "
      f"(with it {with_ / without:.2f}x the time without)")
# The cache holds the crawled archives and the baselines' (named by their sha256).
size = lambda name: os.path.getsize(os.path.join(cache, name))
extra = sum(size(r["sha256"]) for r in snaps if r["sha256"] and os.path.exists(os.path.join(cache, r["sha256"])))
total = sum(size(n) for n in os.listdir(cache))
print(f"extra downloads: {extra / 1e6:.1f} MB of archives beside {(total - extra) / 1e6:.1f} MB "
      f"({extra / max(total - extra, 1):.2f}x)")
if cold:
    print(f"first runs, downloads included: crawl {s('first-plain'):.1f} s without, "
          f"{s('first-age'):.1f} s with (network time, once)")
else:
    print(f"(the cache {cache} was warm: remove it for first-run figures with downloads)")
PY
