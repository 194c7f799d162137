#!/usr/bin/env bash
# Packet rate, CPU and peak memory of rdx on a generated RoCEv2 capture:
# NFSv3 over RPC-over-RDMA (GETATTR inline, WRITE data by RDMA READ of a
# read chunk, 1024-octet path MTU, every packet with a correct ICRC that
# rdx verifies), beside tshark in the same run when it is installed. The
# issue's target: at least 2 million packets/s for the summary, constant
# memory. Whole-command times (start-up included, file in page cache).
# PACKETS, MTU and FLOWS (client hosts, interleaved packet by packet, for
# rdx read -j N) set the capture; HALF=0 skips the constant-memory run.
# -j N shards by host pair (a connection's two QPs, its RPC calls and
# replies and its RDMA READs share state), so one client's frames are all
# one worker's: the -j rows run again on a capture of JFLOWS clients
# (default 64; JFLOWS=0 skips them), where the workers share the work.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/libcpu.sh
PACKETS=${PACKETS:-1000000}
MTU=${MTU:-1024}
FLOWS=${FLOWS:-1}
dir=${BENCH_DIR:-$(mktemp -d)}
cap=$dir/roce-bench.pcap
loadavg
make -s build # bin/rdx, built as the Makefile says
n=$(go run ./internal/cmd/genroce -n "$PACKETS" -mtu "$MTU" -flows "$FLOWS" -o "$cap")
settle "$cap"
count=$n unit=pkt/s
echo "capture: $cap ($n packets, MTU $MTU, $FLOWS flows, $(du -h "$cap" | cut -f1))"
timecpu "rdx read -q (decode + ICRC)" bin/rdx read -q "$cap"
timecpu "rdx read (summary)"          bin/rdx read "$cap"
for j in $(jflags); do
  timecpu "rdx read -q -j $j"         bin/rdx read -q -j "$j" "$cap"
  timecpu "rdx read -j $j (summary)"  bin/rdx read -j "$j" "$cap"
done
if [ "${JFLOWS:-64}" != 0 ] && [ -n "$(jflags)" ]; then
  jcap=$dir/roce-clients.pcap
  go run ./internal/cmd/genroce -n "$PACKETS" -mtu "$MTU" -flows "${JFLOWS:-64}" -o "$jcap" >/dev/null
  settle "$jcap"
  echo "capture: $jcap (${JFLOWS:-64} clients)"
  for j in $(jflags); do
    timecpu "rdx read -q -j $j, ${JFLOWS:-64} clients"        bin/rdx read -q -j "$j" "$jcap"
    timecpu "rdx read -j $j, ${JFLOWS:-64} clients (summary)" bin/rdx read -j "$j" "$jcap"
  done
  rm -f "$jcap"
fi
if command -v tshark >/dev/null 2>&1; then
  # RoCEv2 (UDP 4791) and RPC-over-RDMA over it are tshark defaults
  timecpu "tshark -r (summary)" tshark -r "$cap"
else
  echo "tshark: not installed (apt-get install -y tshark) - skipped"
fi
if [ "${HALF:-1}" = 1 ]; then
  # Constant memory: half the packets must peak at about the same RSS.
  half=$dir/roce-half.pcap
  go run ./internal/cmd/genroce -n "$((PACKETS / 2))" -mtu "$MTU" -flows "$FLOWS" -o "$half" >/dev/null
  count=$((n / 2)) timecpu "rdx read -q, half the packets" bin/rdx read -q "$half"
fi
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
