package replay

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/internal/inet"
)

const ptsOps = "../../pcaps/rx/pts-ops.pcap"

func mustRewrites(t *testing.T, ss ...string) []Rewrite {
	t.Helper()
	var rs []Rewrite
	for _, s := range ss {
		r, err := ParseRewrite(s)
		if err != nil {
			t.Fatal(err)
		}
		if r.String() != s {
			t.Errorf("String() = %q, want %q", r.String(), s)
		}
		rs = append(rs, r)
	}
	return rs
}

// applied is Apply for frames the rewriter must be able to fix.
func applied(t *testing.T, rs []Rewrite, b []byte) bool {
	t.Helper()
	changed, why := Apply(rs, b)
	if why != OK {
		t.Fatalf("frame not fixable: %v", why)
	}
	return changed
}

// valid reports whether the ones'-complement sum over b (checksum field
// included) is all ones.
func valid(s uint32, b []byte) bool { return inet.Fold(inet.Sum(s, b)) == 0xffff }

func udpValid(f frame) bool {
	seg := f.b[f.l4:f.l3End]
	s := inet.Sum(0, f.b[f.l3+12:f.l3+20]) + uint32(f.proto) + uint32(len(seg))
	return valid(s, seg)
}

func TestRewriteFixesChecksums(t *testing.T) {
	rs := mustRewrites(t, "eth.src=02:00:00:00:00:01", "eth.dst=02:00:00:00:00:02",
		"ip.src=198.51.100.1", "ip.dst=198.51.100.2", "udp.srcport=7000", "udp.dstport=7002")
	src, err := capture.Open(ptsOps)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var p capture.Packet
	n := 0
	for src.Next(&p) == nil {
		b := append([]byte(nil), p.Data...)
		// (Captured on loopback: the UDP checksums are offloaded, i.e.
		// wrong, before the rewrite; afterwards they must be right.)
		if f := locate(b); f.ipv != 4 || !valid(0, b[f.l3:f.l3+20]) {
			t.Fatalf("frame %d: IPv4 checksum bad before rewriting", n+1)
		}
		if !applied(t, rs, b) {
			t.Fatal("nothing rewritten")
		}
		f := locate(b)
		if got := Summary(b); got != "02:00:00:00:00:01 > 02:00:00:00:00:02 UDP 198.51.100.1:7000 > 198.51.100.2:7002" {
			t.Fatalf("frame %d: %s", n+1, got)
		}
		if !valid(0, b[f.l3:f.l3+20]) {
			t.Errorf("frame %d: IPv4 header checksum wrong", n+1)
		}
		if binary.BigEndian.Uint16(b[f.l4+6:]) != 0 && !udpValid(f) {
			t.Errorf("frame %d: UDP checksum wrong", n+1)
		}
		n++
	}
	if n != 112 {
		t.Fatalf("%d frames", n)
	}
}

func TestRewriteTCPAndRoCE(t *testing.T) {
	// TCP over IPv4, complete: its checksum is fixed.
	tcp := make([]byte, 20+5)
	binary.BigEndian.PutUint16(tcp, 4000)
	binary.BigEndian.PutUint16(tcp[2:], 80)
	tcp[12] = 5 << 4
	copy(tcp[20:], "hello")
	b := ethIPv4(6, tcp)
	applied(t, mustRewrites(t, "tcp.dstport=8080", "ip.dst=198.51.100.2"), b)
	f := locate(b)
	seg := b[f.l4:f.l3End]
	if s := inet.Sum(0, b[f.l3+12:f.l3+20]) + 6 + uint32(len(seg)); !valid(s, seg) || binary.BigEndian.Uint16(seg[2:]) != 8080 {
		t.Errorf("TCP rewrite: %x", seg)
	}
	// udp.* does not touch TCP.
	if applied(t, mustRewrites(t, "udp.dstport=9"), b) {
		t.Error("udp rewrite changed a TCP frame")
	}

	// RoCEv2: the ICRC covers the IP addresses, so it is recomputed.
	udp := make([]byte, 8+ib.BTHLen+8+4)
	binary.BigEndian.PutUint16(udp, 49152)
	binary.BigEndian.PutUint16(udp[2:], 4791)
	binary.BigEndian.PutUint16(udp[4:], uint16(len(udp)))
	udp[8] = 0x04 // BTH opcode RC SEND only
	b = ethIPv4(17, udp)
	applied(t, mustRewrites(t, "ip.src=198.51.100.1"), b)
	f = locate(b)
	seg = b[f.l4:f.l3End]
	want, ok := ib.ICRCRoCEv2(b[f.l3:f.l4], seg[:8], seg[8:len(seg)-4])
	if !ok || binary.LittleEndian.Uint32(seg[len(seg)-4:]) != want {
		t.Errorf("ICRC not recomputed")
	}
	if binary.BigEndian.Uint16(seg[6:]) != 0 {
		t.Error("a zero UDP checksum must stay zero")
	}
}

