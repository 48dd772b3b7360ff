#!/usr/bin/env bash
# Runs one stage of the make pipeline and appends its wall time to a TSV file.
#   scripts/timed.sh FILE STAGE [--ok N] -- COMMAND...
# FILE gets "date<TAB>stage<TAB>seconds<TAB>exit code". An exit code up to N (default 0)
# counts as success (crawl exits 1 when a source could not be fetched: its row says why).
set -uo pipefail
file=$1 stage=$2
shift 2
ok=0
if [ "${1:-}" = "--ok" ]; then ok=$2; shift 2; fi
[ "${1:-}" = "--" ] && shift
mkdir -p "$(dirname "$file")"
[ -f "$file" ] || printf 'date\tstage\tseconds\texit\n' > "$file"
echo "== $stage: $*" >&2
start=$(date +%s.%N)
"$@"
code=$?
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
printf '%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$stage" "$secs" "$code" >> "$file"
echo "== $stage: ${secs} s (exit $code)" >&2
[ "$code" -le "$ok" ] || exit "$code"
exit 0
