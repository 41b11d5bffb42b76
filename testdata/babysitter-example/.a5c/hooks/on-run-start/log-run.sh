#!/bin/sh
echo "[log-run] run $(echo "$BREAKPOINT_PAYLOAD" | jq -r '.runId // "unknown"') started in $REPO_ROOT" >&2
