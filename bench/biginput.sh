#!/usr/bin/env bash
# Measures one `agent-hooks hook claude` call on a large input, the per-tool-call path at its
# largest: a PreToolUse Write whose tool_input.content is SIZE_MB (20) MB, decided by the 40 rules
# of bench/rules.sh (none denies it), once with content of one plain letter repeated and once with
# content of short lines (a "\n" escape every 40 bytes). It prints the peak RSS (GNU time's maximum
# resident set size, the median of ROUNDS runs) and the time (bench/pairtime: medians of wall-clock
# and processor time) of this tree and, with BEFORE, of another binary (an older commit, with its
# agent-hooks-full beside it, run in alternating rounds with this tree's), and their ratios.
# Target: peak RSS at most 3x the input; at least 2x faster than before.
# Usage: [BEFORE=path/to/agent-hooks] [AGENT_HOOKS=path/to/binary] [SIZE_MB=20] bench/biginput.sh [ROUNDS=10]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-10}
size_mb=${SIZE_MB:-20}
[ -x /usr/bin/time ] || { echo "bench/biginput.sh needs GNU time at /usr/bin/time" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/biginput-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

go build -o "$work/pairtime" ./bench/pairtime
mkdir "$work/after.d"
if [ -n "${AGENT_HOOKS:-}" ]; then
  cp "$AGENT_HOOKS" "$(dirname "$AGENT_HOOKS")/agent-hooks-full" "$work/after.d/"
else
  CGO_ENABLED=0 go build -o "$work/after.d/" ./cmd/agent-hooks ./cmd/agent-hooks-full
fi
# BEFORE in a folder of its own, with the agent-hooks-full beside it: the lean program hands what
# it does not run itself to the agent-hooks-full in its folder, which must be BEFORE's own.
if [ -n "${BEFORE:-}" ]; then
  mkdir "$work/before.d"
  cp "$BEFORE" "$work/before.d/agent-hooks"
  if [ -e "$(dirname "$BEFORE")/agent-hooks-full" ]; then cp "$(dirname "$BEFORE")/agent-hooks-full" "$work/before.d/"; fi
fi

export AUTOAGENT_HOME="$work/home" HOME="$work/home"
mkdir -p "$HOME" "$work/ws/.autoagent"
bench/fortyrules.sh > "$work/ws/.autoagent/config.json"

# input NAME LINE: a Write of SIZE_MB MB of content made of LINE repeated.
input() {
  local line=$2 bytes=$((size_mb << 20))
  {
    printf '{"hook_event_name":"PreToolUse","session_id":"bench-big","cwd":"%s","tool_name":"Write","tool_use_id":"toolu_big","tool_input":{"file_path":"%s/src/big.txt","content":"' "$work/ws" "$work/ws"
    LINE=$line awk -v n=$((bytes / ${#line})) 'BEGIN { line = ENVIRON["LINE"]; for (i = 0; i < n; i++) printf "%s", line }'
    printf '"}}\n'
  } > "$work/$1.json"
}
input plain 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'
input escaped 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n'

# rss DIR INPUT: the median peak RSS of ROUNDS runs, in KB; every run must allow the call.
rss() {
  local dir=$1 in=$2 i
  for ((i = 0; i < rounds; i++)); do
    /usr/bin/time -f '%M' -o "$work/time.txt" "$dir/agent-hooks" hook claude < "$work/$in.json" > "$work/out.json" 2> "$work/err.txt" ||
      { echo "agent-hooks in $dir failed on $in:" >&2; cat "$work/err.txt" >&2; exit 1; }
    if grep -q '"deny"' "$work/out.json"; then echo "agent-hooks in $dir denied $in: $(cat "$work/out.json")" >&2; exit 1; fi
    tail -n 1 "$work/time.txt"
  done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
calc() { awk "BEGIN { printf \"%.${1}f\", $2 }"; }

for in in plain escaped; do
  "$work/after.d/agent-hooks" hook claude < "$work/$in.json" > /dev/null # the session exists before timing
  mb=$(calc 1 "$(wc -c < "$work/$in.json")/1048576")
  echo "== $in content: $mb MB of input; peak RSS (median of $rounds runs)"
  rss_a=$(rss "$work/after.d" "$in")
  printf '%-7s %8s MB  %sx the input\n' after "$(calc 1 "$rss_a/1024")" "$(calc 1 "$rss_a/1024/$mb")"
  if [ -d "$work/before.d" ]; then
    rss_b=$(rss "$work/before.d" "$in")
    printf '%-7s %8s MB  %sx the input\n' before "$(calc 1 "$rss_b/1024")" "$(calc 1 "$rss_b/1024/$mb")"
    printf 'after/before: %sx\n' "$(calc 2 "$rss_a/$rss_b")"
    echo "time (pairtime, $rounds alternating rounds; ratios to before):"
    "$work/pairtime" -n "$rounds" -- before "<$work/$in.json" "$work/before.d/agent-hooks" hook claude \
      -- after "<$work/$in.json" "$work/after.d/agent-hooks" hook claude
  else
    echo "time (pairtime, $rounds rounds):"
    "$work/pairtime" -n "$rounds" -- after "<$work/$in.json" "$work/after.d/agent-hooks" hook claude
  fi
done
