#!/usr/bin/env bash
# Measures `session list --remote` over SESSIONS sessions pushed to a bare repository (issue 15:
# under 2 s for 10,000), from paired alternating runs (bench/pairtime: medians of wall-clock and
# processor time):
#   1. session list --remote origin (the newest 10), its records already in the cache
#   2. the same with an empty cache (each round fetches the 10 records shown)
#   3. git ls-remote of the same remote, the floor: listing the refs is the part that grows
# The sessions are written with git fast-import in the layout `session push` writes
# (refs/agent-hooks/sessions/<id>: session.json and events/000001.jsonl); one is pushed by
# agent-hooks itself and checked to read back the same way.
# Usage: [AGENT_HOOKS=path/to/binary] bench/remote.sh [SESSIONS=10000] [ROUNDS=10]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
rounds=${2:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/remote-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

go build -o "$work/pairtime" ./bench/pairtime
if [ -n "${AGENT_HOOKS:-}" ]; then cp "$AGENT_HOOKS" "$(dirname "$AGENT_HOOKS")/agent-hooks-full" "$work/"; else go build -o "$work/" ./cmd/agent-hooks ./cmd/agent-hooks-full; fi
export AUTOAGENT_HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset AUTOAGENT_SESSION_ID

git init -q --bare "$work/remote.git"
git init -q "$work/ws"
git -C "$work/ws" remote add origin "$work/remote.git"

base=1700000000000
awk -v n="$n" -v base="$base" 'BEGIN {
  for (i = 0; i < n; i++) {
    id = sprintf("session-%.0f-%06d", base + i * 1000, i) # %.0f: the %d of mawk stops at 2^31
    rec = sprintf("{\"id\":\"%s\",\"startTime\":\"2023-11-14T22:13:20Z\",\"workspace\":\"/w/%d\",\"command\":\"agent-hooks\",\"args\":[],\"issuesPlanned\":[],\"issuesCompleted\":[],\"issuesFailed\":[],\"status\":\"completed\",\"provider\":\"claude\",\"metadata\":{}}\n", id, i)
    ev = "{\"seq\":1,\"event\":\"Stop\",\"status\":\"ok\"}\n"
    msg = "agent-hooks session " id "\n"
    printf "commit refs/agent-hooks/sessions/%s\ncommitter agent-hooks <agent-hooks@localhost> %d +0000\ndata %d\n%s", id, 1700000000 + i, length(msg), msg
    printf "M 100644 inline session.json\ndata %d\n%s", length(rec), rec
    printf "M 100644 inline events/000001.jsonl\ndata %d\n%s\n", length(ev), ev
  }
}' | git -C "$work/remote.git" fast-import --quiet

# One pushed by agent-hooks itself, the newest: it must list first and read back.
mkdir -p "$AUTOAGENT_HOME"
id=$("$work/agent-hooks" session start --workspace "$work/ws")
"$work/agent-hooks" session push "$id" --workspace "$work/ws" >/dev/null
count=$(git -C "$work/remote.git" for-each-ref 'refs/agent-hooks/sessions/' | wc -l)
[ "$count" -eq $((n + 1)) ] || { echo "remote has $count sessions, want $((n + 1))" >&2; exit 1; }
got=$("$work/agent-hooks" session list --remote origin --workspace "$work/ws" --json | jq -r '.[0].id, length')
[ "$got" = "$id"$'\n'10 ] || { echo "session list --remote: $got, want $id first of 10" >&2; exit 1; }

echo "sessions on the remote: $((n + 1))"
"$work/pairtime" -n "$rounds" -dir "$work/ws" -- \
  git-ls-remote git ls-remote "$work/remote.git" 'refs/agent-hooks/sessions/*' -- \
  list-cached "$work/agent-hooks" session list --remote origin -- \
  list-cold sh -c "rm -rf '$AUTOAGENT_HOME/remote-sessions' && exec '$work/agent-hooks' session list --remote origin"
echo "(goal: list-cached and list-cold medians < 2 s)"
