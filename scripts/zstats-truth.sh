#!/usr/bin/env bash
# zstats-truth CAPTURE...: tshark's -z io,phs, endpoints,ip|ipv6|tcp|udp and io,stat,1, then endpoints,eth,
# conv,eth|ip|ipv6|tcp|udp and the forms with a FILTER (ZFILTERED below) of each CAPTURE (-2 -n,
# as rdx reads), as internal/tsharktest/testdata/zstats/NAME.txt (NAME: the path under pcaps/, / as _);
# internal/tsharktest's TestZStatsMatchTshark compares rdx's tables with them. Needs tshark (4.0.17 made them).
set -euo pipefail
out=internal/tsharktest/testdata/zstats
mkdir -p "$out"
for cap in "$@"; do
  name=${cap#pcaps/}
  tshark -2 -n -q -r "$cap" -z io,phs -z endpoints,ip -z endpoints,ipv6 -z endpoints,tcp -z endpoints,udp -z io,stat,1 \
    -z endpoints,eth -z conv,eth -z conv,ip -z conv,ipv6 -z conv,tcp -z conv,udp \
    -z 'conv,tcp,tcp.len>0' -z 'endpoints,udp,frame.len>100' -z 'conv,ip,ip.ttl<64' \
    -z 'io,stat,1,tcp,udp,COUNT(tcp.len)tcp.len>0,SUM(udp.length)udp.length>0' \
    2>/dev/null > "$out/${name//\//_}.txt" || true
done
