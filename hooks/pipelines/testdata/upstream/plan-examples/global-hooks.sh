#!/bin/bash
# Global hooks - run for all sessions

on_session_complete() {
  local session=$1
  local status=$2
  local iterations=$3

  # Send to Slack
  curl -X POST "$SLACK_WEBHOOK" \
    -H "Content-Type: application/json" \
    -d "{\"text\": \"Loop $session completed after $iterations iterations\"}"
}

on_error() {
  local session=$1
  local error=$2

  # Send error alert
  osascript -e "display notification \"Loop $session failed: $error\" with title \"Loop Error\""
}
