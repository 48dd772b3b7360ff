#!/usr/bin/env bash
# make bench, synthesize-tests part: freshbench's coverage-guided search against Hypothesis
# generating from the same annotations (st.from_type), on the same functions, with the same
# call budget and the same branch-coverage measure, in the same run.
#
#   scripts/bench-synth.sh [DATA]        DATA: a dataset with functions, classifications and
#                                        references (default data/synth; built from
#                                        pipelines/sources/synth-2026q4.toml when missing)
# Environment:
#   CALLS=200   calls (Hypothesis: examples) per function
#   JOBS=2      functions run in parallel, by each side
#   LIMIT=N     only the first N candidate functions (by function_id)
#   REPOS="a b" only the candidate functions of these projects (repos.name)
#   BIN=DIR     the stage binaries (default target/release when it has synthesize-tests,
#               else target/debug)
#   KEEP=1      keep the scratch dataset (its path is printed)
#   HELD_OUT=1  a held-out corpus: the report gives figures and names no function
#   SEEDS="1 2" the run with observed seeds again with each --seed, for the spread that
#               chance gives the figures (with observed_calls only)
#
# When DATA has `observed_calls` (execute --repo-tests recorded the arguments the projects'
# own tests call their functions with), synthesize-tests runs twice, with those seeds and
# with --no-observed, and both are compared with Hypothesis and with each other
# (pipelines/bench/observed_report.py).
#
# The dataset is copied to a scratch folder: the run never touches DATA, and a task made
# before (same options) is never reused.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-data/synth}
calls=${CALLS:-200}
jobs=${JOBS:-2}
limit=${LIMIT:-}
report_opts=()
if [ -n "${HELD_OUT:-}" ]; then report_opts=(--figures-only); fi
repos=${REPOS:-}
py=.tools/venv/bin/python
if [ -z "${BIN:-}" ]; then
  if [ -x target/release/synthesize-tests ]; then BIN=target/release; else BIN=target/debug; fi
fi
for b in synthesize-tests crawl resolve classify; do
  if [ ! -x "$BIN/$b" ] && { [ "$b" = synthesize-tests ] || [ ! -f "$data/classifications.parquet" ]; }; then
    echo "bench-synth: $BIN/$b is missing: build it (cargo build -p $b --bins, --release for target/release)" >&2
    exit 2
  fi
done
case "$BIN" in
  *release*) build=release ;;
  *debug*) build=debug ;;
  *) build="$BIN" ;;
esac

if [ ! -f "$data/classifications.parquet" ]; then
  echo "bench-synth: building $data from pipelines/sources/synth-2026q4.toml (network)" >&2
  mkdir -p "$data"
  set +e
  "$BIN/crawl" -q --data "$data" --sources pipelines/sources/synth-2026q4.toml --cache .cache/sdists
  rc=$?
  set -e
  [ "$rc" -le 1 ] || exit "$rc"  # 1: some project failed, the others are there
  "$BIN/resolve" -q --data "$data"
  "$BIN/classify" -q --data "$data"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-bench-synth.XXXXXX")
if [ "${KEEP:-}" = 1 ]; then
  echo "bench-synth: scratch dataset kept in $tmp" >&2
else
  trap 'rm -rf "$tmp"' EXIT
