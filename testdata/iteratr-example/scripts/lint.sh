#!/bin/sh
# A stand-in linter: complains about TODO markers.
if grep -rn TODO --include='*.txt' . ; then
  echo "lint: remove the TODOs above" >&2
  exit 1
fi
echo "lint: clean"
