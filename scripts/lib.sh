# Shared by the bench scripts (sourced). timeit runs a command with its
# output discarded and prints its wall time, rate and peak RSS. The caller
# sets dir (scratch directory), count (what the command processes), unit
# (the rate's name) and optionally scale (count is divided by it).
timeit() { # label, command...
  local label=$1; shift
  local t0 t1 mem rc=0
  t0=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$dir/rss" "$@" >/dev/null 2>&1 || rc=$?
    mem=$(tail -1 "$dir/rss")
  else
    "$@" >/dev/null 2>&1 || rc=$?
    mem=?
  fi
  t1=$(date +%s.%N)
  [ "$rc" = 0 ] || echo "warning: $label exited with status $rc" >&2
  awk -v l="$label" -v a="$t0" -v b="$t1" -v n="$count" -v k="${scale:-1}" -v u="$unit" -v m="$mem" \
    'BEGIN{s=b-a; printf "%-34s %8.3f s %12.1f %s   peak RSS %s KB\n", l, s, n/s/k, u, m}'
}
