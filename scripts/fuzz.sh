#!/usr/bin/env bash
# Runs every Fuzz* target in the module for FUZZTIME each (default 3s). New
# inputs are not minimised (-fuzzminimizetime 0x): minimising can outlast a
# short run and fail it with "context deadline exceeded".
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-3s}
n=0
for pkg in $(go list ./...); do
  for fz in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "fuzz $pkg $fz ($t)"
    go test -run "^$" -fuzz "^${fz}\$" -fuzztime "$t" -fuzzminimizetime 0x "$pkg" >/tmp/rdx-fuzz.log 2>&1 || { cat /tmp/rdx-fuzz.log; exit 1; }
    n=$((n+1))
  done
done
echo "fuzz: $n targets ran for $t each, no failures"
