package rdp_test

import (
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rdp"
	"github.com/rdx-project/rdx/internal/enginecheck"
)

var (
	ipA = netip.MustParseAddr("10.0.0.1")
	ipB = netip.MustParseAddr("10.0.0.2")
	ipC = netip.MustParseAddr("10.0.0.3")
)

// ipv4 wraps an RDP segment in a 20-octet IPv4 header (protocol 27) for link
// type 228 (raw IPv4).
func ipv4(src, dst netip.Addr, seg []byte) []byte {
	b := make([]byte, 20, 20+len(seg))
	b[0] = 0x45
	binary.BigEndian.PutUint16(b[2:], uint16(20+len(seg)))
	b[8], b[9] = 64, rdp.IPProto
	s, d := src.As4(), dst.As4()
	copy(b[12:], s[:])
	copy(b[16:], d[:])
	var sum uint32
	for i := 0; i < 20; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(b[10:], ^uint16(sum))
	return append(b, seg...)
}

// packet encodes and seals (with the pseudo-header) one segment.
func packet(src, dst netip.Addr, hf rdp.HeaderFields, data []byte) []byte {
	seg := hf.Encode(nil, data)
	rdp.Seal(seg, src, dst)
	return ipv4(src, dst, seg)
}

type step struct {
	pkt      []byte
	summary  string
	findings []string // substrings, in order; nil: none expected
}

func data(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}

func exchange() []step {
	const ver = 2
	ab := func(fl uint8, seq, ack uint32, d []byte) []byte {
		return packet(ipA, ipB, rdp.HeaderFields{Flags: fl, Version: ver, SrcPort: 1024, DstPort: 1025, Seq: seq, Ack: ack}, d)
	}
	ba := func(hf rdp.HeaderFields, d []byte) []byte {
		hf.Version, hf.SrcPort, hf.DstPort = ver, 1025, 1024
		return packet(ipB, ipA, hf, d)
	}
	const ACK = rdp.FlagACK
	badSyn := packet(ipC, ipB, rdp.HeaderFields{Flags: rdp.FlagSYN, Version: 1, SrcPort: 2, DstPort: 65, Seq: 1, MaxOutstanding: 2, MaxSegment: 100}, nil)
	badSyn[len(badSyn)-7] ^= 0xff // a checksum octet (v1: octets 14-17 of the 24)
	return []step{
		{packet(ipA, ipB, rdp.HeaderFields{Flags: rdp.FlagSYN, Version: ver, SrcPort: 1024, DstPort: 1025, Seq: 100, MaxOutstanding: 4, MaxSegment: 1024, SDM: true}, nil),
			"SYN seq 100 max_out 4 max_seg 1024 sdm", nil},
		{ba(rdp.HeaderFields{Flags: rdp.FlagSYN | ACK, Seq: 500, Ack: 100, MaxOutstanding: 8, MaxSegment: 512, SDM: true}, nil),
			"SYN ACK seq 500 ack 100 max_out 8 max_seg 512 sdm", nil},
		{ab(ACK, 101, 500, nil), "ACK seq 101 ack 500",
			[]string{"connection established: max outstanding 4/8, max segment 1024/512, sequenced delivery"}},
		{ab(ACK, 101, 500, data(10)), "ACK seq 101 ack 500 len 10", nil},
		{ab(ACK, 103, 500, data(10)), "ACK seq 103 ack 500 len 10 [out of sequence]",
			[]string{"out of sequence: expected 102, got 103 (1 missing or reordered)"}},
		{ab(ACK, 104, 500, data(600)), "ACK seq 104 ack 500 len 600",
			[]string{"data length 600 exceeds the peer's max segment size 512"}},
		{ba(rdp.HeaderFields{Flags: ACK | rdp.FlagEAK, Seq: 501, Ack: 101, Eacks: []uint32{103, 104}}, nil),
			"EACK ack 101 eack 103,104", []string{"segments 103,104 received out of sequence (EACK, ack 101)"}},
		{ab(ACK, 102, 500, data(5)), "ACK seq 102 ack 500 len 5 [out of sequence]", []string{"out of order: segment 102 after 104"}},
		{ab(ACK, 103, 500, data(10)), "ACK seq 103 ack 500 len 10 [retransmission]",
			[]string{"retransmission of segment 103 (first sent in frame 5)", "which the peer had EACKed"}},
		{ba(rdp.HeaderFields{Flags: ACK, Seq: 501, Ack: 104}, nil), "ACK seq 501 ack 104", nil},
		{ab(ACK, 113, 500, data(1)), "ACK seq 113 ack 500 len 1 [out of sequence]",
			[]string{"out of sequence", "segment 113 outside the receive window (last ack 104 + max outstanding 8)"}},
		{ba(rdp.HeaderFields{Flags: rdp.FlagNUL | ACK, Seq: 501, Ack: 104}, nil), "NUL ACK ack 104", []string{"NUL segment (keepalive)"}},
		{ab(rdp.FlagRST, 114, 0, nil), "RST", []string{"connection reset (RST)"}},
		{ab(ACK, 114, 501, data(3)), "ACK seq 114 ack 501 len 3", []string{"data after the connection was reset in frame 13"}},
		{badSyn, "SYN seq 1 max_out 2 max_seg 100 [bad checksum]", []string{"bad checksum: computed 0x"}},
	}
}

