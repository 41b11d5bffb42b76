#!/usr/bin/env bash
# Measures sessions against the budget of issue 3 and prints ratios (budget = 1.0, lower is better):
#   1. `agent-hooks session list` (default 10 shown) with 10,000 sessions and their audit trails
#      in the folder, whole process included                               (budget: 100 ms)
#   2. the same in-process: BenchmarkList10000                             (budget: 100 ms)
# and, for information, what a session costs each `run`: one locked, fsynced record update
# (BenchmarkUpdate, on issue events) and one audit-trail line (BenchmarkAppend, per hook).
# Usage: bench/sessions.sh [SESSIONS=10000] [ROUNDS=20]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
rounds=${2:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/sessions-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

go build -o "$work/agent-hooks" ./cmd/agent-hooks
bench=$(go test -run '^$' -bench 'BenchmarkList10000|BenchmarkUpdate|BenchmarkAppend' -benchtime 1s ./sessions/)

# From here on only the bench's own sessions folder takes part.
export AUTOAGENT_HOME="$work/home"
unset AUTOAGENT_SESSION_ID
dir="$AUTOAGENT_HOME/sessions"
mkdir -p "$dir"
base=1700000000000
for ((i = 0; i < n; i++)); do
  printf -v id 'session-%d-%06d' $((base + i * 1000)) "$i"
  printf '{"id":"%s","startTime":"2023-11-14T22:13:20Z","workspace":"/w/%d","command":"agent-hooks","args":[],"issuesPlanned":[1],"issuesCompleted":[1],"issuesFailed":[],"status":"completed","provider":"claude","metadata":{}}\n' "$id" "$i" > "$dir/$id.json"
  printf '{"event":"Stop","status":"ok"}\n' > "$dir/$id.events.jsonl"
done

# Sanity: the newest is listed first and nothing is reported.
first=$("$work/agent-hooks" session list --json --limit 1 2>"$work/err" | jq -r '.[0].id')
[ "$first" = "$(printf 'session-%d-%06d' $((base + (n - 1) * 1000)) $((n - 1)))" ] || { echo "unexpected newest session $first" >&2; exit 1; }
[ ! -s "$work/err" ] || { cat "$work/err" >&2; exit 1; }

times=()
for ((r = 0; r < rounds; r++)); do
  t0=$(date +%s%N)
  "$work/agent-hooks" session list > /dev/null
  t1=$(date +%s%N)
  times+=($(((t1 - t0) / 1000)))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
median=${sorted[$((rounds / 2))]}
best=${sorted[0]}

ns() { awk -v b="$1" '$1 ~ "^"b"(-[0-9]+)?$" { print $3 }' <<<"$bench"; }
list_ns=$(ns BenchmarkList10000)
update_ns=$(ns BenchmarkUpdate)
append_ns=$(ns BenchmarkAppend)

printf 'sessions in the folder:                 %d (+ %d audit trails)\n' "$n" "$n"
printf 'session list (process), median / best:  %.1f ms / %.1f ms  ratio to 100 ms budget: %.3f\n' \
  "$(bc -l <<<"$median/1000")" "$(bc -l <<<"$best/1000")" "$(bc -l <<<"$median/100000")"
printf 'List(10) in-process:                    %.1f ms  ratio to 100 ms budget: %.3f\n' \
  "$(bc -l <<<"$list_ns/1000000")" "$(bc -l <<<"$list_ns/100000000")"
printf 'record update (lock+read+fsync+rename): %.3f ms\n' "$(bc -l <<<"$update_ns/1000000")"
printf 'audit line append (one O_APPEND write):         %.3f ms\n' "$(bc -l <<<"$append_ns/1000000")"
