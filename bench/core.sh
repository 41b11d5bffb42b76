#!/usr/bin/env bash
# Measures agent-hooks' core against the baselines of issue 2 and prints ratios:
#   1. `agent-hooks run` with no hooks vs a Go hello world            (target: <= 3x)
#   2. 50 hooks of `true` vs a shell loop of 50 `sh -c true`          (target: <= 1.2x)
#      (the loop in dash, the strict baseline, and in bash)
#   3. 50 hook scripts (read stdin, print {}) vs a bash+jq dispatcher (target: >= 8x faster)
# Usage: bench/core.sh [rounds]   (default 20 rounds of each, best and median reported)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
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

export AUTOAGENT_HOME="$work/home"
mkdir -p "$AUTOAGENT_HOME" "$work/empty/.autoagent" "$work/true50/.autoagent" "$work/json50/.autoagent" "$work/scripts"
echo '{}' > "$work/empty/.autoagent/config.json"
cat > "$work/scripts/hook.sh" <<'SH'
#!/bin/sh
cat >/dev/null
echo '{}'
SH
chmod +x "$work/scripts/hook.sh"
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
json.dump({"hooks": {"PreExecutionEnd": [{"command": "true"}] * 50}}, open(f"{w}/true50/.autoagent/config.json", "w"))
json.dump({"hooks": {"PreExecutionEnd": [{"command": f"{w}/scripts/hook.sh"}] * 50}}, open(f"{w}/json50/.autoagent/config.json", "w"))
PY
cat > "$work/dispatch.sh" <<SH
#!/usr/bin/env bash
# The baseline: a bash+jq dispatcher that pipes the payload to each of 50 scripts and reads each
# answer's decision with jq.
payload='{"eventName":"PreExecutionEnd","issueNumber":1}'
for i in \$(seq 50); do
  answer=\$(printf '%s' "\$payload" | $work/scripts/hook.sh)
  decision=\$(printf '%s' "\$answer" | jq -r '.decision // empty')
  [ "\$decision" = block ] && exit 2
done
exit 0
SH
chmod +x "$work/dispatch.sh"
cat > "$work/shloop.sh" <<'SH'
#!/bin/sh
i=0
while [ $i -lt 50 ]; do sh -c true; i=$((i+1)); done
SH
cat > "$work/bashloop.sh" <<'SH'
#!/usr/bin/env bash
for i in $(seq 50); do sh -c true; done
SH
chmod +x "$work/shloop.sh" "$work/bashloop.sh"

# time_ms CMD...: runs CMD `rounds` times, prints "best median" wall milliseconds.
time_ms() {
  local samples=()
  for _ in $(seq "$rounds"); do
    local s e
    s=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    e=$(date +%s%N)
    samples+=($(( (e - s) / 1000 )))
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f %.2f\n", a[1]/1000, a[int((NR+1)/2)]/1000}'
}

report() { # name target ours-best ours-median base-best base-median
  awk -v n="$1" -v t="$2" -v ob="$3" -v om="$4" -v bb="$5" -v bm="$6" 'BEGIN {
    printf "%-34s ours %7.2f ms (median %7.2f)  baseline %7.2f ms (median %7.2f)  ratio %.2fx (median %.2fx)  target %s\n", n, ob, om, bb, bm, ob/bb, om/bm, t }'
}

read -r hb hm < <(time_ms "$work/hello-bin")
read -r eb em < <(time_ms "$work/agent-hooks" run PreExecutionEnd --workspace "$work/empty")
report "run, no hooks / Go hello world" "<= 3x" "$eb" "$em" "$hb" "$hm"

read -r sb sm < <(time_ms "$work/shloop.sh")
read -r tb tm < <(time_ms "$work/agent-hooks" run PreExecutionEnd --workspace "$work/true50")
report "50 x true / sh loop (dash)" "<= 1.2x" "$tb" "$tm" "$sb" "$sm"
read -r bb bm < <(time_ms "$work/bashloop.sh")
report "50 x true / bash loop" "<= 1.2x" "$tb" "$tm" "$bb" "$bm"

read -r db dm < <(time_ms "$work/dispatch.sh")
read -r jb jm < <(time_ms "$work/agent-hooks" run PreExecutionEnd --workspace "$work/json50")
report "50 scripts / bash+jq dispatcher" ">= 8x faster" "$jb" "$jm" "$db" "$dm"
awk -v a="$jm" -v b="$dm" 'BEGIN { printf "  -> agent-hooks is %.1fx faster than the bash+jq dispatcher (median)\n", b/a }'
