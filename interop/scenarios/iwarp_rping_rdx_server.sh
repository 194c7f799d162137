#!/bin/bash
# rdma-core rping client on Linux siw (server guest, 198.51.100.1) -> rdx iwarp rping -s
# (client guest, 198.51.100.2, userspace: siw is not loaded here, rdx owns TCP 7174).
# iface: eth1
# timeout: 300
# Three runs, siw's MPA knobs set through its (lab-patched) module parameters:
#   plain: MPA rev 2, CRC off, IRD/ORD 1/1 (siw's defaults)
#   crc:   siw mpa_crc_required=1 (its Request has C=1: CRC on both ways)
#   p2p:   siw peer_to_peer=1 (it offers Write and Read RTRs; rdx picks Write; siw sends a zero-length Write first)
# Pass: every run does 10 pings, rping validates each (-V) and rdx printed all 10.
. /lab/lib.sh
N=10
R "modprobe siw && rdma link add siw0 type siw netdev eth1 && rdma link show"
rc=0
for mode in plain crc p2p; do
  crc=0; p2p=0; X=""
  case $mode in
    crc) crc=1 ;;
    p2p) p2p=1; X="--p2p any" ;;
  esac
  R "echo $crc > /sys/module/siw/parameters/mpa_crc_required; echo $p2p > /sys/module/siw/parameters/peer_to_peer"
  log "run $mode"
  rdx iwarp rping -s -a $CLIW -S 100 -v -d $X --timeout 120s > $OUT/rdx-$mode.out 2> $OUT/rdx-$mode.err &
  S=$!
  sleep 1
  R "rping -c -a $CLIW -C $N -S 100 -V -v" > $OUT/rping-$mode.out 2>&1 || { log "rping $mode failed"; rc=1; }
  wait $S || { log "rdx $mode failed: $(cat $OUT/rdx-$mode.err)"; rc=1; }
  cat $OUT/rdx-$mode.err
  got=$(grep -c '^server ping data: rdma-ping-' $OUT/rdx-$mode.out)
  seen=$(grep -c '^ping data: rdma-ping-' $OUT/rping-$mode.out)
  log "$mode: rdx served $got, rping printed $seen"
  [ "$got" = $N ] && [ "$seen" = $N ] || rc=1
done
R "echo 0 > /sys/module/siw/parameters/mpa_crc_required; echo 0 > /sys/module/siw/parameters/peer_to_peer; rdma link delete siw0; rmmod siw"
exit $rc
