#!/usr/bin/env bash
# zstats-truth CAPTURE...: tshark's -z io,phs, endpoints,ip|ipv6|tcp|udp and io,stat,1 of each CAPTURE (-2 -n,
# as rdx reads), as internal/tsharktest/testdata/zstats/NAME.txt (NAME: the path under pcaps/, / as _);
# internal/tsharktest's TestZStatsMatchTshark compares rdx's tables with them. Needs tshark (4.0.17 made them).
set -euo pipefail
out=internal/tsharktest/testdata/zstats
mkdir -p "$out"
for cap in "$@"; do
  name=${cap#pcaps/}
  tshark -2 -n -q -r "$cap" -z io,phs -z endpoints,ip -z endpoints,ipv6 -z endpoints,tcp -z endpoints,udp -z io,stat,1 \
    2>/dev/null > "$out/${name//\//_}.txt" || true
done
