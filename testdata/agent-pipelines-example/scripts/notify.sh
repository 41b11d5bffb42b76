#!/bin/sh
# Stands in for a Slack notification: prints the event and the loop's variables.
echo "[$LOOP_SESSION] $* (iteration ${LOOP_ITERATION:-?} of ${LOOP_MAX_ITERATIONS:-?})"