fi
for t in "$data"/*.parquet; do
  case "$(basename "$t")" in
    function_tasks.parquet | test_cases.parquet) ;;  # results of an earlier run: not reused
    *) cp "$t" "$tmp/" ;;
  esac
done

# The selection (LIMIT, REPOS): the same functions for both sides, as --function ids.
select_args=()
if [ -n "$limit" ] || [ -n "$repos" ]; then
  mapfile -t ids < <("$py" - "$tmp" "$limit" "$repos" <<'PY'
import sys, pyarrow.parquet as pq
d, limit, repos = sys.argv[1], sys.argv[2], sys.argv[3].split()
names = {r["repo_id"]: r["name"] for r in pq.read_table(f"{d}/repos.parquet", columns=["repo_id", "name"]).to_pylist()}
rows = pq.read_table(f"{d}/classifications.parquet", columns=["function_id", "repo_id", "class"]).to_pylist()
ids = sorted(r["function_id"] for r in rows
             if r["class"] in ("self_contained", "weakly_self_contained")
             and (not repos or names.get(r["repo_id"]) in repos))
print("\n".join(ids[:int(limit)] if limit else ids))
PY
)
  if [ "${#ids[@]}" -eq 0 ]; then
    echo "bench-synth: no candidate function selected (LIMIT=$limit REPOS=$repos)" >&2
    exit 2
  fi
  for id in "${ids[@]}"; do select_args+=(--function "$id"); done
  echo "bench-synth: ${#ids[@]} candidate functions selected (LIMIT=$limit REPOS=$repos)" >&2
fi

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
# The binary is copied first: a rebuild during the run changes neither it nor the label.
cp "$BIN/synthesize-tests" "$tmp/.synthesize-tests"
label="$build ($BIN/synthesize-tests, built $(date -r "$BIN/synthesize-tests" '+%Y-%m-%d %H:%M'), sha256 $(sha256sum "$tmp/.synthesize-tests" | cut -c1-12))"
now() { date +%s%N; }
secs() { printf '%d.%03d' $((($2 - $1) / 1000000000)) $((($2 - $1) / 1000000 % 1000)); }

echo "bench-synth: synthesize-tests ($build build, --calls $calls --mutants 0 --jobs $jobs)" >&2
s=$(now)
# The same limits on both sides: seconds per call and per function's search.
"$tmp/.synthesize-tests" -q --data "$tmp" --calls "$calls" --mutants 0 --jobs "$jobs" \
  --call-timeout 5 --seconds 20 \
  ${select_args[@]+"${select_args[@]}"} > "$tmp/.synth.log" 2>&1 || {
  cat "$tmp/.synth.log" >&2
  exit 1
}
fb_wall=$(secs "$s" "$(now)")

observed=""
if [ -f "$tmp/observed_calls.parquet" ]; then
  observed=1
  mkdir -p "$tmp/without"
  for t in "$tmp"/*.parquet; do
    case "$(basename "$t")" in
      function_tasks.parquet | test_cases.parquet) ;;
      *) cp "$t" "$tmp/without/" ;;
    esac
  done
  echo "bench-synth: synthesize-tests again with --no-observed (the same functions and budget)" >&2
  s=$(now)
  "$tmp/.synthesize-tests" -q --data "$tmp/without" --calls "$calls" --mutants 0 --jobs "$jobs" \
    --call-timeout 5 --seconds 20 --no-observed \
    ${select_args[@]+"${select_args[@]}"} > "$tmp/.synth-without.log" 2>&1 || {
    cat "$tmp/.synth-without.log" >&2
    exit 1
  }
  fb_without_wall=$(secs "$s" "$(now)")
  seeded=()
  for seed in ${SEEDS:-}; do
    mkdir -p "$tmp/seed-$seed"
    for t in "$tmp"/without/*.parquet; do
      case "$(basename "$t")" in
        function_tasks.parquet | test_cases.parquet) ;;
        *) cp "$t" "$tmp/seed-$seed/" ;;
      esac
    done
    echo "bench-synth: synthesize-tests again with --seed $seed" >&2
    "$tmp/.synthesize-tests" -q --data "$tmp/seed-$seed" --calls "$calls" --mutants 0 --jobs "$jobs" \
      --call-timeout 5 --seconds 20 --seed "$seed" \
      ${select_args[@]+"${select_args[@]}"} > "$tmp/.synth-seed-$seed.log" 2>&1 || {
      cat "$tmp/.synth-seed-$seed.log" >&2
      exit 1
    }
    seeded+=("$seed=$tmp/seed-$seed")
  done
fi

echo "bench-synth: Hypothesis baseline (max_examples=$calls, --jobs $jobs)" >&2
s=$(now)
"$py" pipelines/bench/hypothesis_baseline.py --data "$tmp" --calls "$calls" --jobs "$jobs" \
  --call-timeout 5 \
  --out "$tmp/hypothesis.jsonl"
hyp_wall=$(secs "$s" "$(now)")

"$py" pipelines/bench/hypothesis_report.py --data "$tmp" --baseline "$tmp/hypothesis.jsonl" \
  --build "$label" --calls "$calls" --jobs "$jobs" \
  --freshbench-wall "$fb_wall" --hypothesis-wall "$hyp_wall" "${report_opts[@]}"
if [ -n "$observed" ]; then
  echo
  echo "## The same without the observed seeds (--no-observed)"
  # The baseline's rows are keyed by function: the same Hypothesis run serves both.
  "$py" pipelines/bench/hypothesis_report.py --data "$tmp/without" --baseline "$tmp/hypothesis.jsonl" \
    --build "$label, --no-observed" --calls "$calls" --jobs "$jobs" \
    --freshbench-wall "$fb_without_wall" --hypothesis-wall "$hyp_wall" "${report_opts[@]}"
  "$py" pipelines/bench/observed_report.py --with "$tmp" --without "$tmp/without" \
    --title "$(basename "$data")" ${seeded[@]+--seeded "${seeded[@]}"}
fi
# Other work on the machine slows both sides, not necessarily alike.
echo
echo "- load average (1, 5, 15 min) at the start: $load_start; at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
