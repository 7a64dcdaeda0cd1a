#!/usr/bin/env bash
# Runs every decoder fuzz target (in each agent's package) for a short time each (default 20s).
set -euo pipefail
export GOTOOLCHAIN=go1.27.3 # the patched Go go.mod needs; see the Makefile
t=${1:-20s}
cd "$(dirname "$0")/.."
for file in $(grep -l '^func Fuzz' adapters/*/*_test.go); do
  pkg=./$(dirname "$file")
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
    echo "== $f"
    # Minimizing each new input (by default up to 60s) spent all of
    # FuzzClaude's time on its large seeds (23 runs in 60s); a failing
    # input is written out whole instead.
    go test -run '^$' -fuzz "^${f}\$" -fuzztime "$t" -fuzzminimizetime 1x "$pkg"
  done
done
