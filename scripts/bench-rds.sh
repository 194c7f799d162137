#!/usr/bin/env bash
# Throughput, CPU and peak memory of rdx on a generated RDS/TCP capture
# (~1 GiB of TCP payload by default: 64-octet datagrams many to a segment,
# 1400/9000/65536-octet ones across segments), beside tshark in the same
# run when it is installed. Prints MB/s of TCP payload for the whole command
# (start-up included, file in page cache); the issue's target is 4 GB/s of
# decode. BYTES, MSS and FLOWS (connections from as many hosts, segments
# interleaved, for rdx read -j N) set the capture.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/libcpu.sh
BYTES=${BYTES:-1073741824}
MSS=${MSS:-1448}
FLOWS=${FLOWS:-1}
dir=${BENCH_DIR:-$(mktemp -d)}
cap=$dir/rds-bench.pcap
loadavg
make -s build # bin/rdx, built as the Makefile says
payload=$(go run ./internal/cmd/genrds -bytes "$BYTES" -mss "$MSS" -flows "$FLOWS" -o "$cap")
settle "$cap"
count=$payload unit="MB/s" scale=1e6
echo "capture: $cap ($payload TCP payload bytes, MSS $MSS, $FLOWS flows, $(du -h "$cap" | cut -f1))"
timecpu "rdx read -q (decode only)"  bin/rdx read -q "$cap"
timecpu "rdx read (summary)"         bin/rdx read "$cap"
for j in $(jflags); do
  timecpu "rdx read -q -j $j"        bin/rdx read -q -j "$j" "$cap"
done
if command -v tshark >/dev/null 2>&1; then
  if cut -f3 <<<"$(tshark -G protocols 2>/dev/null)" | grep -qx rds; then
    timecpu "tshark -r (summary)" tshark -r "$cap" -d tcp.port==16385,rds
  else
    # tshark (4.0) has no RDS dissector: its TCP decode is the reference
    timecpu "tshark -r (TCP only, no RDS)" tshark -r "$cap"
  fi
else
  echo "tshark: not installed (apt-get install -y tshark) - skipped"
fi
go test -run '^$' -bench 'RDS' -benchmem ./dissect/rds/ | grep -E '^Benchmark|ok'
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
