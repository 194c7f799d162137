#!/usr/bin/env bash
# bench-live: how fast `rdx replay --topspeed` sends across a veth pair, and
# whether `rdx capture` keeps up with that rate (captured vs dropped). The
# traffic is a synthetic capture (rdx synth, default roce-nfs: frames of
# 62-1086 octets) replayed LOOP times.
#
# Needs root: it creates two network namespaces joined by a veth pair
# (198.51.100.1/24 and 198.51.100.2/24, documentation addresses), so nothing
# reaches a real network, and the trap removes them whatever happens.
#
#   sudo scripts/bench-live.sh            # LOOP=50 SCENARIO=roce-nfs
#   sudo LOOP=200 SCENARIO=mpa scripts/bench-live.sh
set -euo pipefail
cd "$(dirname "$0")/.."
LOOP=${LOOP:-50}
SCENARIO=${SCENARIO:-roce-nfs}
MESSAGES=${MESSAGES:-100}

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: bench-live needs root (network namespaces, veth, AF_PACKET); run it with sudo"
  exit 0
fi
if ! command -v ip >/dev/null; then
  echo "SKIP: bench-live needs iproute2 (ip)"
  exit 0
fi

id=$$
nsA=rdxbA$id nsB=rdxbB$id ifA=rdxba$id ifB=rdxbb$id
dir=$(mktemp -d)
cap_pid=
cleanup() {
  if [ -n "$cap_pid" ]; then kill "$cap_pid" 2>/dev/null || true; fi
  ip netns del "$nsA" 2>/dev/null || true
  ip netns del "$nsB" 2>/dev/null || true
  ip link del "$ifA" 2>/dev/null || true # only left if the move into nsA failed
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

bin=$dir/rdx
make -s build BIN="$bin" # built as the Makefile says

ip netns add "$nsA"
ip netns add "$nsB"
ip link add "$ifA" type veth peer name "$ifB"
ip link set "$ifA" netns "$nsA"
ip link set "$ifB" netns "$nsB"
for x in "$nsA $ifA" "$nsB $ifB"; do
  set -- $x
  # No IPv6: router solicitations and MLD reports would be counted.
  ip netns exec "$1" sh -c "for k in all default $2; do echo 1 > /proc/sys/net/ipv6/conf/\$k/disable_ipv6; done"
done
ip -n "$nsA" addr add 198.51.100.1/24 dev "$ifA"
ip -n "$nsB" addr add 198.51.100.2/24 dev "$ifB"
ip -n "$nsA" link set "$ifA" up
ip -n "$nsB" link set "$ifB" up
macA=$(ip netns exec "$nsA" cat "/sys/class/net/$ifA/address")
macB=$(ip netns exec "$nsB" cat "/sys/class/net/$ifB/address")

src=$dir/$SCENARIO.pcapng
"$bin" synth "$SCENARIO" --messages "$MESSAGES" -w "$src" 2>"$dir/synth.err"
frames=$(sed -n 's/.*wrote \([0-9]*\) frames.*/\1/p' "$dir/synth.err")
want=$((frames * LOOP))
echo "traffic: rdx synth $SCENARIO --messages $MESSAGES ($frames frames, $(stat -c %s "$src") octets) x $LOOP loops = $want packets"

# The capture stops by itself after $want packets; if some are dropped it
# is stopped (SIGINT) a few seconds after the replay ends.
ip netns exec "$nsB" "$bin" capture -i "$ifB" -Q in -w "$dir/captured.pcapng" -c "$want" 2>"$dir/capture.err" &
cap_pid=$!
for _ in $(seq 200); do
  grep -q 'capturing on' "$dir/capture.err" && break
  kill -0 "$cap_pid" 2>/dev/null || { cat "$dir/capture.err"; exit 1; }
  sleep 0.1
done

ip netns exec "$nsA" "$bin" replay "$src" -i "$ifA" --topspeed --loop "$LOOP" \
  --rewrite "eth.src=$macA" --rewrite "eth.dst=$macB" 2>"$dir/replay.err" || { cat "$dir/replay.err"; exit 1; }
for _ in $(seq 50); do
  kill -0 "$cap_pid" 2>/dev/null || break
  sleep 0.1
done
kill -INT "$cap_pid" 2>/dev/null || true
wait "$cap_pid" || true
cap_pid=

sent=$(grep -o 'sent .*' "$dir/replay.err" || true)
got=$(grep -o '[0-9]* packets captured.*' "$dir/capture.err" || true)
echo "replay --topspeed: ${sent:-no statistics: $(cat "$dir/replay.err")}"
echo "capture -i:        ${got:-no statistics: $(cat "$dir/capture.err")}"
captured=$(echo "$got" | sed -n 's/^\([0-9]*\) packets captured.*/\1/p')
dropped=$(echo "$got" | sed -n 's/.* \([0-9]*\) dropped by kernel.*/\1/p')
if [ "${captured:-0}" -eq "$want" ] && [ "${dropped:-1}" -eq 0 ]; then
  echo "result: all $want packets captured at the replay's top speed, 0 dropped"
else
  echo "result: captured ${captured:-?} of $want, ${dropped:-?} dropped by the kernel"
fi
