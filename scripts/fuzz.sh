#!/usr/bin/env bash
# Runs every Fuzz* target in the module for FUZZTIME each: a duration (3s,
# the default) or an execution count (10000x, what CI uses).
#
# Go 1.26's fuzz coordinator can fail a duration-bounded run with a bare
# "context deadline exceeded" at the deadline although nothing was found
# (golang/go#75804, fixed in Go 1.27). A count has no deadline to race, so CI
# uses one. In duration mode such a run, with no failing input written and
# no panic, is retried once and said so loudly; a second one fails.
# New inputs are not minimised (-fuzzminimizetime 0x): minimising can outlast
# a short run.
#
# FUZZMATCH (an extended regexp on "PACKAGE TARGET") runs only some targets,
# so a long run can be split over several sittings:
#   make fuzz-long FUZZMATCH='dissect/(rx|afs) '
# Each target's line ends with the executions it ran.
set -euo pipefail
cd "$(dirname "$0")/.."
# Strict engines: a dissector panic fails the run instead of becoming a
# finding (dissect.Options.Strict).
export RDX_STRICT=1
t=${FUZZTIME:-3s}
# go test's own deadline (10m by default) must not cut a long duration run.
timeout=10m
case "$t" in *x) ;; *) timeout=3h ;; esac
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bare_deadline() {
  grep -q 'context deadline exceeded' "$log" &&
    ! grep -qE 'Failing input written|panic:|fuzzing process hung' "$log"
}
# The targets, found in the test sources: `go test -list` per package links
# every package's test binary first, which took 1-3 minutes of CI. Nested
# modules (export/duckdbtest) and testdata are not this module's packages.
mod=$(go list -m)
nested=$(find . -mindepth 2 -name go.mod -not -path './.git/*' -printf '%h/\n')
targets() {
  grep -rnoE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . |
    grep -v '/testdata/' |
    while IFS=: read -r file line decl; do
      dir=$(dirname "$file")
      skip=
      for m in $nested; do case "$dir/" in "$m"*) skip=1 ;; esac; done
      [ -z "$skip" ] || continue
      fz=${decl#func }
      printf '%s %s %08d %s\n' "$mod${dir#.}" "$(basename "$file")" "$line" "${fz%%(*}"
    done | LC_ALL=C sort | awk '{print $1, $4}'
}
n=0
while read -r pkg fz; do
  {
    if [ -n "${FUZZMATCH:-}" ] && ! echo "$pkg $fz" | grep -qE "$FUZZMATCH"; then
      continue
    fi
    printf 'fuzz %s %s (%s)' "$pkg" "$fz" "$t"
    for try in 1 2; do
      if go test -run '^$' -fuzz "^${fz}\$" -fuzztime "$t" -fuzzminimizetime 0x -timeout "$timeout" "$pkg" >"$log" 2>&1; then
        execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
        echo ": ${execs:-?} executions"
        break
      fi
      echo
      if [ "$try" = 1 ] && bare_deadline; then
        echo "fuzz: WARNING $fz hit Go's fuzztime deadline race (golang/go#75804), no input found; retrying once" >&2
        continue
      fi
      cat "$log"
      exit 1
    done
    n=$((n+1))
  } </dev/null
done < <(targets)
echo "fuzz: $n targets ran for $t each, no failures"
