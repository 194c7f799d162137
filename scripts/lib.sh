# Shared by the bench scripts (sourced). timeit runs a command with its
# output discarded and prints its wall time, rate and peak RSS. The caller
# sets dir (scratch directory), count (what the command processes), unit
# (the rate's name) and optionally scale (count is divided by it). It leaves
# the wall seconds, CPU seconds (user+system) and peak RSS in last_s, last_cpu
# and last_rss for ratios.
timeit() { # label, command...
  local label=$1; shift
  local t0 t1 mem cpu=? rc=0
  t0=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M %U %S' -o "$dir/rss" "$@" >/dev/null 2>&1 || rc=$?
    read -r mem u s < <(tail -1 "$dir/rss")
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')
  else
    "$@" >/dev/null 2>&1 || rc=$?
    mem=?
  fi
  t1=$(date +%s.%N)
  [ "$rc" = 0 ] || echo "warning: $label exited with status $rc" >&2
  last_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') last_cpu=$cpu last_rss=$mem
  awk -v l="$label" -v s="$last_s" -v n="$count" -v k="${scale:-1}" -v u="$unit" -v m="$mem" -v c="$cpu" \
    'BEGIN{printf "%-34s %8.3f s %12.1f %s   cpu %5s s   peak RSS %s KB\n", l, s, n/s/k, u, c, m}'
}

# ratio prints how many times faster the first time is than the second
# (label, seconds of rdx, seconds of the other tool).
ratio() {
  awk -v l="$1" -v a="$2" -v b="$3" 'BEGIN{ if (a > 0) printf "%-34s %8.1fx\n", l, b/a }'
}
