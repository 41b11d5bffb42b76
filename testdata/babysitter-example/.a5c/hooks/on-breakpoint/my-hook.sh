#!/bin/bash
# My Custom Hook
# Description of what this hook does

set -euo pipefail

# Read payload from stdin
PAYLOAD=$(cat)

# Extract fields using jq
QUESTION=$(echo "$PAYLOAD" | jq -r '.question // "N/A"')
RUN_ID=$(echo "$PAYLOAD" | jq -r '.runId // "unknown"')

# Do your custom logic here
echo "[my-hook] Processing breakpoint for run: $RUN_ID ($QUESTION)" >&2

# Output any results to stdout (optional)
echo '{"status": "notified"}'

exit 0
