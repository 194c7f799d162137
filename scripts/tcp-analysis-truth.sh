#!/usr/bin/env bash
# tcp-analysis-truth CAPTURE...: tshark's tcp.analysis flags of every frame of each CAPTURE (-2 -n, as rdx reads;
# every column kept, so a flag rdx sets where tshark does not is a difference), as CAPTURE.tcp-analysis.tsv;
# dissect's TestTCPAnalysisTshark compares rdx with them. Needs tshark (4.0.17 made them).
set -euo pipefail
fields=(frame.number tcp.analysis.retransmission tcp.analysis.fast_retransmission tcp.analysis.spurious_retransmission
  tcp.analysis.out_of_order tcp.analysis.lost_segment tcp.analysis.duplicate_ack tcp.analysis.duplicate_ack_num
  tcp.analysis.duplicate_ack_frame tcp.analysis.keep_alive tcp.analysis.ack_lost_segment tcp.analysis.reused_ports)
args=()
for f in "${fields[@]}"; do args+=(-e "$f"); done
for cap in "$@"; do
  tshark -2 -n -r "$cap" -T fields -E header=y -E aggregator=';' "${args[@]}" 2>/dev/null > "$cap.tcp-analysis.tsv"
done
