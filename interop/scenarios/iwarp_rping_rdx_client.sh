#!/bin/bash
# rdx iwarp rping -c (client guest, 198.51.100.2, userspace) -> rdma-core rping server on
# Linux siw (server guest, 198.51.100.1).
# iface: eth1
# timeout: 300
# Three runs: plain (rev 2, CRC off), crc (rdx asks for CRCs: siw must use them, RFC 5044),
# p2p (siw peer_to_peer=1, rdx offers a Read RTR: siw replies with it and waits for
# rdx's zero-length RDMA Read before it sends).
# Then rdx asks for markers, which siw refuses: the Reply has R set.
# Pass: every run does 10 pings, rdx validates each (-V) and siw's rping printed all 10;
# the markers run ends with rdx reporting the reject.
. /lab/lib.sh
N=10
R "modprobe siw && rdma link add siw0 type siw netdev eth1 && rdma link show"
rc=0
for mode in plain crc p2p; do
  p2p=0; X=""
  case $mode in
    crc) X="--crc" ;;
    p2p) p2p=1; X="--p2p read" ;;
  esac
  R "echo $p2p > /sys/module/siw/parameters/peer_to_peer"
  log "run $mode"
  RB "rping -s -a $SRVW -S 100 -v > /tmp/rping-$mode.out 2>&1; echo rc=\$? >> /tmp/rping-$mode.out"
  sleep 2
  rdx iwarp rping -c -a $SRVW -C $N -S 100 -V -v -d $X --timeout 120s > $OUT/rdx-$mode.out 2> $OUT/rdx-$mode.err || { log "rdx $mode failed"; rc=1; }
  cat $OUT/rdx-$mode.err
  R "for i in \$(seq 20); do grep -q rc= /tmp/rping-$mode.out && break; sleep 0.5; done; cat /tmp/rping-$mode.out" > $OUT/rping-$mode.out
  got=$(grep -c '^ping data: rdma-ping-' $OUT/rdx-$mode.out)
  seen=$(grep -c '^server ping data: rdma-ping-' $OUT/rping-$mode.out)
  log "$mode: rdx printed $got, rping served $seen, $(grep rc= $OUT/rping-$mode.out)"
  [ "$got" = $N ] && [ "$seen" = $N ] && grep -q '^rc=0' $OUT/rping-$mode.out || rc=1
done
# Markers: siw does not do them and rejects a Request with M=1 (R bit);
# rdx must report the reject and exit 2.
log "run markers (siw rejects)"
RB "rping -s -a $SRVW -S 100 > /tmp/rping-markers.out 2>&1"
sleep 2
rdx iwarp rping -c -a $SRVW -C 1 -S 100 --markers -d --timeout 60s > $OUT/rdx-markers.out 2> $OUT/rdx-markers.err
mrc=$?
cat $OUT/rdx-markers.err
log "markers: rdx exit $mrc"
[ $mrc = 2 ] && grep -q "MPA connection rejected by the responder" $OUT/rdx-markers.err || rc=1
# the listening rping (its process group, as the driver kills RB jobs) holds siw
R "kill -- -$(tail -1 /tmp/bgpids) 2>/dev/null; true"
R "echo 0 > /sys/module/siw/parameters/peer_to_peer; rdma link delete siw0; rmmod siw"
exit $rc