func TestEngineExchange(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	var tree dissect.Tree
	for i, st := range exchange() {
		num := uint64(i + 1)
		f := eng.Decode(dissect.Packet{Num: num, TimeNS: int64(i) * 1e6, LinkType: dissect.LinkTypeIPv4, Data: st.pkt})
		if len(f.PDUs) != 1 || f.Proto != "rdp" {
			t.Fatalf("frame %d: %d PDUs, proto %q, findings %+v", num, len(f.PDUs), f.Proto, f.Findings)
		}
		if got := string(f.PDUs[0].Summary(nil)); got != st.summary {
			t.Errorf("frame %d: summary %q, want %q", num, got, st.summary)
		}
		var msgs []string
		for _, fd := range f.Findings {
			msgs = append(msgs, fd.Msg)
		}
		all := strings.Join(msgs, " | ")
		if st.findings == nil && len(msgs) > 0 {
			t.Errorf("frame %d: unexpected findings %q", num, all)
		}
		rest := all
		for _, w := range st.findings {
			k := strings.Index(rest, w)
			if k < 0 {
				t.Errorf("frame %d: findings %q lack %q", num, all, w)
				break
			}
			rest = rest[k+len(w):]
		}
		eng.BuildTree(&tree, f)
		fields := map[string][]string{}
		for j := range tree.Nodes {
			n := &tree.Nodes[j]
			if n.F != nil && strings.HasPrefix(n.F.Abbrev, "rdp") {
				fields[n.F.Abbrev] = append(fields[n.F.Abbrev], string(dissect.AppendField(nil, n)))
			}
		}
		check := func(abbrev, want string) {
			if got := strings.Join(fields[abbrev], ","); got != want {
				t.Errorf("frame %d: %s = %q, want %q", num, abbrev, got, want)
			}
		}
		switch num {
		case 1:
			check("rdp.flags", "0x80")
			check("rdp.flags.syn", "1")
			check("rdp.flags.ack", "0")
			check("rdp.version", "2")
			check("rdp.hlen", "12")
			check("rdp.sport", "1024")
			check("rdp.dport", "1025")
			check("rdp.seq", "100")
			check("rdp.syn.max_outstanding", "4")
			check("rdp.syn.max_segment", "1024")
			check("rdp.syn.sdm", "1")
			check("rdp.checksum.status", "1")
		case 4:
			check("rdp.dlen", "10")
			check("rdp.data", "6162636465666768696a")
			check("rdp.flags", "0x40")
		case 7:
			check("rdp.flags.eack", "1")
			check("rdp.eack.seq", "103,104")
			check("rdp.hlen", "13")
		case 15:
			check("rdp.version", "1")
			check("rdp.checksum.status", "0") // Bad
		}
		if len(tree.Nodes) == 0 || !containsExpert(&tree, st.findings) {
			t.Errorf("frame %d: findings missing from the tree", num)
		}
	}
	d := eng.Instance("rdp").(*rdp.State)
	conns := d.Connections(nil)
	if len(conns) != 2 {
		t.Fatalf("%d connections, want 2", len(conns))
	}
	c := conns[0]
	if c.Endpoints[0] != netip.AddrPortFrom(ipA, 1024) || !c.Established || !c.Reset || c.Version != 2 ||
		c.MaxOutstanding != [2]uint16{4, 8} || c.MaxSegment != [2]uint16{1024, 512} || !c.SDM[0] ||
		c.Stats[0].Segments != 10 || c.Stats[1].Segments != 4 || c.Stats[0].Retransmits != 1 ||
		c.Stats[1].EACKs != 2 || c.Stats[0].RSTs != 1 || c.Stats[1].NULs != 1 ||
		c.Stats[0].DataBytes != 10+10+600+5+10+1+3 || c.FirstNS != 0 || c.LastNS != 13e6 ||
		c.State != [2]rdp.ConnState{rdp.StateCloseWait, rdp.StateCloseWait} {
		t.Errorf("connection summary %+v", c)
	}
}

