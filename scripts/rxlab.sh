#!/usr/bin/env bash
# rxlab.sh - bring a throwaway one-server OpenAFS cell up on loopback, inside
# private network/mount/UTS namespaces, run one command there, tear it down.
#
#     RXLAB_RUN='CMD' bash scripts/rxlab.sh
#
# Used by cmd/rdx's TestRxInteropOpenAFS (make interop-rx) to compare rdx's
# Rx stack with OpenAFS's own tools. Needs root and Debian's openafs-dbserver,
# openafs-fileserver and openafs-client (RXLAB_INSTALL=1 installs them).
#
# The cell (rxlab.test) runs at 127.1.0.1, not 127.0.0.x: OpenAFS treats
# 127.0.0.0/16 as loopback and refuses to register such an address. NetInfo
# "f 127.1.0.1" registers an address no interface carries, and every server
# runs with -rxbind. The hostname is afslab (a private /etc/hosts says
# 127.1.0.1), because ubik looks its own name up in the CellServDB. CMD sees
# SRV=127.1.0.1; the servers are ptserver 7002, vlserver 7003, fileserver
# 7000, volserver 7005 and bosserver 7007 (-noauth: rxnull calls are
# allowed). The configuration files replaced are restored at the end, and
# only processes this script started are stopped, by PID.
set -uo pipefail

LAB=${LAB:-/tmp/rdx-rxlab}
SRV=127.1.0.1
CELL=rxlab.test
HOSTNAME_NS=afslab
MARK=/var/lib/openafs/.rxlab-owned
PKGS=(openafs-dbserver openafs-fileserver openafs-client)

log() { echo "[rxlab $(date +%H:%M:%S)] $*" >&2; }
die() { log "ERROR: $*"; exit 3; }

[ "$(id -u)" = 0 ] || die "must run as root"
[ -n "${RXLAB_RUN:-}" ] || die "set RXLAB_RUN to the command to run with the cell up"

