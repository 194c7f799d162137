#!/bin/bash
# rdx rds send (client guest) -> Linux rds_tcp receiver (server guest).
# iface: eth0
# timeout: 600
# The kernel accepts RDS/TCP only from a lower address than its own, so its
# socket is bound to 192.0.2.200 (added on the server's eth0), above the
# client's 192.0.2.2: rdx dials, the kernel accepts all 8 paths.
# Pass: the kernel delivered every message, byte for byte (sha256 per message).
. /lab/lib.sh
KSRV=192.0.2.200
SIZES=0,1,100,1400,4095,4096,4097,5000,60000,100000,1048575,1048576,1
N=$(tr ',' '\n' <<<"$SIZES" | wc -l)
R "ip addr add $KSRV/24 dev eth0 2>/dev/null; modprobe rds_tcp && lsmod | grep -w rds_tcp"
RB "python3 /lab/rdsk.py recv $KSRV 4000 $N 240 /tmp/k.sums > /tmp/k.log 2>&1"
sleep 3
total=$(tr "," "\n" <<<"$SIZES" | awk "{s+=\$1} END{print s}")
head -c $total /dev/urandom > /tmp/in.bin
rdx rds send $KSRV --sport 4001 --dport 4000 --sizes $SIZES --sums $OUT/rdx.sums --stats --timeout 60s /tmp/in.bin
rc=$?
wait_file_srv /tmp/k.sums.done 120
R "cat /tmp/k.sums" > $OUT/kernel.sums
R "cat /tmp/k.log; cat /proc/net/rds/* 2>/dev/null | head -50; rds-info 2>/dev/null | head" > $OUT/kernel.log 2>&1
R "rmmod rds_tcp; ip addr del $KSRV/24 dev eth0"
[ $rc = 0 ] && [ $(wc -l < $OUT/kernel.sums) = $N ] && same_sums $OUT/rdx.sums $OUT/kernel.sums
