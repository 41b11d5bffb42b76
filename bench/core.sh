#!/usr/bin/env bash
# Measures agent-hooks' core against its baselines (issues 2 and 18) and prints ratios, each
# from paired alternating runs (bench/pairtime: medians of wall-clock and processor time, and with
# INSTR=N the median of N instruction counts under valgrind, children included):
#   1. `agent-hooks run` with no hooks vs a Go hello world                (target: <= 2x)
#      as `go build` makes it here (cgo on when a C compiler is present) and with CGO_ENABLED=0
#      (the Action's build and the README's install line)
#   2. 50 hooks of `true` vs a dash loop of 50 `sh -c true`              (target: <= 1.2x)
#      and, as the floor for any Go program, 50 `sh -c true` started by os/exec and nothing else
#      (bench/spawnloop)
#   3. 1 hook of `true` vs one `sh -c true`, in-process: go test -bench's BenchmarkFireTrue vs
#      BenchmarkSpawnBaseline (the engine's cost around one hook process)  (target: <= 1.5x)
#   4. 50 hook scripts (read stdin, print {}) vs a bash+jq dispatcher    (target: >= 8x faster)
# Usage: [INSTR=3] [BEFORE=path/to/binary] [AGENT_HOOKS=path/to/binary] bench/core.sh [ROUNDS=20]
#   BEFORE adds the same runs of another binary (an older commit, built as `go build` does) to the
#   same alternating rounds: a before/after under the same load. AGENT_HOOKS measures a binary built
#   elsewhere instead of building this tree.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
instr=${INSTR:-0}
work=$(mktemp -d "${TMPDIR:-/tmp}/core-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

go build -o "$work/pairtime" ./bench/pairtime
go build -o "$work/spawnloop" ./bench/spawnloop
if [ -n "${AGENT_HOOKS:-}" ]; then
  cp "$AGENT_HOOKS" "$work/agent-hooks"
  cp "$AGENT_HOOKS" "$work/agent-hooks-nocgo" # as built: the cgo row and this one are the same
else
  go build -o "$work/" ./cmd/agent-hooks ./cmd/agent-hooks-full
  CGO_ENABLED=0 go build -o "$work/agent-hooks-nocgo" ./cmd/agent-hooks
fi
# BEFORE in a folder of its own, with the agent-hooks-full beside it: the lean program hands what
# it does not run itself to the agent-hooks-full in its folder, which must be BEFORE's own.
if [ -n "${BEFORE:-}" ]; then
  mkdir "$work/before.d"
  cp "$BEFORE" "$work/before.d/agent-hooks"
  if [ -e "$(dirname "$BEFORE")/agent-hooks-full" ]; then cp "$(dirname "$BEFORE")/agent-hooks-full" "$work/before.d/"; fi
fi
# also NAME ARGS...: agent-hooks ARGS run by the BEFORE binary, when there is one
also() {
  [ -n "${BEFORE:-}" ] || return 0
  local name=$1
  shift
  printf '%s\n' -- "$name-before" "$work/before.d/agent-hooks" "$@"
}
mkdir -p "$work/hello"
cat > "$work/hello/main.go" <<'GO'
package main

import "fmt"

func main() { fmt.Println("hello") }
GO
(cd "$work/hello" && GO111MODULE=off go build -o "$work/hello-bin" main.go)
if [ "$instr" -gt 0 ] && ! command -v valgrind >/dev/null; then
  echo "INSTR=$instr needs valgrind; counting no instructions" >&2
  instr=0
fi

export AUTOAGENT_HOME="$work/home"
unset AUTOAGENT_SESSION_ID AGENT_HOOKS_DISABLE AGENT_HOOKS_SKIP
mkdir -p "$AUTOAGENT_HOME" "$work/scripts"
for ws in empty true1 true50 json50; do mkdir -p "$work/$ws/.autoagent"; done
echo '{}' > "$work/empty/.autoagent/config.json"
cat > "$work/scripts/hook.sh" <<'SH'
#!/bin/sh
cat >/dev/null
echo '{}'
SH
chmod +x "$work/scripts/hook.sh"
hooks() { # hooks N COMMAND: a config of N hooks of COMMAND
  local n=$1 cmd=$2 out='{"hooks": {"PreExecutionEnd": [' i
  for ((i = 0; i < n; i++)); do
    [ "$i" -gt 0 ] && out+=','
    out+="{\"command\": \"$cmd\"}"
  done
  printf '%s]}}\n' "$out"
}
hooks 1 true > "$work/true1/.autoagent/config.json"
hooks 50 true > "$work/true50/.autoagent/config.json"
hooks 50 "$work/scripts/hook.sh" > "$work/json50/.autoagent/config.json"
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
cat > "$work/shloop.sh" <<'SH'
#!/bin/sh
i=0
while [ $i -lt 50 ]; do sh -c true; i=$((i+1)); done
SH
chmod +x "$work/dispatch.sh" "$work/shloop.sh"
# Each workspace's session exists before the timing starts, as it does for an agent's session.
for ws in empty true1 true50 json50; do "$work/agent-hooks" run PreExecutionEnd --workspace "$work/$ws" >/dev/null; done

pair() { "$work/pairtime" -n "$rounds" -instr "$instr" "$@"; }
# runs NAME WORKSPACE: `run` with no hooks or the hooks of WORKSPACE, this tree's and BEFORE's
runs() {
  local name=$1 ws=$2
  local args=(run PreExecutionEnd --workspace "$work/$ws")
  printf '%s\n' -- "$name" "$work/agent-hooks" "${args[@]}"
  also "$name" "${args[@]}"
}
mapfile -t empty < <(runs run empty)
mapfile -t true50 < <(runs run-50 true50)
mapfile -t json50 < <(runs run-50-json json50)

echo "1. run with no hooks vs a Go hello world (target <= 2x)"
pair -- hello "$work/hello-bin" "${empty[@]}" \
  -- run-cgo0 "$work/agent-hooks-nocgo" run PreExecutionEnd --workspace "$work/empty" \
  -- version "$work/agent-hooks" version
echo "2. 50 true hooks vs a dash loop of 50 sh -c true (target <= 1.2x)"
pair -- dash-loop "$work/shloop.sh" "${true50[@]}" -- go-exec-loop "$work/spawnloop" 50
echo "3. 1 true hook vs one sh -c true, in-process (target <= 1.5x)"
go test -run '^$' -bench 'SpawnBaseline|FireTrue$' -count 5 ./hooks/ | awk '
  /^Benchmark/ { name = $1; sub(/-[0-9]+$/, "", name); wall[name] = wall[name] " " $3; cpu[name] = cpu[name] " " $5 }
  function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((n + 1) / 2)]
  }
  END {
    ws = median(wall["BenchmarkSpawnBaseline"]); wf = median(wall["BenchmarkFireTrue"])
    cs = median(cpu["BenchmarkSpawnBaseline"]); cf = median(cpu["BenchmarkFireTrue"])
    printf "sh -c true from Go   wall median %8.2f ms  cpu median %8.2f ms\n", ws / 1e6, cs / 1e6
    printf "one hook (FireTrue)  wall median %8.2f ms  cpu median %8.2f ms  ratio wall %.2fx  cpu %.2fx\n", wf / 1e6, cf / 1e6, wf / ws, cf / cs
  }'
if command -v jq >/dev/null; then
  echo "4. 50 hook scripts vs a bash+jq dispatcher (target: ratio <= 0.125)"
  "$work/pairtime" -n "$rounds" -- bash-jq "$work/dispatch.sh" "${json50[@]}"
fi
