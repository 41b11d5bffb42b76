#!/usr/bin/env bash
# Measures what telemetry costs an event (issue 15: at most +1 ms median), from paired
# alternating runs (bench/pairtime: medians of wall-clock and processor time) of
# `run PreExecutionEnd` with one `true` hook:
#   none   no telemetry configured
#   down   "telemetry": {"endpoint": ...} naming a port nothing listens on
#   up     the same with a real OpenTelemetry Collector listening (internal/telemetry/testcollector)
# agent-hooks-otel is installed next to agent-hooks, so that runs start the shipper as they would
# (detached, at most every 5 s; after failures, not before the backoff). The wall-clock difference
# to `none` is what a hook waits; the shipper's own work is not in it. At the end the spool of
# `up` must be shipped and the collector must have received spans.
# Usage: [AGENT_HOOKS=path/to/binary] [COLLECTOR=path/to/testcollector] bench/telemetry.sh [ROUNDS=30]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-30}
work=$(mktemp -d "${TMPDIR:-/tmp}/telemetry-bench.XXXXXX")
collector_pid=""
cleanup() {
  if [ -n "$collector_pid" ]; then kill "$collector_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/pairtime" ./bench/pairtime
if [ -n "${AGENT_HOOKS:-}" ]; then cp "$AGENT_HOOKS" "$(dirname "$AGENT_HOOKS")/agent-hooks-full" "$work/"; else go build -o "$work/" ./cmd/agent-hooks ./cmd/agent-hooks-full; fi
go build -o "$work/agent-hooks-otel" ./cmd/agent-hooks-otel
if [ -n "${COLLECTOR:-}" ]; then
  cp "$COLLECTOR" "$work/collector"
else
  (cd internal/telemetry/testcollector && GOWORK=off go build -o "$work/collector" .)
fi
unset AUTOAGENT_SESSION_ID OTEL_EXPORTER_OTLP_ENDPOINT OTEL_EXPORTER_OTLP_TRACES_ENDPOINT OTEL_EXPORTER_OTLP_LOGS_ENDPOINT

port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
up=$(port)
down=$(port)
for ws in none down up; do
  mkdir -p "$work/$ws/.autoagent" "$work/home-$ws"
  case $ws in
  none) tel='' ;;
  down) tel="\"telemetry\": {\"endpoint\": \"http://127.0.0.1:$down\"}," ;;
  up) tel="\"telemetry\": {\"endpoint\": \"http://127.0.0.1:$up\"}," ;;
  esac
  echo "{$tel \"hooks\": {\"PreExecutionEnd\": [{\"command\": \"true\"}]}}" >"$work/$ws/.autoagent/config.json"
done

cat >"$work/collector.yaml" <<EOF
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:$up
exporters:
  jsonfile:
    path: $work/received.jsonl
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jsonfile]
    logs:
      receivers: [otlp]
      exporters: [jsonfile]
EOF
"$work/collector" --config="file:$work/collector.yaml" >"$work/collector.log" 2>&1 &
collector_pid=$!
for _ in $(seq 300); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$up") 2>/dev/null; then break; fi
  sleep 0.1
done

run() { printf '%s\n' -- "$1" "AUTOAGENT_HOME=$work/home-$1" "$work/agent-hooks" run PreExecutionEnd --workspace "$work/$1"; }
mapfile -t none < <(run none)
mapfile -t d < <(run down)
mapfile -t u < <(run up)
"$work/pairtime" -n "$rounds" "${none[@]}" "${d[@]}" "${u[@]}"
echo "(goal: down and up medians at most 1 ms above none)"

# Sanity: telemetry was recorded and, with the collector up, shipped.
AUTOAGENT_HOME="$work/home-up" "$work/agent-hooks" telemetry ship >/dev/null
grep -q '"resourceSpans"' "$work/received.jsonl" || { echo "the collector received no spans" >&2; exit 1; }
AUTOAGENT_HOME="$work/home-down" "$work/agent-hooks" telemetry status
