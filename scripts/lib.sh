# Shared by the bench scripts (sourced). timeit runs a command with its
# output discarded and prints its wall time (median of REPS runs), rate and
# peak RSS. The caller sets dir (scratch directory), count (what the
# command processes), unit (the rate's name) and optionally scale (count is
# divided by it). It leaves the wall seconds, CPU seconds (user+system) and
# peak RSS in last_s, last_cpu and last_rss for ratios.
#
# REPS (default 3) is how many times each command runs; the run with the
# median wall time is the one reported (its CPU time and peak RSS too). On a
# shared 2-core VM single runs of the same binary were seen 70% apart.
REPS=${REPS:-3}

# timer times one command (internal/cmd/timeit: the clock holds only the
# command's process, not a bash fork and /usr/bin/time's own start-up,
# which added ~11 ms to every run on the 2-core VM). Built once per script.
timer=${TIMER:-bin/timeit}
[ -n "${TIMER:-}" ] || CGO_ENABLED=0 go build -o "$timer" ./internal/cmd/timeit

# runmed runs a command REPS times with its output discarded and writes the
# median-wall run's "wall user sys maxrssKB" to the file $1. It returns the
# first non-zero exit status it saw.
runmed() { # outfile, command...
  local out=$1 i rc=0 r; shift
  : >"$out.all"
  for ((i = 0; i < REPS; i++)); do
    r=0
    rm -f "$out.one"
    "$timer" -o "$out.one" "$@" || r=$?
    # no line when the command could not be started at all (timeit says why)
    [ ! -s "$out.one" ] || cat "$out.one" >>"$out.all"
    [ "$r" = 0 ] || [ "$rc" != 0 ] || rc=$r
  done
  [ -s "$out.all" ] || echo "0 ? ? ?" >"$out.all"
  sort -n -k1,1 "$out.all" | sed -n "$((($(wc -l <"$out.all") + 1) / 2))p" >"$out"
  rm -f "$out.one" "$out.all"
  return "$rc"
}

timeit() { # label, command...
  local label=$1; shift
  local mem u s cpu rc=0
  runmed "$dir/rss" "$@" || rc=$?
  [ "$rc" = 0 ] || echo "warning: $label exited with status $rc" >&2
  read -r last_s u s mem <"$dir/rss"
  cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{ if (u == "?") print "?"; else printf "%.2f", u+s}')
  last_cpu=$cpu last_rss=$mem
  awk -v l="$label" -v s="$last_s" -v n="$count" -v k="${scale:-1}" -v u="$unit" -v m="$mem" -v c="$cpu" \
    'BEGIN{printf "%-34s %8.3f s %12.1f %s   cpu %5s s   peak RSS %s KB\n", l, s, (s > 0 ? n/s/k : 0), u, c, m}'
}

# settle readies a capture just generated for timing: its dirty pages are
# written out first (sync), so the kernel's writeback of hundreds of MB does
# not run during the timed commands, and it is read once into the page cache.
settle() { sync; cat "$@" >/dev/null; }

# ratio prints how many times faster the first time is than the second
# (label, seconds of rdx, seconds of the other tool).
ratio() {
  awk -v l="$1" -v a="$2" -v b="$3" 'BEGIN{ if (a > 0) printf "%-34s %8.1fx\n", l, b/a }'
}
