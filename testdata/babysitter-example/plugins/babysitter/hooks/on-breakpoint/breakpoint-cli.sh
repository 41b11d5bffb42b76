#!/bin/sh
# The plugin's default hook (lowest priority). The real one creates a breakpoint with the
# breakpoints CLI and waits for its release; this one only reports.
echo "[breakpoint-cli] $(jq -r '.title // "breakpoint"')" >&2
