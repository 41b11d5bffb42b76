#!/usr/bin/env bash
# Measures what grows with an audit trail and a payload (issue 15, "Performance and scale"): on a
# session whose chained trail has LINES lines (bench/trailgen), each command's median wall-clock
# time, processor time (user + system) and maximum resident set size over ROUNDS runs:
#   1. session show --events           (goal: < 2 s, < 50 MB)
#      session show (one row per tool call), on this trail and on one of an agent's calls
#      (trailgen … calls), and its --html
#   2. session show --events --json    (goal: < 2 s, < 50 MB)
#   3. session verify                  (goal: < 2 s, < 50 MB)
#   4. session push to a bare repository, a fresh one each round (goal: < 2 s, < 50 MB)
#   wc -l of the same trail is the floor the times are compared with;
# and 5. `run` with a 50 MB payload (a hook reading it from stdin): max RSS over the payload's size
# (goal: < 2x).
# Usage: [BEFORE=path/to/binary] [AGENT_HOOKS=path/to/binary] bench/trail.sh [LINES=1000000] [ROUNDS=3]
#   BEFORE runs the same commands with another binary (an older commit) for before/after ratios,
#   with the agent-hooks-full beside it (what the lean program hands the session commands to);
#   commands it does not have are reported as failed.
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-1000000}
rounds=${2:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/trail-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

go build -o "$work/trailgen" ./bench/trailgen
if [ -n "${AGENT_HOOKS:-}" ]; then cp "$AGENT_HOOKS" "$(dirname "$AGENT_HOOKS")/agent-hooks-full" "$work/"; else go build -o "$work/" ./cmd/agent-hooks ./cmd/agent-hooks-full; fi
# The older binary first: the last push, checked below, is this tree's.
# Each program in a folder of its own: the lean agent-hooks hands the session commands to the
# agent-hooks-full beside it, which for BEFORE must be BEFORE's own, not this tree's.
bins=()
if [ -n "${BEFORE:-}" ]; then
  mkdir "$work/before.d"
  cp "$BEFORE" "$work/before.d/agent-hooks"
  if [ -e "$(dirname "$BEFORE")/agent-hooks-full" ]; then cp "$(dirname "$BEFORE")/agent-hooks-full" "$work/before.d/"; fi
  bins+=(before)
fi
bins+=(agent-hooks)
# bin NAME: the path of program NAME of bins
bin() { if [ "$1" = before ]; then echo "$work/before.d/agent-hooks"; else echo "$work/$1"; fi; }

export AUTOAGENT_HOME="$work/home"
unset AUTOAGENT_SESSION_ID
id=session-1735689600000-bench1
mkdir -p "$AUTOAGENT_HOME/sessions" "$work/ws"
"$work/trailgen" "$AUTOAGENT_HOME/sessions" "$id" "$lines"
calls=session-1735689600000-calls1
"$work/trailgen" "$AUTOAGENT_HOME/sessions" "$calls" "$lines" calls
trail="$AUTOAGENT_HOME/sessions/$id.events.jsonl"
git -C "$work/ws" init -q
git -C "$work/ws" remote add origin "$work/remote.git"

# measure NAME CMD...: median wall s, median CPU s, median max RSS MB of ROUNDS runs (stdout
# discarded); a round that fails is reported and counts as failed.
measure() {
  local name=$1 i out rc
  shift
  : >"$work/times"
  for ((i = 0; i < rounds; i++)); do
    [ -z "${PRE:-}" ] || eval "$PRE"
    rc=0
    /usr/bin/time -o "$work/t" -f '%e %U %S %M' "$@" >/dev/null 2>"$work/err" || rc=$?
    if [ "$rc" -ne 0 ]; then
      printf '%-34s failed (exit %d): %s\n' "$name" "$rc" "$(head -c 200 "$work/err")"
      return 0
    fi
    tail -n 1 "$work/t" >>"$work/times"
  done
  awk -v name="$name" '{ w[NR] = $1; c[NR] = $2 + $3; m[NR] = $4 / 1024 }
    function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END { printf "%-34s wall %7.3f s   cpu %7.3f s   max RSS %7.1f MB\n", name, med(w, NR), med(c, NR), med(m, NR) }' "$work/times"
}

echo "trail: $lines lines, $(($(wc -c <"$trail") / 1048576)) MB; $rounds rounds, medians"
measure "wc -l" wc -l "$trail"
for b in "${bins[@]}"; do
  measure "$b: show --events" "$(bin "$b")" session show "$id" --events
  measure "$b: show" "$(bin "$b")" session show "$id"
  measure "$b: show (tool calls)" "$(bin "$b")" session show "$calls"
  measure "$b: show --html (tool calls)" "$(bin "$b")" session show "$calls" --html
  measure "$b: show --events --json" "$(bin "$b")" session show "$id" --events --json
  measure "$b: verify" "$(bin "$b")" session verify "$id"
  PRE='rm -rf "$work/remote.git"; git init -q --bare "$work/remote.git"' \
    measure "$b: push" "$(bin "$b")" session push "$id" --workspace "$work/ws"
done
# Sanity: what was pushed is the trail, and it verifies from the remote.
[ "$(git -C "$work/remote.git" cat-file -p "refs/agent-hooks/sessions/$id:events/000001.jsonl" | head -n 1)" = "$(head -n 1 "$trail")" ] ||
  { echo "the pushed trail does not start as the trail does" >&2; exit 1; }
"$work/agent-hooks" session verify "$id" --remote origin --workspace "$work/ws" >/dev/null

# 5. A 50 MB payload, read whole by a hook.
mkdir -p "$work/payload/.autoagent"
echo '{"hooks": {"PreExecutionEnd": [{"command": "cat >/dev/null"}]}}' >"$work/payload/.autoagent/config.json"
awk 'BEGIN { s = sprintf("%1000s", ""); gsub(/ /, "x", s); printf "{\"issueNumber\": 1, \"big\": \""; for (i = 0; i < 52428; i++) printf "%s", s; printf "\"}" }' >"$work/payload.json"
size=$(wc -c <"$work/payload.json")
echo "payload: $((size / 1048576)) MB"
for b in "${bins[@]}"; do
  measure "$b: run with the payload" "$(bin "$b")" run PreExecutionEnd --workspace "$work/payload" --payload "$work/payload.json"
done
echo "(max RSS / payload size is the payload's memory ratio; goal < 2x)"