if [ "${RXLAB_INNER:-0}" != 1 ]; then
    need=()
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
    done
    if [ ${#need[@]} -gt 0 ]; then
        [ "${RXLAB_INSTALL:-0}" = 1 ] || die "missing packages: ${need[*]} (RXLAB_INSTALL=1 installs them)"
        made_policy=0
        if [ ! -e /usr/sbin/policy-rc.d ]; then
            # keep the maintainer scripts from starting bosserver/afsd
            printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
            chmod 755 /usr/sbin/policy-rc.d
            made_policy=1
        fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}"
        rc=$?
        [ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
        # openafs-client's kernel module build fails in containers; harmless
        [ $rc = 0 ] || dpkg-query -W openafs-dbserver >/dev/null 2>&1 || die "apt-get install failed"
    fi
    mkdir -p "$LAB"
    # one lab at a time: the cell's configuration lives in /etc/openafs
    mkdir -p /run/lock
    exec 9> /run/lock/rdx-rxlab.lock
    flock -w 900 9 || die "another rxlab.sh holds /run/lock/rdx-rxlab.lock"
    exec unshare --net --mount --uts --propagation private env RXLAB_INNER=1 LAB="$LAB" RXLAB_RUN="$RXLAB_RUN" bash "$0"
fi

# ---- inside the namespaces ----
ip link set lo up || die "cannot bring lo up in the new netns"
printf '127.0.0.1\tlocalhost\n%s\t%s\n' "$SRV" "$HOSTNAME_NS" > "$LAB/hosts"
mount --bind "$LAB/hosts" /etc/hosts || die "cannot bind-mount /etc/hosts"
hostname "$HOSTNAME_NS"

BOS_PID=
restore_config() {
    for f in /etc/openafs/ThisCell /etc/openafs/CellServDB \
             /etc/openafs/server/ThisCell /etc/openafs/server/CellServDB; do
        if [ -e "$f.rxlab-orig" ]; then mv -f "$f.rxlab-orig" "$f"; fi
        if [ -e "$f.rxlab-absent" ]; then rm -f "$f" "$f.rxlab-absent"; fi
    done
    rm -f /etc/openafs/server/KeyFile /etc/openafs/server/KeyFileExt /etc/openafs/server/UserList \
          /var/lib/openafs/local/NetInfo /var/lib/openafs/local/NoAuth /etc/openafs/BosConfig \
          /etc/openafs/bosserver.rxbind /var/lib/openafs/local/fssync.sock
}
cleanup() {
    set +e
    if [ -n "$BOS_PID" ] && kill -0 "$BOS_PID" 2>/dev/null; then
        log "stopping the cell (bos shutdown, then bosserver pid $BOS_PID)"
        children=$(ps -o pid= --ppid "$BOS_PID" 2>/dev/null | tr '\n' ' ')
        timeout 60 bos shutdown -server "$SRV" -wait -noauth >/dev/null 2>&1
        kill "$BOS_PID" 2>/dev/null
        for i in $(seq 1 20); do kill -0 "$BOS_PID" 2>/dev/null || break; sleep 0.5; done
        kill -0 "$BOS_PID" 2>/dev/null && kill -KILL "$BOS_PID"
        wait "$BOS_PID" 2>/dev/null
        for p in $children; do kill -0 "$p" 2>/dev/null && kill "$p"; done
    fi
    restore_config
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -e /etc/openafs/BosConfig ] || [ -n "$(ls -A /var/lib/openafs/db 2>/dev/null)" ] || [ -e /vicepa ]; then
    [ -e "$MARK" ] || [ "${RXLAB_FORCE:-0}" = 1 ] ||
        die "existing AFS server state (BosConfig, /var/lib/openafs/db or /vicepa) not made by this lab; RXLAB_FORCE=1 wipes it"
fi
log "writing cell $CELL (server $SRV)"
for f in /etc/openafs/ThisCell /etc/openafs/CellServDB \
         /etc/openafs/server/ThisCell /etc/openafs/server/CellServDB; do
    if [ ! -e "$f.rxlab-orig" ] && [ ! -e "$f.rxlab-absent" ]; then
        if [ -e "$f" ]; then cp -p "$f" "$f.rxlab-orig"; else touch "$f.rxlab-absent"; fi
    fi
done
mkdir -p /etc/openafs/server /var/lib/openafs/db /var/lib/openafs/local /var/log/openafs
rm -f /etc/openafs/BosConfig /etc/openafs/bosserver.rxbind \
      /etc/openafs/server/KeyFile /etc/openafs/server/KeyFileExt /etc/openafs/server/UserList
rm -rf /var/lib/openafs/db/* /var/lib/openafs/local/* /var/log/openafs/* /vicepa
mkdir -p /vicepa && touch /vicepa/AlwaysAttach
touch "$MARK"
printf '%s\n' "$CELL" > /etc/openafs/server/ThisCell
printf '%s\n' "$CELL" > /etc/openafs/ThisCell
printf '>%s\t#rdx Rx lab cell\n%s\t#%s\n' "$CELL" "$SRV" "$HOSTNAME_NS" > /etc/openafs/server/CellServDB
cp /etc/openafs/server/CellServDB /etc/openafs/CellServDB
printf 'f %s\n' "$SRV" > /var/lib/openafs/local/NetInfo

log "starting bosserver -noauth -rxbind"
/usr/sbin/bosserver -noauth -nofork -rxbind > "$LAB/bosserver.out" 2>&1 &
BOS_PID=$!
for i in $(seq 1 50); do grep -q 'Listening on' /var/log/openafs/BosLog 2>/dev/null && break; sleep 0.2; done
grep -q "Listening on $SRV:7007" /var/log/openafs/BosLog || die "bosserver did not come up on $SRV:7007"

q() { "$@" > "$LAB/setup.log" 2>&1 || log "warning: $* failed: $(tail -1 "$LAB/setup.log")"; }
q bos create -server $SRV -instance ptserver -type simple -cmd "/usr/lib/openafs/ptserver -rxbind" -noauth
q bos create -server $SRV -instance vlserver -type simple -cmd "/usr/lib/openafs/vlserver -rxbind" -noauth
q bos create -server $SRV -instance fs -type fs \
    -cmd "/usr/lib/openafs/fileserver -rxbind" "/usr/lib/openafs/volserver -rxbind -jumbo" /usr/lib/openafs/salvager -noauth
# wait for ubik quorum (vos/pts answer) and the fileserver
for i in $(seq 1 120); do
    udebug $SRV 7003 2>/dev/null | grep -q 'I am sync site' && grep -q 'File Server started' /var/log/openafs/FileLog 2>/dev/null && break
    sleep 0.5
done
for i in $(seq 1 60); do
    vos create -server $SRV -partition a -name root.cell -noauth > "$LAB/vos-create.log" 2>&1 && break
    sleep 1
done
grep -q 'created' "$LAB/vos-create.log" || log "warning: vos create root.cell: $(tail -1 "$LAB/vos-create.log")"
log "cell up; running RXLAB_RUN"
SRV=$SRV bash -c "$RXLAB_RUN"
rc=$?
log "RXLAB_RUN exit $rc"
exit $rc
