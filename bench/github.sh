#!/usr/bin/env bash
# Measures what a GitHub approval costs against the fake GitHub (github/githubtest): the first look
# at a pull request with 300 comments and 100 reviews (every page read), and one poll while nobody
# answers, whose requests are revalidated with ETags. A 304 does not count against GitHub's rate
# limit, so the number that matters is the quota a poll spends: the target is 0 of 3 requests.
# Usage: bench/github.sh [iterations]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
out=$(go test ./github/ -run '^$' -bench 'BenchmarkApproval' -benchtime "${n}x")
echo "$out" | grep '^Benchmark'
echo "$out" | awk '
  /^BenchmarkApprovalFind/ { find_ns = $3; find_req = $5 }
  /^BenchmarkApprovalPoll/ { poll_ns = $3; for (i = 4; i < NF; i++) { if ($(i+1) == "304s/op") nm = $i; if ($(i+1) == "requests/op") req = $i } }
  END {
    printf "first look: %.0f requests, %.1f ms\n", find_req, find_ns / 1e6
    printf "poll:       %.0f requests, %.1f answered 304, quota spent %.2f requests (target 0)\n", req, nm, req - nm
    printf "poll / first look time: %.2fx\n", poll_ns / find_ns
  }'
