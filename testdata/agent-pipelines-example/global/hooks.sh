#!/bin/bash
# Global hooks - run for all sessions. Copy to ~/.config/agent-pipelines/hooks.sh.

on_session_complete() {
  local session=$1
  local status=$2
  local iterations=$3

  # Send to Slack
  if [ -n "$SLACK_WEBHOOK" ]; then
    curl -X POST "$SLACK_WEBHOOK" \
      -H "Content-Type: application/json" \
      -d "{\"text\": \"Loop $session completed after $iterations iterations\"}"
  fi
  echo "global: loop $session $status after $iterations iterations"
}

on_error() {
  local session=$1
  local error=$2
  echo "global: loop $session failed: $error" >&2
}
