#!/usr/bin/env bash
# Runs every fuzz target in streamparse for a short time each (default 20s).
set -euo pipefail
t=${1:-20s}
cd "$(dirname "$0")/.."
for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' streamparse/*_test.go | sed 's/^func //' | sort -u); do
  echo "== $f"
  go test -run '^$' -fuzz "^${f}\$" -fuzztime "$t" ./streamparse
done
