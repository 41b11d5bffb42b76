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

go build -o "$work/" ./cmd/agent-hooks ./cmd/agent-hooks-full
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

# child_cpu: sets CPU to the CPU seconds (user + system) this shell's finished children have used
# so far (`times` runs in this shell: in a $(...) subshell it would see the subshell's only).
child_cpu() {
  times > "$work/times"
  CPU=$(awk 'NR == 2 {
    split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%.6f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$work/times")
}

# measure CMD...: runs CMD `rounds` times (after one warm-up run) and prints "best median cpu":
# the best and median wall milliseconds (timed with $EPOCHREALTIME, no process of its own) and
# the mean CPU milliseconds of the processes it started, which a loaded machine disturbs less
# than wall time.
measure() {
  "$@" >/dev/null 2>&1 || true
  local samples=() s e c0 c1
  child_cpu; c0=$CPU
  for _ in $(seq "$rounds"); do
    s=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 || true
    e=$EPOCHREALTIME
    samples+=("$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%d", (e - s) * 1000000 }')")
  done
  child_cpu; c1=$CPU
  printf '%s\n' "${samples[@]}" | sort -n | awk -v c0="$c0" -v c1="$c1" -v n="$rounds" \
    '{a[NR]=$1} END {printf "%.2f %.2f %.2f\n", a[1]/1000, a[int((NR+1)/2)]/1000, (c1 - c0) * 1000 / n}'
}

report() { # name target ours-best ours-median ours-cpu base-best base-median base-cpu
  awk -v n="$1" -v t="$2" -v ob="$3" -v om="$4" -v oc="$5" -v bb="$6" -v bm="$7" -v bc="$8" 'BEGIN {
    printf "%-44s wall: ours %7.2f ms (median %7.2f), baseline %7.2f ms (median %7.2f), ratio %.2fx (median %.2fx) | cpu: %6.2f / %6.2f ms, ratio %.2fx | target %s\n",
      n, ob, om, bb, bm, ob/bb, om/bm, oc, bc, oc/bc, t }'
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

# (measure runs in this shell, not a subshell, so that `times` sees the children it waited for)
measure "$work/hello-bin" > "$work/m"; read -r hb hm hc < "$work/m"
measure "$work/agent-hooks" hook claude < "$work/empty/input.json" > "$work/m"; read -r eb em ec < "$work/m"
report "hook claude, no hooks / Go hello world" "<= 3x" "$eb" "$em" "$ec" "$hb" "$hm" "$hc"
measure ours empty > "$work/m"; read -r sb sm sc < "$work/m"
report "  (the same through sh -c, as Claude runs it)" "" "$sb" "$sm" "$sc" "$hb" "$hm" "$hc"

for kind in $kinds; do
  cmd=$(hookcmd "$kind")
  measure ours "$kind-1" > "$work/m"; read -r ob om oc < "$work/m"
  measure claude "$kind-1" "$cmd" 1 > "$work/m"; read -r bb bm bc < "$work/m"
  report "1 $kind hook / 1 sh -c" "<= 1.2x" "$ob" "$om" "$oc" "$bb" "$bm" "$bc"
  measure ours "$kind-10" > "$work/m"; read -r ob om oc < "$work/m"
  measure claude "$kind-10" "$cmd" 10 > "$work/m"; read -r bb bm bc < "$work/m"
  report "10 $kind hooks / 10 sh -c, one after another" "<= 1.2x" "$ob" "$om" "$oc" "$bb" "$bm" "$bc"
  measure ours "$kind-10p" > "$work/m"; read -r ob om oc < "$work/m"
  measure claude "$kind-10p" "$cmd" 10 parallel > "$work/m"; read -r bb bm bc < "$work/m"
  report "10 parallel $kind hooks / 10 sh -c at once" "<= 1.2x" "$ob" "$om" "$oc" "$bb" "$bm" "$bc"
done