func containsExpert(t *dissect.Tree, want []string) bool {
	n := 0
	for i := range t.Nodes {
		if t.Nodes[i].IsExpert() {
			n++
		}
	}
	return n >= len(want)
}

// Both passes of a two-pass read see the same findings.
func TestRewind(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	count := func() int {
		n := 0
		for i, st := range exchange() {
			f := eng.Decode(dissect.Packet{Num: uint64(i + 1), LinkType: dissect.LinkTypeIPv4, Data: st.pkt})
			n += len(f.Findings)
		}
		return n
	}
	a := count()
	eng.Rewind()
	if b := count(); a != b || a == 0 {
		t.Errorf("pass 1 %d findings, pass 2 %d", a, b)
	}
}

func FuzzRDP(f *testing.F) {
	for _, st := range exchange() {
		f.Add(st.pkt[20:])
	}
	f.Add([]byte{})
	f.Add([]byte{0x61, 0xff, 0, 0, 0xff, 0xff})
	pair := enginecheck.NewPair(dissect.Options{})
	num := uint64(0)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16-40 {
			return
		}
		// Both directions, so the tracker sees the payload from each side.
		for _, p := range [][]byte{ipv4(ipA, ipB, b), ipv4(ipB, ipA, b)} {
			num++
			if fr := pair.Decode(t, num, 228, p); fr.Net.IPProto != 27 || len(fr.PDUs) == 0 {
				t.Fatalf("IP protocol 27 decoded as %q with %d PDUs", fr.Proto, len(fr.PDUs))
			}
		}
		if num%1024 == 0 { // the stats path; the table is bounded, so this is too
			if n := len(pair.A.Instance("rdp").(*rdp.State).Connections(nil)); n > 2<<12 {
				t.Fatalf("%d connections tracked", n)
			}
		}
	})
}

