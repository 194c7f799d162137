#!/usr/bin/env bash
# rdx export on generated captures (1M Rx packets, 1M RoCEv2 NFS packets):
# frames/s of the whole export (decode included) by user CPU and by wall
# time, the frames table's bytes per frame, MB/s of Parquet written and
# peak memory; rdx read -q beside it for the decode alone. The issue's
# targets: >= 1M frames/s per core for frames, <= 20 bytes per frame,
# memory that does not grow with the capture (FOUR=1 adds a 4M-packet Rx
# capture, which must peak at about the 1M one's RSS).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
PACKETS=${PACKETS:-1000000}
dir=${BENCH_DIR:-$(mktemp -d)}
make -s build # bin/rdx, built as the Makefile says
go run ./internal/cmd/genrx -n "$PACKETS" -o "$dir/rx.pcap" >/dev/null
go run ./internal/cmd/genroce -n "$PACKETS" -o "$dir/roce.pcap" >/dev/null
caps="rx roce"
if [ "${FOUR:-0}" = 1 ]; then
  go run ./internal/cmd/genrx -n "$((PACKETS * 4))" -o "$dir/rx4.pcap" >/dev/null
  caps="$caps rx4"
fi
measure() { # label, frames, command... -> wall s, user s, sys s, peak KB in $dir/t
  local label=$1 n=$2; shift 2
  runmed "$dir/t" "$@" || echo "warning: $label exited with an error" >&2
  read -r e u _ m <"$dir/t"
  awk -v l="$label" -v u="$u" -v e="$e" -v m="$m" -v n="$n" 'BEGIN{
    printf "%-28s %6.2f s user %6.2f s wall %10.0f frames/s/core %10.0f frames/s   peak RSS %d KB\n",
      l, u, e, (u > 0 ? n / u : 0), (e > 0 ? n / e : 0), m}'
}
for c in $caps; do
  cap=$dir/$c.pcap
  settle "$cap"
  n=$(bin/rdx read -q "$cap" 2>&1 | sed -n 's/^rdx: \([0-9]*\) frames.*/\1/p')
  echo "$c: $n frames, $(du -h "$cap" | cut -f1)"
  measure "rdx read -q" "$n" bin/rdx read -q "$cap"
  rm -rf "$dir/out"
  # --overwrite: runmed runs it REPS times into the same directory
  measure "rdx export" "$n" bin/rdx export --overwrite -w "$dir/out" "$cap"
  frames=$(stat -c %s "$dir"/out/frames/*/*.parquet)
  all=$(du -cb "$dir"/out/*/*/*.parquet | tail -1 | cut -f1)
  read -r e _ <"$dir/t"
  awk -v f="$frames" -v a="$all" -v n="$n" -v e="$e" 'BEGIN{
    printf "  frames table %d bytes: %.2f bytes/frame; all tables %.1f MB, %.1f MB/s written\n", f, f / n, a / 1e6, (e > 0 ? a / 1e6 / e : 0)}'
done
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
