#!/bin/bash
# Scenario driver, runs in the client guest: for each scenario selected on the
# kernel command line (lab.only=a,b; default all), capture its interface into
# /out/NAME/NAME.pcap, run /lab/scenarios/NAME.sh with OUT=/out/NAME, and
# record "NAME PASS|FAIL rc=N secs=S" in /out/results.txt.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ONLY=$(sed -n 's/.*lab\.only=\([^ ]*\).*/\1/p' /proc/cmdline)
RES=/out/results.txt; : > $RES
log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }
log "waiting for the server guest's control channel"
python3 /lab/ctl.py wait || { log "server not reachable"; echo "ALL FAIL server-unreachable" >> $RES; exit 1; }
log "server up"
for f in /lab/scenarios/*.sh; do
  name=$(basename $f .sh)
  [ -z "$ONLY" ] || [[ ",$ONLY," == *",$name,"* ]] || continue
  iface=$(sed -n 's/^# iface: *\([a-z0-9]*\).*/\1/p' $f | head -1); iface=${iface:-eth0}
  tmo=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' $f | head -1); tmo=${tmo:-600}
  export OUT=/out/$name; mkdir -p $OUT
  log "=== $name (capture $iface, timeout ${tmo}s)"
  # into tmpfs with a 32 MiB buffer, copied to the 9p share afterwards: straight
  # onto 9p under TCG, tcpdump dropped a quarter of a 1 MiB burst
  tcpdump -i $iface -s 0 -B 32768 -n -w /tmp/$name.pcap 2>$OUT/tcpdump.txt &
  cap=$!
  for _ in $(seq 50); do grep -q listening $OUT/tcpdump.txt 2>/dev/null && break; sleep 0.1; done
  t0=$(date +%s.%N)
  ( set -x; timeout $tmo bash $f ) > $OUT/log.txt 2>&1
  rc=$?
  secs=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
  sleep 1; kill -INT $cap; wait $cap 2>/dev/null
  cp /tmp/$name.pcap $OUT/$name.pcap && rm -f /tmp/$name.pcap
  drops=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' $OUT/tcpdump.txt)
  for p in $(cat /tmp/bgpids 2>/dev/null); do python3 /lab/ctl.py run "kill -- -$p 2>/dev/null; true" >/dev/null 2>&1; done; : > /tmp/bgpids
  if [ $rc = 0 ]; then v=PASS; else v=FAIL; fi
  log "=== $name $v rc=$rc secs=$secs capture-dropped=${drops:-?}"
  echo "$name $v rc=$rc secs=$secs capture-dropped=${drops:-?}" >> $RES
  tail -n 8 $OUT/log.txt
done
touch /out/done   # run.sh: from here the server guest may power off first
python3 /lab/ctl.py quit >/dev/null 2>&1
