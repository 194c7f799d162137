# Shared by bench-roce.sh and bench-rds.sh (sourced). timecpu runs a command
# with its output discarded and prints wall and user CPU time, the rate by
# each (on a shared machine wall time is noise: compare CPU), and peak RSS.
# The caller sets dir (scratch directory), count (what the command
# processes), unit (the rate's name) and optionally scale (count is divided
# by it). Each command runs REPS times (lib.sh's runmed: the median run).
. scripts/lib.sh
timecpu() { # label, command...
  local label=$1; shift
  local rc=0
  runmed "$dir/time" "$@" || rc=$?
  [ "$rc" = 0 ] || echo "warning: $label exited with status $rc" >&2
  awk -v l="$label" -v n="$count" -v k="${scale:-1}" -v u="$unit" \
    '{w=$1; c=$2+$3; printf "%-36s %7.2f s wall %7.2f s CPU  %10.1f %s by wall %10.1f by CPU  peak RSS %6.1f MB\n",
      l, w, c, (w>0? n/w/k : 0), u, (c>0? n/c/k : 0), $4/1024}' "$dir/time"
}

# loadavg prints the machine's load at the start of a benchmark.
loadavg() { echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"; }

# jflags prints the -j values to try when rdx read has -j (flow-sharded
# workers): 1 to the number of cores; nothing otherwise.
jflags() {
  # help whole first: grep -q would leave rdx a SIGPIPE, failing pipefail
  if grep -q -- ' -j' <<<"$(bin/rdx read --help 2>&1)"; then
    seq 1 "$(nproc)"
  fi
}
