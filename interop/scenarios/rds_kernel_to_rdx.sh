#!/bin/bash
# Linux rds_tcp sender (server guest, 192.0.2.1) -> rdx rds listen (client guest, 192.0.2.2).
# iface: eth0
# timeout: 600
# The lower address dials: the kernel connects to rdx's port 16385, sends its
# probe (when its port hashes to a path other than 0), and after rdx's pong
# opens the other paths. rds_tcp must NOT be loaded in this (client) guest:
# rdx owns port 16385 here.
# Pass: rdx delivered every message the kernel sent, byte for byte (sha256 per message).
. /lab/lib.sh
SIZES="0 1 100 1400 4095 4096 4097 5000 60000 100000 1048575 1048576 1"
N=$(wc -w <<<"$SIZES")
R "modprobe rds_tcp && lsmod | grep -w rds_tcp"
# no --count: rdx listens until the kernel closes its paths (rmmod below), so
# the kernel, the lower address, never finds the port closed and redials
rdx rds listen --addr $CLI --timeout 180s -o $OUT/received.bin --sums $OUT/rdx.sums --stats &
L=$!
sleep 2
R "python3 /lab/rdsk.py send $SRV 4000 $CLI 4001 5 /tmp/k.sums $SIZES > /tmp/k.log 2>&1; cat /tmp/k.log"
R "cat /tmp/k.sums" > $OUT/kernel.sums
R "rmmod rds_tcp"
wait $L
rc=$?
[ $rc = 0 ] && [ $(wc -l < $OUT/rdx.sums) = $N ] && same_sums $OUT/kernel.sums $OUT/rdx.sums
