#!/usr/bin/env bash
# Measures the paths of agent-hooks that grow with the sessions folder (issues 3 and 18), with
# SESSIONS records and their audit trails in it, from paired alternating runs (bench/pairtime:
# medians of wall-clock and processor time; INSTR=N adds instruction counts under valgrind):
#   1. `session list` (the default 10), whole process          (budget: 50 ms), and the same just
#      after the folder changed (no newest index)
#   2. `run` attaching to its workspace's active session while `current` points at another
#      workspace's, with SESSIONS sessions vs with none         (target: flat, <= 1.1x)
# and, in-process (go test -bench): List(10) of 10,000, one locked and fsynced record update (on
# issue events) and one audit-trail line (per hook).
# Usage: [INSTR=3] [BEFORE=path/to/binary] [AGENT_HOOKS=path/to/binary] bench/sessions.sh [SESSIONS=100000] [ROUNDS=20]
#   BEFORE adds the same runs of another binary (an older commit) to the same alternating rounds:
#   a before/after under the same load. AGENT_HOOKS measures a binary built elsewhere instead of
#   building this tree.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
rounds=${2:-20}
instr=${INSTR:-0}
work=$(mktemp -d "${TMPDIR:-/tmp}/sessions-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

go build -o "$work/pairtime" ./bench/pairtime
if [ -n "${AGENT_HOOKS:-}" ]; then
  cp "$AGENT_HOOKS" "$work/agent-hooks"
else
  go build -o "$work/" ./cmd/agent-hooks ./cmd/agent-hooks-full
fi
# BEFORE in a folder of its own, with the agent-hooks-full beside it: the lean program hands what
# it does not run itself to the agent-hooks-full in its folder, which must be BEFORE's own.
if [ -n "${BEFORE:-}" ]; then
  mkdir "$work/before.d"
  cp "$BEFORE" "$work/before.d/agent-hooks"
  if [ -e "$(dirname "$BEFORE")/agent-hooks-full" ]; then cp "$(dirname "$BEFORE")/agent-hooks-full" "$work/before.d/"; fi
fi
# also NAME [VAR=VALUE] ARGS...: the same command run by the BEFORE binary, when there is one
also() {
  [ -n "${BEFORE:-}" ] || return 0
  local name=$1
  shift
  local envs=()
  while [[ $# -gt 0 && $1 == *=* ]]; do envs+=("$1"); shift; done
  printf '%s\n' -- "$name-before" "${envs[@]}" "$work/before.d/agent-hooks" "$@"
}
bench=$(go test -run '^$' -bench 'BenchmarkList10000|BenchmarkUpdate|BenchmarkAppend' -benchtime 1s ./sessions/)
if [ "$instr" -gt 0 ] && ! command -v valgrind >/dev/null; then
  echo "INSTR=$instr needs valgrind; counting no instructions" >&2
  instr=0
fi
unset AUTOAGENT_SESSION_ID

# Two homes: one with n older sessions (and their audit trails) of other workspaces, one with
# none. In each, workspace ws has an active session and `current` points at workspace other's.
base=1700000000000
mkdir -p "$work/big/sessions" "$work/none/sessions" "$work/ws/.autoagent" "$work/other"
echo '{}' > "$work/ws/.autoagent/config.json"
awk -v n="$n" -v base="$base" -v dir="$work/big/sessions" 'BEGIN {
  for (i = 0; i < n; i++) {
    id = sprintf("session-%.0f-%06d", base + i * 1000, i) # %.0f: the %d of mawk stops at 2^31
    f = dir "/" id ".json"
    printf "{\"id\":\"%s\",\"startTime\":\"2023-11-14T22:13:20Z\",\"workspace\":\"/w/%d\",\"command\":\"agent-hooks\",\"args\":[],\"issuesPlanned\":[1],\"issuesCompleted\":[1],\"issuesFailed\":[],\"status\":\"completed\",\"provider\":\"claude\",\"metadata\":{}}\n", id, i > f
    close(f)
    f = dir "/" id ".events.jsonl"
    print "{\"event\":\"Stop\",\"status\":\"ok\"}" > f
    close(f)
  }
}'
for home in big none; do
  AUTOAGENT_HOME="$work/$home" "$work/agent-hooks" session start --workspace "$work/ws" >/dev/null
  AUTOAGENT_HOME="$work/$home" "$work/agent-hooks" session start --workspace "$work/other" >/dev/null
done

# Sanity: the newest is listed first and nothing is reported; the run attaches to ws's session.
first=$(AUTOAGENT_HOME="$work/big" "$work/agent-hooks" session list --json --limit 3 2>"$work/err" | jq -r '.[2].id')
[ "$first" = "$(printf 'session-%d-%06d' $((base + (n - 1) * 1000)) $((n - 1)))" ] || { echo "unexpected third newest session $first" >&2; exit 1; }
[ ! -s "$work/err" ] || { cat "$work/err" >&2; exit 1; }
for home in big none; do
  want=$(AUTOAGENT_HOME="$work/$home" "$work/agent-hooks" session list --json --limit 2 | jq -r '.[1].id')
  got=$(AUTOAGENT_HOME="$work/$home" "$work/agent-hooks" run PreExecutionEnd --workspace "$work/ws" --json | jq -r .sessionId)
  [ "$got" = "$want" ] || { echo "$home: run attached to $got, want $want" >&2; exit 1; }
done

echo "sessions in the folder: $n (+ $n audit trails)"
echo "1. session list (budget 50 ms: the median below); list-changed: the folder changed just before"
echo "   (an agent running), so the newest index cannot stand for it and the folder is read"
sleep 3.1 # settle the folder (sessions/newest.go, newestSettled): the first list writes the index
AUTOAGENT_HOME="$work/big" "$work/agent-hooks" session list >/dev/null
mapfile -t list < <(also list AUTOAGENT_HOME="$work/big" session list)
"$work/pairtime" -n "$rounds" -instr "$instr" -- list AUTOAGENT_HOME="$work/big" "$work/agent-hooks" session list "${list[@]}"
# Apart: each list-changed run changes the folder, which would keep the index from the runs above.
mapfile -t listChanged < <(also list-changed AUTOAGENT_HOME="$work/big" session list)
"$work/pairtime" -n "$rounds" -instr "$instr" -- list-changed AUTOAGENT_HOME="$work/big" sh -c 'mkdir "$AUTOAGENT_HOME/sessions/x" && rmdir "$AUTOAGENT_HOME/sessions/x" && exec "$0" session list' "$work/agent-hooks" "${listChanged[@]}"
echo "2. run attaching while current points at another workspace's session: $n sessions vs none (target <= 1.1x)"
mapfile -t attach < <(also attach-none AUTOAGENT_HOME="$work/none" run PreExecutionEnd --workspace "$work/ws"
  also attach-"$n" AUTOAGENT_HOME="$work/big" run PreExecutionEnd --workspace "$work/ws")
"$work/pairtime" -n "$rounds" -instr "$instr" \
  -- attach-none AUTOAGENT_HOME="$work/none" "$work/agent-hooks" run PreExecutionEnd --workspace "$work/ws" \
  -- attach-"$n" AUTOAGENT_HOME="$work/big" "$work/agent-hooks" run PreExecutionEnd --workspace "$work/ws" "${attach[@]}"

ns() { awk -v b="$1" '$1 ~ "^"b"(-[0-9]+)?$" { print $3 }' <<<"$bench"; }
printf 'List(10) of 10,000 in-process:          %.2f ms\n' "$(bc -l <<<"$(ns BenchmarkList10000)/1000000")"
printf 'record update (lock+read+fsync+rename): %.3f ms\n' "$(bc -l <<<"$(ns BenchmarkUpdate)/1000000")"
printf 'audit line append (one O_APPEND write): %.3f ms\n' "$(bc -l <<<"$(ns BenchmarkAppend)/1000000")"
