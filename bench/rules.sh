#!/usr/bin/env bash
# Measures what rules cost on the per-tool-call path (issues 25 and 26) and prints ratios from
# paired alternating runs (bench/pairtime):
#   1. `agent-hooks hook claude` on a PreToolUse decided by 40 rules vs a Go hello world (target <= 2x)
#   2. the same call vs the same call with no rules                                    (target <= 1.05x)
#   3. the same call vs the same 40 gates written as a sh+jq script run directly         (target <= 0.5x)
# The 40 rules: 20 command patterns, 10 globs over the files the call writes, 10 expressions; none
# of them denies the call (every rule is evaluated). The script does what a careful user writes:
# one jq reads the fields, then one case per gate.
# Usage: [AGENT_HOOKS=path/to/binary] [INSTR=runs] bench/rules.sh [ROUNDS=30]
#   INSTR also counts instructions under valgrind (pairtime -instr), which load does not change.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-30}
work=$(mktemp -d "${TMPDIR:-/tmp}/rules-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

go build -o "$work/pairtime" ./bench/pairtime
if [ -n "${AGENT_HOOKS:-}" ]; then cp "$AGENT_HOOKS" "$(dirname "$AGENT_HOOKS")/agent-hooks-full" "$work/"; else CGO_ENABLED=0 go build -o "$work/" ./cmd/agent-hooks ./cmd/agent-hooks-full; fi
mkdir -p "$work/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' > "$work/hello/main.go"
(cd "$work/hello" && GO111MODULE=off CGO_ENABLED=0 go build -o "$work/hello-bin" main.go)

export AUTOAGENT_HOME="$work/home" HOME="$work/home"
mkdir -p "$HOME" "$work/none/.autoagent" "$work/rules/.autoagent"
echo '{}' > "$work/none/.autoagent/config.json"
bench/fortyrules.sh > "$work/rules/.autoagent/config.json"
{
  echo '#!/bin/sh'
  echo 'input=$(cat)'
  echo 'eval "$(printf %s "$input" | jq -r '"'"'@sh "tool=\(.tool_name) cmd=\(.tool_input.command // "") file=\(.tool_input.file_path // "")"'"'"')"'
  for i in $(seq 0 19); do echo "case \$cmd in *prog$i*-rf*--force*|*prog$i*--force*-rf*) echo 'cmd$i' >&2; exit 2;; esac"; done
  for i in $(seq 0 9); do echo "case \$file in dir$i/*|*.secret$i) echo 'w$i' >&2; exit 2;; esac"; done
  for i in $(seq 0 9); do echo "[ \"\$tool\" = Bash ] && case \$cmd in *never$i*) echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\"}}'; exit 0;; esac"; done
  echo 'exit 0'
} > "$work/gate.sh"
chmod +x "$work/gate.sh"
for ws in none rules; do
  printf '{"hook_event_name":"PreToolUse","session_id":"bench-%s","tool_name":"Bash","tool_input":{"command":"ls -la src && grep -rn TODO ."},"cwd":"%s"}\n' "$ws" "$work/$ws" > "$work/$ws.json"
  "$work/agent-hooks" hook claude < "$work/$ws.json" > /dev/null # the session exists before timing
done
# Every command is run directly with its input (pairtime's <FILE), none behind a shell.
pair() { "$work/pairtime" -n "$rounds" ${INSTR:+-instr "$INSTR"} "$@"; }
echo "1. hook claude with 40 rules vs a Go hello world (target <= 2x)"
pair -- hello "$work/hello-bin" -- rules "<$work/rules.json" "$work/agent-hooks" hook claude
echo "2. 40 rules vs no rules (target <= 1.05x)"
pair -- none "<$work/none.json" "$work/agent-hooks" hook claude -- rules "<$work/rules.json" "$work/agent-hooks" hook claude
if command -v jq >/dev/null; then
  echo "3. 40 rules vs the same gates as a sh+jq script (target <= 0.5x)"
  pair -- sh-jq "<$work/rules.json" "$work/gate.sh" -- rules "<$work/rules.json" "$work/agent-hooks" hook claude
fi
