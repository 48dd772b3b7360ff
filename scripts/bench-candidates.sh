#!/usr/bin/env bash
# make bench, execute part: a run's candidates executed through the sandbox (one persistent
# worker, judged in Rust) against a fresh python3 per candidate, in the same run.
#   scripts/bench-candidates.sh [DATA]   DATA: a dataset with function tasks (default data/synth;
#                                        made by `make real-synth`), validated here if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-data/synth}
BIN=${BIN:-target/release}
if [ ! -f "$data/function_tasks.parquet" ]; then
  echo "bench-candidates: $data has no function tasks; run 'make real-synth' (or pass a dataset)" >&2
  exit 2
fi
[ -f "$data/validations.parquet" ] || "$BIN/execute" -q --data "$data" --validate
# The mutant solver's answers: a mix of passes and failures, like a model's.
"$BIN/solve" -q --data "$data" --run bench-mutant --model mutant
"$BIN/candidates-bench" --data "$data" --run bench-mutant --limit "${LIMIT:-300}"
