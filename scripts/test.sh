#!/usr/bin/env bash
# `make test`: every test, then every skipped test with its reason (via
# internal/cmd/testsum), so a check that did not run is never mistaken for
# one that passed.
set -uo pipefail
cd "$(dirname "$0")/.."
# Strict engines: a dissector panic fails the run instead of becoming a
# finding (dissect.Options.Strict).
export RDX_STRICT=1
go build -o bin/testsum ./internal/cmd/testsum || exit 2
# -timeout 30m: cmd/rdx runs 8-10 minutes on a loaded 2-core machine, past
# go test's default 10.
# -j N runs engines on several goroutines (pipeline/parallel.go): the race
# detector watches the pipeline's tests, which run them with -j 2 and 4.
# About 3 minutes quiet; a loaded machine took past go test's default 10.
# It runs beside the main run, not after it: the main run's long pole,
# cmd/rdx (about 7 minutes in CI, its tests one at a time), leaves a core
# mostly idle. Its summary is printed after the main one.
race=$(mktemp)
trap 'rm -f "$race"' EXIT
go test -json -race -timeout 30m "$@" ./pipeline/ >"$race" 2>&1 &
racepid=$!
go test -json -timeout 30m "$@" ./... 2>&1 | bin/testsum
rc=$?
wait "$racepid" || rc=1
echo "race detector run (./pipeline/):"
bin/testsum <"$race" || rc=1
exit $rc
