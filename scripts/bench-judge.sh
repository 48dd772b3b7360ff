#!/usr/bin/env bash
# make bench, completion judge part: the time to judge one answer with the tests that execute
# its span (what execute does) against running the repository's whole suite for each answer
# (`execute --whole-suite`, the way of benchmarks that never ask which tests run the span),
# on the same answers (the oracle's: every one passes), in the same run.
#   scripts/bench-judge.sh [DATA]   DATA: a dataset with validated completion tasks (default
#                                   data/real after `make real-tests` and mask; validated here
#                                   if needed). LIMIT answers (default 40).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-data/real}
BIN=${BIN:-target/release}
PY=${PY:-.tools/venv/bin/python}
limit=${LIMIT:-40}
if [ ! -f "$data/completion_tasks.parquet" ]; then
  echo "bench-judge: $data has no completion tasks; run 'make real-tests' then '$BIN/mask --data $data' (or pass a dataset)" >&2
  exit 2
fi
[ -f "$data/validations.parquet" ] || "$BIN/execute" -q --data "$data" --validate || true
for run in bench-judge bench-suite; do
  "$BIN/solve" -q --data "$data" --run "$run" --model oracle --family completion --limit "$limit" --force
done
"$BIN/execute" -q --data "$data" --run bench-judge --force
"$BIN/execute" -q --data "$data" --run bench-suite --force --whole-suite
"$PY" - "$data" <<'PY'
import sys
import pyarrow.parquet as pq

data = sys.argv[1]
def seconds(run):
    t = pq.read_table(f"{data}/runs/{run}/executions.parquet").to_pylist()
    return {(r["task_id"], r["sample"]): r for r in t}
judge, suite = seconds("bench-judge"), seconds("bench-suite")
keys = sorted(set(judge) & set(suite))
if not keys:
    sys.exit("bench-judge: no answer was judged both ways")
def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * (len(xs) - 1) + 0.5))]
j = [judge[k]["seconds"] for k in keys]
s = [suite[k]["seconds"] for k in keys]
agree = sum(judge[k]["status"] == suite[k]["status"] for k in keys)
print(f"completion judge on {len(keys)} answers of {data}:")
print(f"  judge tests  median {q(j, .5):7.2f} s  p90 {q(j, .9):7.2f} s  total {sum(j):8.1f} s")
print(f"  whole suite  median {q(s, .5):7.2f} s  p90 {q(s, .9):7.2f} s  total {sum(s):8.1f} s")
print(f"  ratio (whole suite / judge tests): median {q(s, .5) / max(q(j, .5), 1e-9):.1f}x, total {sum(s) / max(sum(j), 1e-9):.1f}x")
print(f"  same verdict both ways: {agree} of {len(keys)}")
PY
