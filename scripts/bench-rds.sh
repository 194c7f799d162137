#!/usr/bin/env bash
# Throughput and peak memory of rdx on a generated RDS/TCP capture (one
# connection, ~1 GiB of TCP payload by default: 64-octet datagrams many to a
# segment, 1400/9000/65536-octet ones across segments). Prints MB/s of TCP
# payload for the whole command (start-up included, file in page cache).
set -euo pipefail
cd "$(dirname "$0")/.."
BYTES=${BYTES:-1073741824}
MSS=${MSS:-1448}
dir=${BENCH_DIR:-$(mktemp -d)}
cap=$dir/rds-bench.pcap
go build -o bin/rdx ./cmd/rdx
payload=$(go run ./internal/cmd/genrds -bytes "$BYTES" -mss "$MSS" -o "$cap")
cat "$cap" >/dev/null
timeit() { # label, command...
  local label=$1; shift
  local t0 t1 mem
  t0=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$dir/rss" "$@" >/dev/null 2>&1
    mem=$(tail -1 "$dir/rss")
  else
    "$@" >/dev/null 2>&1; mem=?
  fi
  t1=$(date +%s.%N)
  awk -v l="$label" -v a="$t0" -v b="$t1" -v n="$payload" -v m="$mem" \
    'BEGIN{s=b-a; printf "%-34s %8.3f s %9.1f MB/s TCP payload   peak RSS %s KB\n", l, s, n/s/1e6, m}'
}
echo "capture: $cap ($payload TCP payload bytes, MSS $MSS, $(du -h "$cap" | cut -f1))"
timeit "rdx read -q (decode only)"  bin/rdx read -q "$cap"
timeit "rdx read (summary)"         bin/rdx read "$cap"
go test -run '^$' -bench 'RDS' -benchmem ./dissect/rds/ | grep -E '^Benchmark|ok'
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
