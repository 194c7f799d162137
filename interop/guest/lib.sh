# Sourced by every scenario (interop/scenarios/NAME.sh) in the client guest.
# See interop/README.md for the contract.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
SRV=192.0.2.1;  CLI=192.0.2.2      # eth0: RDS / RoCE link (captured)
SRVW=198.51.100.1; CLIW=198.51.100.2 # eth1: iWARP link (captured)
# R CMD: run CMD on the server guest, wait, print its output, return its status.
R()  { timeout ${RTIMEOUT:-300} python3 /lab/ctl.py run "$1"; }
# RB CMD: start CMD on the server guest in the background (killed after the scenario).
RB() { python3 /lab/ctl.py run --bg "$1" | sed -n 's/^pid //p' >> /tmp/bgpids; }
log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }
# wait_file_srv FILE SECS: wait until FILE exists on the server guest.
wait_file_srv() { R "for i in \$(seq $2); do [ -e $1 ] && exit 0; sleep 1; done; exit 1"; }
# same_sums A B: the sha256 and length columns of two --sums style files agree.
same_sums() {
  if diff <(cut -d' ' -f1,2 "$1") <(cut -d' ' -f1,2 "$2") > "$OUT/sums.diff"; then
    log "sums agree: $(wc -l < "$1") messages"; return 0; fi
  log "sums DIFFER ($1 vs $2):"; head -20 "$OUT/sums.diff"; return 1
}
