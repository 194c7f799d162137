#!/usr/bin/env bash
# iostat-truth CAPTURE...: tshark's -z io,stat with MIN/MAX/AVG/LOAD columns (IOSTAT_COLS below) of each
# CAPTURE (-2 -n, as rdx reads), as internal/tsharktest/testdata/iostat/NAME.txt (NAME: the path under pcaps/,
# / as _); internal/tsharktest's TestIOStatFnsMatchTshark compares rdx's table with them. The interval is 0.1 s
# for captures up to 20 s long, 1 s for longer ones. Each FIELD is its column's FILTER too: tshark 4.0 leaves a
# field nothing else names out of the tree and prints 0 for it. Needs tshark and capinfos (4.0.17 made them).
set -euo pipefail
out=internal/tsharktest/testdata/iostat
cols='MIN(frame.len)frame.len,MAX(frame.len)frame.len,AVG(frame.len)frame.len'
cols+=',MIN(tcp.len)tcp.len,MAX(tcp.len)tcp.len,AVG(tcp.len)tcp.len'
cols+=',MIN(rx.seq)rx.seq,MAX(rx.seq)rx.seq,AVG(rx.seq)rx.seq'
cols+=',MIN(rpc.time)rpc.time,MAX(rpc.time)rpc.time,AVG(rpc.time)rpc.time,LOAD(rpc.time)rpc.time'
cols+=',MAX(frame.time_delta)frame.time_delta,AVG(frame.time_delta)frame.time_delta'
mkdir -p "$out"
for cap in "$@"; do
  name=${cap#pcaps/}
  dur=$(capinfos -T -r -u "$cap" 2>/dev/null | cut -f2)
  iv=1
  if awk -v d="${dur:-1e9}" 'BEGIN { exit !(d + 0 <= 20) }'; then iv=0.1; fi
  tshark -2 -n -q -r "$cap" -z "io,stat,$iv,$cols" 2>/dev/null > "$out/${name//\//_}.txt" || true
done
# Other intervals on the RPC captures, for LOAD's rows and the last row's rounding (0: the whole capture):
# internal/tsharktest/testdata/iostat/intervals/NAME@INTERVAL.txt, the rpc.time columns only.
mkdir -p "$out/intervals"
rpc='MIN(rpc.time)rpc.time,MAX(rpc.time)rpc.time,AVG(rpc.time)rpc.time,LOAD(rpc.time)rpc.time,SUM(rpc.time)rpc.time,COUNT(rpc.time)rpc.time'
for cap in "$@"; do
  case "$cap" in *nfs3_rdma_roce.pcap|*nfs3_rdma_iwarp.pcap|*nfs42_acl_rdma_roce.pcap) ;; *) continue ;; esac
  case "$cap" in *lossy*) continue ;; esac
  name=${cap#pcaps/}
  for iv in 0 10 0.05 0.25 0.3 1.5 2; do
    tshark -2 -n -q -r "$cap" -z "io,stat,$iv,$rpc" 2>/dev/null > "$out/intervals/${name//\//_}@$iv.txt" || true
  done
done
