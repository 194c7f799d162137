#!/usr/bin/env python3
"""The kernel side of the RDS interop scenarios: AF_RDS sockets over rds_tcp.
  rdsk.py recv LOCAL_IP PORT COUNT SECONDS SUMS   receive COUNT messages (or until SECONDS pass)
  rdsk.py send LOCAL_IP PORT PEER_IP PEER_PORT LINGER SUMS SIZES...
                                                  send one message per size, then stay LINGER s
SUMS gets one line per message, "sha256 length", as `rdx rds --sums` writes them
(their first two columns); SUMS.done is created when recv/send has finished."""
import hashlib, os, socket, sys, time

SOL_RDS = 276
SO_RDS_TRANSPORT = 8
RDS_TRANS_TCP = 2

def sock(ip, port):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    # 1 MiB messages: rds_sendmsg refuses payloads over SO_SNDBUF/2
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP)   # must precede bind
    s.bind((ip, int(port)))
    return s

def line(f, data):
    f.write("%s %d\n" % (hashlib.sha256(data).hexdigest(), len(data)))
    f.flush()

def recv(ip, port, count, secs, sums):
    s = sock(ip, port)
    s.settimeout(1.0)
    end = time.time() + float(secs)
    n = 0
    with open(sums, "w") as f:
        print("rdsk: bound", s.getsockname(), flush=True)
        while n < int(count) and time.time() < end:
            try:
                data, peer = s.recvfrom(1 << 21)
            except socket.timeout:
                continue
            n += 1
            print("rdsk: got %d bytes from %s" % (len(data), peer), flush=True)
            line(f, data)
    open(sums + ".done", "w").write("%d\n" % n)
    return 0 if n == int(count) else 1

def send(ip, port, peer_ip, peer_port, linger, sums, sizes):
    s = sock(ip, port)
    peer = (peer_ip, int(peer_port))
    with open(sums, "w") as f:
        for i, sz in enumerate(sizes):
            data = os.urandom(int(sz))
            s.sendto(data, peer)
            print("rdsk: sent %d bytes to %s" % (len(data), peer), flush=True)
            line(f, data)
    time.sleep(float(linger))   # closing the socket would drop messages not yet transmitted
    open(sums + ".done", "w").write("%d\n" % len(sizes))
    return 0

if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "recv":
        sys.exit(recv(*a[1:6]))
    sys.exit(send(a[1], a[2], a[3], a[4], a[5], a[6], a[7:]))
