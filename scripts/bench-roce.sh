#!/usr/bin/env bash
# Packet rate and peak memory of rdx on a generated RoCEv2 capture: NFSv3
# over RPC-over-RDMA (GETATTR inline, WRITE data by RDMA READ of a read
# chunk, 1024-octet path MTU, every packet with a correct ICRC that rdx
# verifies). The issue's target: at least 2 million packets/s
# decode-with-ICRC, constant memory. Whole-command times (start-up included,
# file in page cache); tshark too when installed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
PACKETS=${PACKETS:-1000000}
MTU=${MTU:-1024}
dir=${BENCH_DIR:-$(mktemp -d)}
cap=$dir/roce-bench.pcap
go build -o bin/rdx ./cmd/rdx
n=$(go run ./internal/cmd/genroce -n "$PACKETS" -mtu "$MTU" -o "$cap")
cat "$cap" >/dev/null
count=$n unit=packets/s
echo "capture: $cap ($n packets, MTU $MTU, $(du -h "$cap" | cut -f1))"
timeit "rdx read -q (decode + ICRC)" bin/rdx read -q "$cap"
timeit "rdx read (summary)"          bin/rdx read "$cap"
if [ "${HALF:-1}" = 1 ]; then
  # Constant memory: half the packets must peak at about the same RSS.
  half=$dir/roce-half.pcap
  go run ./internal/cmd/genroce -n "$((PACKETS / 2))" -mtu "$MTU" -o "$half" >/dev/null
  count=$((n / 2)) timeit "rdx read -q, half the packets" bin/rdx read -q "$half"
fi
if command -v tshark >/dev/null 2>&1; then
  timeit "tshark -r (summary)" tshark -r "$cap"
fi
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
