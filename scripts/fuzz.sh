#!/usr/bin/env bash
# Runs every Go fuzz target in the module for a bounded time each:
# FUZZTIME (the first argument, default 20s) of fuzzing, and at most
# FUZZMINIMIZETIME (default 5s) to minimize each new corpus entry, which Go
# otherwise allows a minute each, so that a short run keeps fuzzing. A
# failing input is kept under the package's testdata/fuzz/<target>/, where
# `go test` (and so `make test`) replays it from then on.
set -euo pipefail
fuzztime=${1:-20s}
minimize=${FUZZMINIMIZETIME:-5s}
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "== $pkg $target ($fuzztime)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$pkg"
  done
done
