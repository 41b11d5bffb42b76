#!/bin/sh
# Blocks PreExecutionEnd unless the agent modified at least one test file.
# The event arrives as JSON on stdin; jq is not needed for this check.
input=$(cat)
case "$input" in
  *'"success":false'*) exit 0 ;;   # only validate successful executions
esac
if printf '%s' "$input" | grep -Eq '"[^"]*(_test\.go|\.test\.[a-z]+|\.spec\.[a-z]+)"'; then
  echo "tests were modified: ok"
  exit 0
fi
echo "No test files were modified; add tests for the change before finishing issue." >&2
exit 2
