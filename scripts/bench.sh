#!/usr/bin/env bash
# Throughput and peak memory of rdx on a generated 1,000,000-packet Rx capture
# (64 client hosts when genrx has -flows, so -j N has flows to share out),
# beside tshark and tcpdump when they are installed, with the machine's load.
# Numbers are packets/s of the whole command (start-up included), wall clock,
# file in page cache; cpu is user+system seconds (more than wall once rdx
# uses several cores). rdx runs with -j 1..nproc when it has -j. Ratios
# compare wall times (the issue's targets) and CPU times (which a machine
# busy with other work distorts less).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
N=${N:-1000000}
FLOWS=${FLOWS:-64}
dir=${BENCH_DIR:-$(mktemp -d)}
cap=$dir/rx-bench.pcap
make -s build # bin/rdx, built as the Makefile says
echo "load average: $(cat /proc/loadavg)   cores: $(nproc)"
gen=()
if grep -q -- -flows <<<"$(go run ./internal/cmd/genrx -h 2>&1)"; then
  gen=(-flows "$FLOWS")
fi
go run ./internal/cmd/genrx -n "$N" "${gen[@]}" -o "$cap"
settle "$cap"
count=$N unit=pkt/s
echo "capture: $cap ($N packets${gen:+, $FLOWS flows}, $(du -h "$cap" | cut -f1))"
fields=(-e rx.seq -e rx.callnumber -e rx.type -e ip.src)
js=("")
# The help text whole before grep: grep -q stops at its first match, and
# under pipefail rdx's SIGPIPE on the rest would fail the test at random.
if grep -q -- '-j' <<<"$(bin/rdx read --help 2>&1)"; then
  js=($(seq 1 "$(nproc)"))
fi
best_sum='' best_fields='' cpu_sum='' cpu_fields='' q_s=()
min() { awk -v a="$1" -v b="$2" 'BEGIN{print (b == "" || a < b) ? a : b}'; }
for j in "${js[@]}"; do
  jf=() jl=''
  if [ -n "$j" ]; then jf=(-j "$j") jl=" -j $j"; fi
  timeit "rdx read$jl (summary)"            bin/rdx read "${jf[@]}" "$cap"
  best_sum=$(min "$last_s" "$best_sum") cpu_sum=$(min "$last_cpu" "$cpu_sum")
  timeit "rdx read$jl -q (decode only)"     bin/rdx read "${jf[@]}" -q "$cap"
  q_s+=("$last_s")
  timeit "rdx read$jl -T fields (4 fields)" bin/rdx read "${jf[@]}" -T fields "${fields[@]}" "$cap"
  best_fields=$(min "$last_s" "$best_fields") cpu_fields=$(min "$last_cpu" "$cpu_fields")
done
# Scaling on decode only (issue 13): each -j N's -q time against -j 1's.
for ((i = 1; i < ${#q_s[@]}; i++)); do
  awk -v l="-q scaling, -j $((i + 1)) over -j 1" -v a="${q_s[i]}" -v b="${q_s[0]}" \
    'BEGIN{ if (a > 0) printf "%-34s %8.2fx\n", l, b/a }'
done
# For reference beside -j N: N separate `rdx read -j 1 -q` at once, which
# share nothing. Not a ceiling: -j 1 alone keeps a second core partly busy
# (its reader, the kernel's read copy), so N of them ask for ~1.25 N cores;
# a register-only or memory-bound test loop ran as fast two at a time as
# alone on the 2-core VM where this was measured.
if [ "${#js[@]}" -gt 1 ]; then
  np=$(nproc)
  count=$((N * np)) timeit "$np x rdx read -j 1 -q, at once" \
    bash -c 'for ((i = 0; i < $1; i++)); do "$2" read -j 1 -q "$3" & done; wait' _ "$np" bin/rdx "$cap"
fi
if command -v tshark >/dev/null; then
  timeit "tshark -r (summary)"           tshark -r "$cap" -d udp.port==7000,rx
  ratio "rdx/tshark summary (best rdx)" "$best_sum" "$last_s"
  ratio "  in CPU time" "$cpu_sum" "$last_cpu"
  timeit "tshark -T fields (4 fields)"   tshark -r "$cap" -d udp.port==7000,rx -T fields "${fields[@]}"
  ratio "rdx/tshark fields (best rdx)" "$best_fields" "$last_s"
  ratio "  in CPU time" "$cpu_fields" "$last_cpu"
else
  echo "tshark: not installed (apt-get install -y tshark) - skipped"
fi
if command -v tcpdump >/dev/null; then
  timeit "tcpdump -nn -r"                tcpdump -nn -r "$cap"
  ratio "rdx summary/tcpdump (best rdx)" "$best_sum" "$last_s"
  ratio "  in CPU time" "$cpu_sum" "$last_cpu"
else
  echo "tcpdump: not installed (apt-get install -y tcpdump) - skipped"
fi
echo "load average at the end: $(cat /proc/loadavg)"
# decoder benchmarks: Rx decode/summary, capture readers, MPA CRC throughput,
# RDS framing, InfiniBand decode with ICRC, TCP reassembly, and the pipeline
# library per mode (ns and allocations per frame)
go test -run '^$' -bench . -benchmem ./dissect/rx/ ./capture/ ./dissect/mpa/ ./dissect/rds/ ./dissect/ib/ ./reassembly/tcp/ ./pipeline/ | grep -E '^Benchmark|^ok'
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
