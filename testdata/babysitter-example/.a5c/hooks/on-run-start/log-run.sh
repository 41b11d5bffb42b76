#!/bin/sh
echo "[log-run] run $(echo "$HOOK_PAYLOAD" | jq -r '.runId // "unknown"') started in $REPO_ROOT" >&2