// BenchmarkDecode dissects an established connection's data and ACK segments,
// with Summary, as the summary path does.
func BenchmarkDecode(b *testing.B) {
	eng := dissect.NewEngine(dissect.Options{})
	for i, st := range exchange()[:4] {
		eng.Decode(dissect.Packet{Num: uint64(i + 1), LinkType: dissect.LinkTypeIPv4, Data: st.pkt})
	}
	dataPkt := packet(ipA, ipB, rdp.HeaderFields{Flags: rdp.FlagACK, Version: 2, SrcPort: 1024, DstPort: 1025, Seq: 102, Ack: 500}, data(512))
	ackPkt := packet(ipB, ipA, rdp.HeaderFields{Flags: rdp.FlagACK, Version: 2, SrcPort: 1025, DstPort: 1024, Seq: 501, Ack: 102}, nil)
	var buf []byte
	seq := uint32(102)
	b.ReportAllocs()
	b.SetBytes(int64(len(dataPkt) + len(ackPkt)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Fresh sequence numbers, so no retransmission findings appear.
		binary.BigEndian.PutUint32(dataPkt[20+8:], seq)
		binary.BigEndian.PutUint32(ackPkt[20+12:], seq)
		rdp.Seal(dataPkt[20:], ipA, ipB)
		rdp.Seal(ackPkt[20:], ipB, ipA)
		seq++
		for _, p := range [][]byte{dataPkt, ackPkt} {
			f := eng.Decode(dissect.Packet{Num: uint64(i*2 + 10), LinkType: dissect.LinkTypeIPv4, Data: p})
			buf = f.PDUs[0].Summary(buf[:0])
			if len(f.Findings) != 0 {
				b.Fatalf("finding: %s", f.Findings[0].Msg)
			}
		}
	}
}

func ipv6(src, dst netip.Addr, seg []byte) []byte {
	b := make([]byte, 40, 40+len(seg))
	b[0] = 0x60
	binary.BigEndian.PutUint16(b[4:], uint16(len(seg)))
	b[6], b[7] = rdp.IPProto, 64
	s, d := src.As16(), dst.As16()
	copy(b[8:], s[:])
	copy(b[24:], d[:])
	return append(b, seg...)
}

func decodeOne(t *testing.T, eng *dissect.Engine, num uint64, pkt []byte, capLen, wireLen int, link uint16) (*dissect.Frame, map[string]string) {
	t.Helper()
	f := eng.Decode(dissect.Packet{Num: num, CapLen: capLen, WireLen: wireLen, LinkType: link, Data: pkt[:capLen]})
	var tree dissect.Tree
	eng.BuildTree(&tree, f)
	m := map[string]string{}
	for i := range tree.Nodes {
		if n := &tree.Nodes[i]; n.F != nil {
			m[n.F.Abbrev] = string(dissect.AppendField(nil, n))
		}
	}
	return f, m
}

// The v2 pseudo-header over IPv6 (RFC 8200 §8.1 form), and the bare-segment
// fallback, which verifies with a note.
func TestIPv6AndBareChecksum(t *testing.T) {
	a6, b6 := netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::2")
	hf := rdp.HeaderFields{Flags: rdp.FlagACK, Version: 2, SrcPort: 1024, DstPort: 1025, Seq: 9, Ack: 3}
	seg := hf.Encode(nil, data(7))
	rdp.Seal(seg, a6, b6)
	eng := dissect.NewEngine(dissect.Options{})
	p := ipv6(a6, b6, seg)
	f, m := decodeOne(t, eng, 1, p, len(p), len(p), 229)
	if m["rdp.checksum.status"] != "1" || len(f.Findings) != 0 {
		t.Errorf("IPv6: status %s, findings %+v", m["rdp.checksum.status"], f.Findings)
	}
	seg = hf.Encode(nil, data(7))
	rdp.Seal(seg, netip.Addr{}, netip.Addr{})
	p = ipv4(ipA, ipB, seg)
	f, m = decodeOne(t, eng, 2, p, len(p), len(p), 228)
	if m["rdp.checksum.status"] != "1" || len(f.Findings) != 1 || !strings.Contains(f.Findings[0].Msg, "only without the IP pseudo-header") {
		t.Errorf("bare: status %s, findings %+v", m["rdp.checksum.status"], f.Findings)
	}
}

// A snap length cuts the data: a note, checksum unverified, still tracked.
func TestTruncatedCapture(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	p := packet(ipA, ipB, rdp.HeaderFields{Flags: rdp.FlagACK, Version: 1, SrcPort: 2, DstPort: 65, Seq: 9, Ack: 3}, data(100))
	f, m := decodeOne(t, eng, 1, p, 60, len(p), 228)
	if m["rdp.checksum.status"] != "2" || len(f.Findings) != 1 || !strings.Contains(f.Findings[0].Msg, "data truncated by the capture: 22 of 100") {
		t.Errorf("status %s, findings %+v", m["rdp.checksum.status"], f.Findings)
	}
	if s := string(f.PDUs[0].Summary(nil)); s != "ACK seq 9 ack 3 len 100" {
		t.Errorf("summary %q", s)
	}
	if c := eng.Instance("rdp").(*rdp.State).Connections(nil); len(c) != 1 || c[0].Stats[0].DataBytes != 100 {
		t.Errorf("connections %+v", c)
	}
}

func TestFragment(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	p := packet(ipA, ipB, rdp.HeaderFields{Flags: rdp.FlagACK, Version: 1, SrcPort: 2, DstPort: 65, Seq: 9, Ack: 3}, data(10))
	p[6] = 0x20 // more fragments
	f, _ := decodeOne(t, eng, 1, p, len(p), len(p), 228)
	if len(f.PDUs) != 0 || len(f.Findings) != 1 || !strings.Contains(f.Findings[0].Msg, "fragment") {
		t.Errorf("PDUs %d, findings %+v", len(f.PDUs), f.Findings)
	}
}

func findings(f *dissect.Frame) string {
	var m []string
	for _, fd := range f.Findings {
		m = append(m, fd.Msg)
	}
	return strings.Join(m, " | ")
}

// Handshake and close oddities, one short exchange per row.
func TestTrackingRows(t *testing.T) {
	syn := func(seq uint32) rdp.HeaderFields {
		return rdp.HeaderFields{Flags: rdp.FlagSYN, Version: 1, SrcPort: 2, DstPort: 65, Seq: seq, MaxOutstanding: 4, MaxSegment: 100}
	}
	synAck := func(seq, ack uint32) rdp.HeaderFields {
		return rdp.HeaderFields{Flags: rdp.FlagSYN | rdp.FlagACK, Version: 1, SrcPort: 65, DstPort: 2, Seq: seq, Ack: ack, MaxOutstanding: 4, MaxSegment: 100}
	}
	fromB := func(hf rdp.HeaderFields) []byte { return packet(ipB, ipA, hf, nil) }
	fromA := func(hf rdp.HeaderFields, d []byte) []byte { return packet(ipA, ipB, hf, d) }
	rows := []struct {
		name string
		pkts [][]byte
		want string // in the last frame's findings
	}{
		{"syn retransmitted", [][]byte{fromA(syn(10), nil), fromA(syn(10), nil)}, "retransmitted SYN (first in frame 1)"},
		{"syn-ack wrong ack", [][]byte{fromA(syn(10), nil), fromB(synAck(50, 11))}, "SYN-ACK acknowledges 11, the SYN had sequence number 10"},
		{"refused", [][]byte{fromA(syn(10), nil), fromB(rdp.HeaderFields{Flags: rdp.FlagRST | rdp.FlagACK, Version: 1, SrcPort: 65, DstPort: 2, Ack: 10})},
			"connection refused"},
		{"ack never sent", [][]byte{fromA(syn(10), nil), fromB(synAck(50, 10)),
			fromA(rdp.HeaderFields{Flags: rdp.FlagACK, Version: 1, SrcPort: 2, DstPort: 65, Seq: 11, Ack: 60}, nil)},
			"acknowledges segment 60, never sent (highest seen 50)"},
		{"new connection", [][]byte{fromA(syn(10), nil), fromA(syn(99), nil)}, "new initial sequence number 99 (was 10)"},
		{"already acked", [][]byte{fromA(syn(10), nil), fromB(synAck(50, 10)),
			fromA(rdp.HeaderFields{Flags: rdp.FlagACK, Version: 1, SrcPort: 2, DstPort: 65, Seq: 11, Ack: 50}, data(1)),
			fromB(rdp.HeaderFields{Flags: rdp.FlagACK, Version: 1, SrcPort: 65, DstPort: 2, Seq: 51, Ack: 11}),
			fromB(rdp.HeaderFields{Flags: rdp.FlagACK | rdp.FlagEAK, Version: 1, SrcPort: 65, DstPort: 2, Seq: 51, Ack: 11, Eacks: []uint32{11}})},
			"EACK of segment 11, already acknowledged cumulatively (ack 11)"},
	}
	for _, r := range rows {
		eng := dissect.NewEngine(dissect.Options{})
		var f *dissect.Frame
		for i, p := range r.pkts {
			f = eng.Decode(dissect.Packet{Num: uint64(i + 1), LinkType: dissect.LinkTypeIPv4, Data: p})
		}
		if got := findings(f); !strings.Contains(got, r.want) {
			t.Errorf("%s: findings %q, want %q", r.name, got, r.want)
		}
	}
}

// The connection table stays bounded under many connections.
func TestTableBounded(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	for i := 0; i < 3<<12; i++ {
		src := netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)})
		p := packet(src, ipB, rdp.HeaderFields{Flags: rdp.FlagNUL, Version: 2, SrcPort: 1024, DstPort: 1025, Seq: 1}, nil)
		eng.Decode(dissect.Packet{Num: uint64(i + 1), LinkType: dissect.LinkTypeIPv4, Data: p})
	}
	if n := len(eng.Instance("rdp").(*rdp.State).Connections(nil)); n > 2<<12 || n < 1<<12 {
		t.Errorf("%d connections tracked", n)
	}
}
