#!/bin/bash
# rdx rds send --impair (client guest) -> Linux rds_tcp receiver (server guest):
# what the kernel does with exactly one dropped, one duplicated and one
# reordered RDS message (a unit = one message written to TCP).
# iface: eth0
# timeout: 600
# Ten 1000-octet messages with drop=3,dup=6,reorder=9. Linux rds_recv_incoming
# does not look for sequence gaps (it delivers the next message and expects
# seq+1 from then on) and drops a message below its next expected sequence
# number only when it carries RDS_FLAG_RETRANSMITTED. So the kernel should
# deliver 1 2 4 5 6 6 7 8 10 9: message 3 lost, 6 twice, 9 after 10.
# Pass: the kernel's per-message sha256 list is exactly that.
. /lab/lib.sh
KSRV=192.0.2.200
R "ip addr add $KSRV/24 dev eth0 2>/dev/null; modprobe rds_tcp && lsmod | grep -w rds_tcp"
RB "python3 /lab/rdsk.py recv $KSRV 4000 10 60 /tmp/k.sums > /tmp/k.log 2>&1"
sleep 3
head -c 10000 /dev/urandom > /tmp/in.bin
rdx rds send $KSRV --sport 4001 --dport 4000 --size 1000 --impair drop=3,dup=6,reorder=9 --sums $OUT/rdx.sums --stats --timeout 60s /tmp/in.bin
rc=$?
wait_file_srv /tmp/k.sums.done 90
R "cat /tmp/k.sums" > $OUT/kernel.sums
R "cat /tmp/k.log" > $OUT/kernel.log
R "rmmod rds_tcp; ip addr del $KSRV/24 dev eth0"
for i in 1 2 4 5 6 6 7 8 10 9; do sed -n "${i}p" $OUT/rdx.sums; done > $OUT/expected.sums
[ $rc = 0 ] && same_sums $OUT/expected.sums $OUT/kernel.sums