func ethIPv4(proto byte, l4 []byte) []byte {
	b := make([]byte, 14+20)
	b[12], b[13] = 0x08, 0x00
	ip := b[14:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(20+len(l4)))
	ip[8], ip[9] = 64, proto
	copy(ip[12:], []byte{10, 0, 0, 1, 10, 0, 0, 2})
	return append(b, l4...)
}

// ipv6.src/ipv6.dst rewrite the addresses; IPv6 has no header checksum but
// the UDP pseudo-header and the RoCEv2 ICRC cover them.
func TestRewriteIPv6RoCE(t *testing.T) {
	udp := make([]byte, 8+ib.BTHLen+8+4)
	binary.BigEndian.PutUint16(udp, 49152)
	binary.BigEndian.PutUint16(udp[2:], 4791)
	binary.BigEndian.PutUint16(udp[4:], uint16(len(udp)))
	udp[6] = 0x12 // a non-zero UDP checksum: must be recomputed
	udp[8] = 0x04
	b := make([]byte, 14+40)
	b[12], b[13] = 0x86, 0xdd
	ip := b[14:]
	ip[0] = 0x60
	binary.BigEndian.PutUint16(ip[4:], uint16(len(udp)))
	ip[6], ip[7] = 17, 64
	b = append(b, udp...)
	if !applied(t, mustRewrites(t, "ipv6.src=2001:db8::1", "ipv6.dst=2001:db8::2"), b) {
		t.Fatal("nothing rewritten")
	}
	f := locate(b)
	if got := b[f.l3+8 : f.l3+40]; got[15] != 1 || got[31] != 2 || got[0] != 0x20 {
		t.Errorf("addresses % x", got)
	}
	seg := b[f.l4:f.l3End]
	want, ok := ib.ICRCRoCEv2(b[f.l3:f.l4], seg[:8], seg[8:len(seg)-4])
	if !ok || binary.LittleEndian.Uint32(seg[len(seg)-4:]) != want {
		t.Error("ICRC not recomputed")
	}
	s := inet.Sum(0, b[f.l3+8:f.l3+40]) + 17 + uint32(len(seg))
	if !valid(s, seg) {
		t.Error("UDP checksum not fixed over the IPv6 pseudo-header")
	}
	if applied(t, mustRewrites(t, "ipv6.dst=2001:db8::9"), ethIPv4(17, udp)) {
		t.Error("ipv6 rewrite changed an IPv4 frame")
	}
}

func TestParseRewriteErrors(t *testing.T) {
	for _, s := range []string{"ip.dst", "ip.dst=", "ip.dst=2001:db8::1", "ipv6.dst=198.51.100.1", "eth.src=zz", "udp.dstport=70000", "ip.ttl=3"} {
		if _, err := ParseRewrite(s); err == nil || !strings.Contains(err.Error(), "--rewrite") {
			t.Errorf("ParseRewrite(%q) = %v", s, err)
		}
	}
}

type count struct{ n int }

func (c *count) Send([]byte) error { c.n++; return nil }

