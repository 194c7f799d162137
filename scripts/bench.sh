#!/usr/bin/env bash
# Throughput and peak memory of rdx on a generated 1,000,000-packet Rx capture,
# beside tshark and tcpdump when they are installed. Numbers are packets/s of
# the whole command (start-up included), wall clock, file in page cache.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
N=${N:-1000000}
dir=${BENCH_DIR:-$(mktemp -d)}
cap=$dir/rx-bench.pcap
go build -o bin/rdx ./cmd/rdx
go run ./internal/cmd/genrx -n "$N" -o "$cap"
cat "$cap" >/dev/null
count=$N unit=pkt/s
echo "capture: $cap ($N packets, $(du -h "$cap" | cut -f1))"
timeit "rdx read (summary)"            bin/rdx read "$cap"
timeit "rdx read -q (decode only)"     bin/rdx read -q "$cap"
timeit "rdx read -T fields -e rx.seq"  bin/rdx read -T fields -e rx.seq "$cap"
if command -v tshark >/dev/null; then
  timeit "tshark -r (summary)"           tshark -r "$cap" -d udp.port==7000,rx
  timeit "tshark -T fields -e rx.seq"    tshark -r "$cap" -d udp.port==7000,rx -T fields -e rx.seq
else
  echo "tshark: not installed (apt-get install -y tshark) - skipped"
fi
if command -v tcpdump >/dev/null; then
  timeit "tcpdump -nn -r"                tcpdump -nn -r "$cap"
else
  echo "tcpdump: not installed (apt-get install -y tcpdump) - skipped"
fi
# decoder benchmarks: Rx decode/summary, capture readers, MPA CRC throughput,
# RDS framing, InfiniBand decode with ICRC, TCP reassembly, and the pipeline
# library per mode (ns and allocations per frame)
go test -run '^$' -bench . -benchmem ./dissect/rx/ ./capture/ ./dissect/mpa/ ./dissect/rds/ ./dissect/ib/ ./reassembly/tcp/ ./pipeline/ | grep -E '^Benchmark|^ok'
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
