#!/usr/bin/env bash
# bif-truth CAPTURE...: tshark's tcp.analysis.bytes_in_flight of every frame of each CAPTURE (-2 -n, as rdx reads),
# as CAPTURE.tcp-bif.tsv; dissect's TestTCPBytesInFlightTshark compares rdx with them. Needs tshark (4.0.17 made them).
set -euo pipefail
for cap in "$@"; do
  tshark -2 -n -r "$cap" -T fields -E header=y -e frame.number -e tcp.analysis.bytes_in_flight 2>/dev/null > "$cap.tcp-bif.tsv"
done
