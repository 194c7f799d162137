#!/usr/bin/env bash
# Throughput and peak memory of rdx on a generated RDS/TCP capture (one
# connection, ~1 GiB of TCP payload by default: 64-octet datagrams many to a
# segment, 1400/9000/65536-octet ones across segments). Prints MB/s of TCP
# payload for the whole command (start-up included, file in page cache).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
BYTES=${BYTES:-1073741824}
MSS=${MSS:-1448}
dir=${BENCH_DIR:-$(mktemp -d)}
cap=$dir/rds-bench.pcap
go build -o bin/rdx ./cmd/rdx
payload=$(go run ./internal/cmd/genrds -bytes "$BYTES" -mss "$MSS" -o "$cap")
cat "$cap" >/dev/null
count=$payload unit="MB/s TCP payload" scale=1e6
echo "capture: $cap ($payload TCP payload bytes, MSS $MSS, $(du -h "$cap" | cut -f1))"
timeit "rdx read -q (decode only)"  bin/rdx read -q "$cap"
timeit "rdx read (summary)"         bin/rdx read "$cap"
go test -run '^$' -bench 'RDS' -benchmem ./dissect/rds/ | grep -E '^Benchmark|ok'
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