func TestPacing(t *testing.T) {
	open := func() (capture.Source, error) { return capture.Open(ptsOps) }
	var c count
	st, err := Run(open, &c, Options{PPS: 4000}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 112 packets at 4000/s: the last leaves 111/4000 s = 27.75 ms in.
	if c.n != 112 || st.Elapsed < 27*time.Millisecond || st.Elapsed > 200*time.Millisecond {
		t.Errorf("--pps 4000: %d packets in %v", c.n, st.Elapsed)
	}
	st, _ = Run(open, DryRun{}, Options{TopSpeed: true, Loop: 3}, nil, nil)
	if st.Packets != 336 || st.Bytes != 3*21444 {
		t.Errorf("--loop 3: %+v", st)
	}
	// --mbps: 21444 bytes at 8 Mbit/s is about 21 ms.
	st, _ = Run(open, DryRun{}, Options{Mbps: 8}, nil, nil)
	if st.Elapsed < 20*time.Millisecond || st.Elapsed > 200*time.Millisecond {
		t.Errorf("--mbps 8: %v", st.Elapsed)
	}
	// Recorded timing at 100×: the file spans its own duration / 100.
	var first, last int64
	src, _ := capture.Open(ptsOps)
	var p capture.Packet
	for src.Next(&p) == nil {
		if first == 0 {
			first = p.TimeNS
		}
		last = p.TimeNS
	}
	src.Close()
	want := time.Duration(last-first) / 100
	st, _ = Run(open, DryRun{}, Options{Speed: 100}, nil, nil)
	if st.Elapsed < want || st.Elapsed > want+100*time.Millisecond {
		t.Errorf("--speed 100: %v, want about %v", st.Elapsed, want)
	}
	stop := make(chan struct{})
	close(stop)
	if st, _ := Run(open, DryRun{}, Options{}, nil, stop); st.Packets != 0 {
		t.Errorf("stopped run sent %d", st.Packets)
	}
}

// A rewritten IPv4 fragment holds only part of the datagram, so the UDP
// checksum in the first fragment is adjusted for the changed words (RFC
// 1624) rather than recomputed. Proof on tcpdump's afs.pcap, whose large
// Rx replies are fragmented: every datagram, reassembled after rewriting
// its fragments one by one, has a good UDP checksum over the new addresses,
// as it had over the old ones.
func TestRewriteFragmentsKeepChecksum(t *testing.T) {
	const afs = "../../pcaps/public/the-tcpdump-group+tcpdump__afs.pcap"
	rs := mustRewrites(t, "ip.src=198.51.100.1", "ip.dst=198.51.100.2", "udp.srcport=7000", "udp.dstport=7002")
	src, err := capture.Open(afs)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	type datagram struct {
		before, after []byte // UDP header and payload, by fragment offset
		pseudoBefore  uint32
		pseudoAfter   uint32
		frags         int
		last          bool
	}
	place := func(dst []byte, off int, data []byte) []byte {
		if len(dst) < off+len(data) {
			dst = append(dst, make([]byte, off+len(data)-len(dst))...)
		}
		copy(dst[off:], data)
		return dst
	}
	dgs := map[uint16]*datagram{}
	var p capture.Packet
	for src.Next(&p) == nil {
		f := locate(p.Data)
		if f.ipv != 4 || f.proto != 17 {
			continue
		}
		fl := binary.BigEndian.Uint16(p.Data[f.l3+6:])
		if fl&0x3fff == 0 {
			continue // not a fragment
		}
		id := binary.BigEndian.Uint16(p.Data[f.l3+4:])
		d := dgs[id]
		if d == nil {
			d = &datagram{}
			dgs[id] = d
		}
		hl := int(p.Data[f.l3]&0x0f) * 4
		off := int(fl&0x1fff) * 8
		d.before = place(d.before, off, p.Data[f.l3+hl:f.l3End])
		b := append([]byte(nil), p.Data...)
		applied(t, rs, b)
		if !valid(0, b[f.l3:f.l3+hl]) {
			t.Errorf("datagram %#x offset %d: IPv4 header checksum wrong after rewrite", id, off)
		}
		d.after = place(d.after, off, b[f.l3+hl:f.l3End])
		if off == 0 {
			d.pseudoBefore = inet.Sum(0, p.Data[f.l3+12:f.l3+20])
			d.pseudoAfter = inet.Sum(0, b[f.l3+12:f.l3+20])
		}
		d.frags++
		d.last = d.last || fl&0x2000 == 0
	}
	checked := 0
	for id, d := range dgs {
		if !d.last || d.pseudoBefore == 0 || binary.BigEndian.Uint16(d.before[6:]) == 0 {
			continue
		}
		n := uint32(17 + len(d.before))
		if !valid(d.pseudoBefore+n, d.before) {
			t.Fatalf("datagram %#x: UDP checksum bad before rewriting", id)
		}
		if binary.BigEndian.Uint16(d.after[2:]) != 7002 {
			t.Errorf("datagram %#x: port not rewritten", id)
		}
		if !valid(d.pseudoAfter+n, d.after) {
			t.Errorf("datagram %#x (%d fragments): UDP checksum wrong after rewrite", id, d.frags)
		}
		checked++
	}
	if checked < 40 {
		t.Fatalf("only %d fragmented datagrams with a UDP checksum found", checked)
	}
	t.Logf("%d fragmented datagrams rewritten, every UDP checksum good", checked)
}

// mtuSender refuses frames longer than mtu as an interface does (EMSGSIZE).
type mtuSender struct {
	mtu  int
	sent []int
}

func (m *mtuSender) Send(b []byte) error {
	if len(b) > m.mtu {
		return fmt.Errorf("%d octets: %w", len(b), ErrTooBig)
	}
	m.sent = append(m.sent, len(b))
	return nil
}

// A frame over the MTU is skipped and counted; the rest are still sent (the
// run used to end at the first with "message too long").
func TestRunSkipsTooBig(t *testing.T) {
	open := func() (capture.Source, error) { return capture.Open(ptsOps) }
	s := &mtuSender{mtu: 200}
	var skipped []uint64
	st, err := Run(open, s, Options{TopSpeed: true}, func(n uint64, _ time.Duration, _ []byte, why Reason) {
		if why == TooBig {
			skipped = append(skipped, n)
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Packets+st.Skipped[TooBig] != 112 || st.Skipped[TooBig] == 0 || len(s.sent) != int(st.Packets) || len(skipped) != int(st.Skipped[TooBig]) {
		t.Fatalf("sent %d, skipped as too big %d (%v), want 112 in all and some of each", st.Packets, st.Skipped[TooBig], skipped)
	}
	t.Logf("pts-ops.pcap at MTU 200: %d sent, %d skipped as too big", st.Packets, st.Skipped[TooBig])
}

// Limit stops after that many packets sent, across loops (tcpreplay -L);
// StatsEvery calls Progress while sending (tcpreplay --stats).
func TestLimitAndStats(t *testing.T) {
	open := func() (capture.Source, error) { return capture.Open(ptsOps) }
	st, err := Run(open, DryRun{}, Options{TopSpeed: true, Loop: 3, Limit: 150}, nil, nil)
	if err != nil || st.Packets != 150 {
		t.Errorf("-L 150 over 3×112: %d packets, %v", st.Packets, err)
	}
	var calls []uint64
	st, _ = Run(open, DryRun{}, Options{PPS: 2000, Limit: 60, StatsEvery: 10 * time.Millisecond,
		Progress: func(s Stats) { calls = append(calls, s.Packets) }}, nil, nil)
	// 60 packets at 2000/s take 30 ms: two or three reports, counts rising
	if st.Packets != 60 || len(calls) < 2 || len(calls) > 4 || !slices.IsSorted(calls) || calls[len(calls)-1] > 60 {
		t.Errorf("--stats every 10 ms over %v: reports %v", st.Elapsed, calls)
	}
}
