#!/usr/bin/env bash
# Measures `agent-hooks hook claude` against the baselines of issue 13 and prints ratios:
#   1. a PreToolUse with no hooks vs a Go hello world                                  (target <= 3x)
#   2. 1 and 10 command hooks vs the same hooks run the way Claude Code runs its own:
#      one `/bin/sh -c "<command>"` each with the event's JSON on stdin                 (target <= 1.2x)
#      Claude Code starts `agent-hooks hook claude` through `/bin/sh -c` as well, so ours is timed
#      that way. Claude runs the hooks of one event concurrently: the 10-hook case is measured
#      both sequentially (agent-hooks' default) and concurrently (hooks marked "parallel").
#   Hooks: "gate", a POSIX sh script that reads the JSON and looks for a pattern (what a
#   PreToolUse gate does); "jq", the one-liner of Claude Code's documentation (jq reads the
#   command); and "true", the cheapest hook there is (the fixed overhead, bare).
# The input is Claude Code's captured PreToolUse of a Bash call (testdata/agents/claude).
# Usage: bench/agent.sh [rounds]   (default 30 rounds of each; best and median reported)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/agent-hooks" ./cmd/agent-hooks
mkdir -p "$work/hello"
cat > "$work/hello/main.go" <<'GO'
package main

import "fmt"

func main() { fmt.Println("hello") }
GO
(cd "$work/hello" && GO111MODULE=off go build -o "$work/hello-bin" main.go)

export AUTOAGENT_HOME="$work/home" HOME="$work/home"
mkdir -p "$HOME" "$work/hooks"
cat > "$work/hooks/gate.sh" <<'SH'
#!/bin/sh
input=$(cat)
case $input in
  *'rm -rf /'*) echo 'no rm -rf /' >&2; exit 2 ;;
esac
exit 0
SH
chmod +x "$work/hooks/gate.sh"

# workspace NAME N COMMAND [parallel]: a workspace whose PreToolUse runs COMMAND N times.
workspace() {
  local dir="$work/$1" n=$2 cmd=$3 parallel=${4:-false}
  mkdir -p "$dir/.autoagent"
  python3 - "$dir/.autoagent/config.json" "$n" "$cmd" "$parallel" <<'PY'
import json, sys
path, n, cmd, parallel = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "true"
hook = {"command": cmd}
if parallel:
    hook["parallel"] = True
json.dump({"hooks": {"PreToolUse": [hook] * n}}, open(path, "w"))
PY
  sed "s#/work/scratch/agents/xruns/claude-allevents/proj#$dir#g" testdata/agents/claude/PreToolUse.Bash.json > "$dir/input.json"
}
workspace empty 0 true
jqgate='jq -e ".tool_input.command | test(\"rm -rf /\")" >/dev/null && { echo "no rm -rf /" >&2; exit 2; }; exit 0'
hookcmd() {
  case $1 in
    gate) echo "$work/hooks/gate.sh" ;;
    jq) echo "$jqgate" ;;
    true) echo true ;;
  esac
}
kinds="gate true"
command -v jq >/dev/null && kinds="gate jq true"
for kind in $kinds; do
  cmd=$(hookcmd "$kind")
  workspace "$kind-1" 1 "$cmd"
  workspace "$kind-10" 10 "$cmd"
  workspace "$kind-10p" 10 "$cmd" true
done

# time_ms CMD...: runs CMD `rounds` times (after one warm-up run), prints "best median" wall
# milliseconds, timed with $EPOCHREALTIME (no process of its own).
time_ms() {
  "$@" >/dev/null 2>&1 || true
  local samples=() s e
  for _ in $(seq "$rounds"); do
    s=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 || true
    e=$EPOCHREALTIME
    samples+=("$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%d", (e - s) * 1000000 }')")
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f %.2f\n", a[1]/1000, a[int((NR+1)/2)]/1000}'
}

report() { # name target ours-best ours-median base-best base-median
  awk -v n="$1" -v t="$2" -v ob="$3" -v om="$4" -v bb="$5" -v bm="$6" 'BEGIN {
    printf "%-44s ours %7.2f ms (median %7.2f)  baseline %7.2f ms (median %7.2f)  ratio %.2fx (median %.2fx)  target %s\n", n, ob, om, bb, bm, ob/bb, om/bm, t }'
}

# ours WS: Claude Code's way of running agent-hooks for the event.
ours() { (cd "$work/$1" && /bin/sh -c "$work/agent-hooks hook claude --timeout 600" < input.json); }
# claude WS CMD N [parallel]: Claude Code running the hooks itself, one sh -c each.
claude() {
  local ws=$1 cmd=$2 n=$3 parallel=${4:-}
  cd "$work/$ws"
  for _ in $(seq "$n"); do
    if [ -n "$parallel" ]; then
      /bin/sh -c "$cmd" < input.json &
    else
      /bin/sh -c "$cmd" < input.json
    fi
  done
  wait
  cd - >/dev/null
}

read -r hb hm < <(time_ms "$work/hello-bin")
read -r eb em < <(time_ms "$work/agent-hooks" hook claude < "$work/empty/input.json")
report "hook claude, no hooks / Go hello world" "<= 3x" "$eb" "$em" "$hb" "$hm"
read -r sb sm < <(time_ms ours empty)
report "  (the same through sh -c, as Claude runs it)" "" "$sb" "$sm" "$hb" "$hm"

for kind in $kinds; do
  cmd=$(hookcmd "$kind")
  read -r ob om < <(time_ms ours "$kind-1")
  read -r bb bm < <(time_ms claude "$kind-1" "$cmd" 1)
  report "1 $kind hook / 1 sh -c" "<= 1.2x" "$ob" "$om" "$bb" "$bm"
  read -r ob om < <(time_ms ours "$kind-10")
  read -r bb bm < <(time_ms claude "$kind-10" "$cmd" 10)
  report "10 $kind hooks / 10 sh -c, one after another" "<= 1.2x" "$ob" "$om" "$bb" "$bm"
  read -r ob om < <(time_ms ours "$kind-10p")
  read -r bb bm < <(time_ms claude "$kind-10p" "$cmd" 10 parallel)
  report "10 parallel $kind hooks / 10 sh -c at once" "<= 1.2x" "$ob" "$om" "$bb" "$bm"
done
