#!/bin/bash
# Boot the two interop guests under qemu, run the scenarios (all, or a comma
# list of names from interop/scenarios/), and report PASS/FAIL per scenario.
# Exit status: 0 when every scenario passed. Each scenario's capture is then
# run through the host's `rdx check` (reported, not part of pass/fail).
# Links between the guests are qemu stream netdevs over unix sockets in $RUN:
# nothing reaches the host network. Build first: interop/build-guest.sh.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-${TMPDIR:-/tmp}/rdx-interop}
ONLY=${1:-}
RUN=$WORK/run-$(date +%Y%m%d-%H%M%S)
mkdir -p $RUN/out/server $RUN/out/client
[ -f $WORK/initrd.cpio ] || { echo "no guest in $WORK: run interop/build-guest.sh first" >&2; exit 2; }
# /dev/kvm may exist and still hang a nested guest at boot ("Probing EDD"):
# software emulation (TCG) is the default, LAB_ACCEL=kvm where KVM works.
if [ "${LAB_ACCEL:-tcg}" = kvm ]; then ACCEL="-accel kvm -cpu host"; else ACCEL="-accel tcg -cpu max"; fi
echo "run dir $RUN, accel: $ACCEL, scenarios: ${ONLY:-all}"
t0=$(date +%s)

guest() {  # role mac-suffix server(on/off)
  local role=$1 m=$2 srv=$3 nets="" i
  for i in 0 1 2; do
    nets+=" -netdev stream,id=n$i,server=$srv,addr.type=unix,addr.path=$RUN/link$i.sock"
    nets+=" -device virtio-net-pci,netdev=n$i,mac=52:54:00:00:0$i:0$m"
  done
  qemu-system-x86_64 $ACCEL -m 2048 -smp 2 -nodefaults -display none -no-reboot \
    -kernel $WORK/vmlinuz -initrd $WORK/initrd.cpio \
    -append "console=ttyS0 panic=-1 loglevel=4 no_timer_check lab.role=$role${ONLY:+ lab.only=$ONLY}" \
    -serial file:$RUN/$role.serial.log \
    -virtfs local,path=$RUN/out/$role,mount_tag=out,security_model=none,id=out \
    $nets > $RUN/$role.qemu.log 2>&1 &
  echo $!
}
SPID=$(guest server 1 on)
for _ in $(seq 100); do [ -S $RUN/link2.sock ] && break; sleep 0.1; done
CPID=$(guest client 2 off)
echo "server qemu pid $SPID, client qemu pid $CPID"
trap 'kill $SPID $CPID 2>/dev/null' EXIT
# wait (at most ${INTEROP_MAX:-3600} s) for the client guest to power off; a
# server guest gone before the client (a panic at boot) fails the run at once
for _ in $(seq ${INTEROP_MAX:-3600}); do
  kill -0 $CPID 2>/dev/null || break
  if ! kill -0 $SPID 2>/dev/null && [ ! -e $RUN/out/client/done ]; then
    echo "server guest exited early: $(grep -m1 -i 'panic' $RUN/server.serial.log || tail -1 $RUN/server.serial.log)"
    echo "(a boot failure under TCG on a loaded host: run again)"; kill $CPID; wait 2>/dev/null; exit 1
  fi
  sleep 1
done
sleep 5
for p in $SPID $CPID; do kill -0 $p 2>/dev/null && { echo "killing qemu $p"; kill $p; }; done
wait 2>/dev/null
echo "guests ran $(( $(date +%s) - t0 )) s"

RES=$RUN/out/client/results.txt
[ -s $RES ] || { echo "no results (see $RUN/*.serial.log)"; exit 1; }
RDX=${RDX:-$WORK/rootfs/usr/local/bin/rdx}
while read -r name verdict rest; do
  pc=$RUN/out/client/$name/$name.pcap
  chk="no capture"
  if [ -s "$pc" ] && [ -x "$RDX" ]; then
    "$RDX" check "$pc" > $RUN/out/client/$name/check.txt 2>&1
    case $? in 0) chk="check clean";; 1) chk="check FINDINGS (see $name/check.txt)";; *) chk="check error";; esac
  fi
  echo "$name $verdict $rest, $chk"
done < $RES | tee $RUN/summary.txt
echo "results in $RUN/out/client (per scenario: log.txt, capture, sums); total $(( $(date +%s) - t0 )) s"
! grep -qv ' PASS ' $RUN/summary.txt
