#!/usr/bin/env bash
# make bench, resolve part: resolve's throughput on a corpus of >20 MB of real Python,
# beside the standard `ast` module doing the same extraction in the same run.
# resolve is timed as a whole command (reading files.parquet, parsing, resolving, writing
# three tables); the ast baseline only for its parsing and extraction, after its read.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-data/bench}
runs=${RUNS:-3}
py=.tools/venv/bin/python
mkdir -p "$dir"
if [ ! -f "$dir/files.parquet" ]; then
  echo "bench: crawling the corpus (pipelines/sources/bench-corpus.toml) into $dir" >&2
  target/release/crawl -q --data "$dir" --sources pipelines/sources/bench-corpus.toml --cache .cache/sdists
fi
best() { sort -g | head -1; }
# Wall seconds of a command, with millisecond resolution (no bc needed).
time_cmd() { local s e; s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N); printf '%d.%03d\n' $(((e - s) / 1000000000)) $(((e - s) / 1000000 % 1000)); }

for jobs in 1 2; do
  for _ in $(seq "$runs"); do time_cmd target/release/resolve -q --jobs "$jobs" --data "$dir"; done | best > "$dir/.resolve-$jobs.s"
done
for _ in $(seq "$runs"); do "$py" pipelines/bench/ast_baseline.py "$dir/files.parquet"; done > "$dir/.ast.jsonl"

"$py" - "$dir" <<'PY'
import json, sys, pyarrow.parquet as pq
d = sys.argv[1]
runs = [json.loads(l) for l in open(f"{d}/.ast.jsonl")]
ast = min(runs, key=lambda r: r["seconds"])
mb = ast["bytes"] / 1e6
functions = pq.read_metadata(f"{d}/functions.parquet").num_rows
refs = pq.read_metadata(f"{d}/references.parquet").num_rows
print(f"resolve benchmark: {ast['files']} files, {mb:.1f} MB of Python; "
      f"resolve found {functions} functions and {refs} references, ast {ast['functions']} functions")
print(f"| {'tool':<28} | {'seconds':>8} | {'MB/s':>7} | {'functions/s':>11} | {'vs ast':>6} |")
print(f"|{'-'*30}|{'-'*10}|{'-'*9}|{'-'*13}|{'-'*8}|")
print(f"| {'python ast (1 core)':<28} | {ast['seconds']:8.2f} | {mb/ast['seconds']:7.2f} | {ast['functions']/ast['seconds']:11.0f} | {1:6.2f} |")
p = ast['parse_only_seconds']
print(f"| {'  ast.parse alone (floor)':<28} | {p:8.2f} | {mb/p:7.2f} | {'':>11} | {ast['seconds']/p:6.2f} |")
for jobs in (1, 2):
    s = float(open(f"{d}/.resolve-{jobs}.s").read())
    print(f"| {'resolve --jobs ' + str(jobs) + ' (whole run)':<28} | {s:8.2f} | {mb/s:7.2f} | {functions/s:11.0f} | {ast['seconds']/s:6.2f} |")
PY
