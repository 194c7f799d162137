package dissect_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/inet"
)

// ckPacket builds a raw IPv4 (or IPv6) packet carrying a UDP or TCP
// segment with correct checksums, for the checksum tests to spoil.
func ckPacket(v6 bool, proto uint8, payload []byte) (pkt []byte, l4 int) {
	var seg []byte
	if proto == dissect.IPProtoUDP {
		seg = make([]byte, 8, 8+len(payload))
		binary.BigEndian.PutUint16(seg, 4000)
		binary.BigEndian.PutUint16(seg[2:], 4001)
		binary.BigEndian.PutUint16(seg[4:], uint16(8+len(payload)))
	} else {
		seg = make([]byte, 20, 20+len(payload))
		binary.BigEndian.PutUint16(seg, 4000)
		binary.BigEndian.PutUint16(seg[2:], 4001)
		seg[12], seg[13] = 5<<4, 0x18 // PSH ACK
		binary.BigEndian.PutUint16(seg[14:], 1000)
	}
	seg = append(seg, payload...)
	src4, dst4 := []byte{192, 0, 2, 1}, []byte{192, 0, 2, 2}
	src6 := []byte{0x20, 0x01, 0x0d, 0xb8, 15: 1}
	dst6 := []byte{0x20, 0x01, 0x0d, 0xb8, 15: 2}
	var ph uint32
	if v6 {
		ph = inet.Sum(inet.Sum(0, src6), dst6)
	} else {
		ph = inet.Sum(inet.Sum(0, src4), dst4)
	}
	ph += uint32(proto) + uint32(len(seg))
	ckOff := 6
	if proto == dissect.IPProtoTCP {
		ckOff = 16
	}
	binary.BigEndian.PutUint16(seg[ckOff:], ^inet.Fold(inet.Sum(ph, seg)))
	if v6 {
		h := make([]byte, 40)
		h[0] = 0x60
		binary.BigEndian.PutUint16(h[4:], uint16(len(seg)))
		h[6], h[7] = proto, 64
		copy(h[8:], src6)
		copy(h[24:], dst6)
		return append(h, seg...), 40
	}
	h := make([]byte, 20)
	h[0] = 0x45
	binary.BigEndian.PutUint16(h[2:], uint16(20+len(seg)))
	h[8], h[9] = 64, proto
	copy(h[12:], src4)
	copy(h[16:], dst4)
	binary.BigEndian.PutUint16(h[10:], inet.Checksum(h))
	return append(h, seg...), 20
}

// TestChecksums: with Options.Checksums an engine verifies the IPv4
// header, UDP and TCP checksums as tshark's validation preferences do
// (same verdicts on the same spoilt packets), and says which it could not
// verify and why: snapped, fragment, no UDP checksum, checksum offload.
func TestChecksums(t *testing.T) {
	type want struct {
		name string
		ok   bool
		skip dissect.CheckSkip
	}
	good := func(name string) want { return want{name, true, 0} }
	bad := func(name string) want { return want{name, false, 0} }
	skip := func(name string, s dissect.CheckSkip) want { return want{name, false, s} }
	pl := []byte("checksummed payload, odd length")
	cases := []struct {
		name    string
		v6      bool
		proto   uint8
		spoil   func(p []byte, l4 int) []byte
		want    []want
		finding string // a substring of the one finding's message, "" for none
		sev     dissect.Severity
	}{
		{name: "udp4 good", proto: dissect.IPProtoUDP, want: []want{good("ip.checksum"), good("udp.checksum")}},
		{name: "tcp4 good", proto: dissect.IPProtoTCP, want: []want{good("ip.checksum"), good("tcp.checksum")}},
		{name: "tcp6 good", v6: true, proto: dissect.IPProtoTCP, want: []want{good("tcp.checksum")}},
		{name: "udp6 good", v6: true, proto: dissect.IPProtoUDP, want: []want{good("udp.checksum")}},
		{name: "ip header bad", proto: dissect.IPProtoUDP,
			spoil:   func(p []byte, _ int) []byte { p[10] ^= 1; return p },
			want:    []want{bad("ip.checksum"), good("udp.checksum")},
			finding: "bad IPv4 header checksum", sev: dissect.Error},
		{name: "ip header zero: offload", proto: dissect.IPProtoUDP,
			spoil: func(p []byte, _ int) []byte { p[10], p[11] = 0, 0; return p },
			want:  []want{skip("ip.checksum", dissect.SkipOffload), good("udp.checksum")}},
		{name: "tcp payload bit flipped", proto: dissect.IPProtoTCP,
			spoil:   func(p []byte, _ int) []byte { p[len(p)-1] ^= 0x40; return p },
			want:    []want{good("ip.checksum"), bad("tcp.checksum")},
			finding: "bad tcp checksum", sev: dissect.Error},
		{name: "udp6 bad", v6: true, proto: dissect.IPProtoUDP,
			spoil:   func(p []byte, l4 int) []byte { p[l4+6] ^= 0x80; return p },
			want:    []want{bad("udp.checksum")},
			finding: "bad udp checksum", sev: dissect.Error},
		{name: "tcp offload: pseudo-header sum", proto: dissect.IPProtoTCP,
			spoil: func(p []byte, l4 int) []byte {
				ph := inet.Sum(inet.Sum(0, p[12:16]), p[16:20]) + uint32(dissect.IPProtoTCP) + uint32(len(p)-l4)
				binary.BigEndian.PutUint16(p[l4+16:], inet.Fold(ph))
				return p
			},
			want: []want{good("ip.checksum"), skip("tcp.checksum", dissect.SkipOffload)}},
		{name: "udp4 zero: none sent", proto: dissect.IPProtoUDP,
			spoil: func(p []byte, l4 int) []byte { p[l4+6], p[l4+7] = 0, 0; return p },
			want:  []want{good("ip.checksum"), skip("udp.checksum", dissect.SkipAbsent)}},
		{name: "udp6 zero: illegal", v6: true, proto: dissect.IPProtoUDP,
			spoil:   func(p []byte, l4 int) []byte { p[l4+6], p[l4+7] = 0, 0; return p },
			want:    []want{bad("udp.checksum")},
			finding: "illegal UDP checksum", sev: dissect.Error},
		{name: "tcp snapped", proto: dissect.IPProtoTCP,
			spoil: func(p []byte, _ int) []byte { return p[:len(p)-4] },
			want:  []want{good("ip.checksum"), skip("tcp.checksum", dissect.SkipSnapped)}},
		{name: "udp fragment", proto: dissect.IPProtoUDP,
			spoil: func(p []byte, _ int) []byte {
				p[6] = 0x20 // more fragments
				binary.BigEndian.PutUint16(p[10:], 0)
				binary.BigEndian.PutUint16(p[10:], inet.Checksum(p[:20]))
				return p
			},
			want: []want{good("ip.checksum"), skip("udp.checksum", dissect.SkipFragment)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, l4 := ckPacket(c.v6, c.proto, pl)
			wire := len(p)
			if c.spoil != nil {
				p = c.spoil(p, l4)
			}
			e := dissect.NewEngine(dissect.Options{Checksums: true})
			f := e.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeRaw, Data: p, CapLen: len(p), WireLen: wire})
			var got []want
			for _, r := range f.Checks {
				got = append(got, want{r.Check.Name, r.OK, r.Skip})
			}
			if len(got) != len(c.want) {
				t.Fatalf("checks %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("check %d: %+v, want %+v", i, got[i], c.want[i])
				}
			}
			var fs []dissect.Finding
			for _, fd := range f.Findings {
				if fd.Group == dissect.GroupChecksum {
					fs = append(fs, fd)
				}
			}
			switch {
			case c.finding == "" && len(fs) != 0:
				t.Errorf("unexpected findings %+v", fs)
			case c.finding != "" && (len(fs) != 1 || !strings.Contains(fs[0].Msg, c.finding) || fs[0].Sev != c.sev):
				t.Errorf("findings %+v, want one %v containing %q", fs, c.sev, c.finding)
			}
		})
	}
	// off (every mode but check): nothing verified, as tshark by default
	p, _ := ckPacket(false, dissect.IPProtoTCP, pl)
	p[len(p)-1] ^= 1
	f := dissect.NewEngine(dissect.Options{}).Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeRaw, Data: p})
	if len(f.Checks) != 0 || len(f.Findings) != 0 {
		t.Errorf("checksums verified without Options.Checksums: %+v %+v", f.Checks, f.Findings)
	}
}

// TestChecksumsNoAlloc: verifying costs no allocation per packet (the
// check path's rule), good or offloaded.
func TestChecksumsNoAlloc(t *testing.T) {
	good, _ := ckPacket(false, dissect.IPProtoTCP, []byte("payload"))
	e := dissect.NewEngine(dissect.Options{Checksums: true})
	pkt := dissect.Packet{Num: 1, LinkType: dissect.LinkTypeRaw, Data: good}
	e.Decode(pkt)
	if n := testing.AllocsPerRun(200, func() { pkt.Num++; e.Decode(pkt) }); n != 0 {
		t.Errorf("%.1f allocations per packet", n)
	}
	if f := e.Decode(pkt); len(f.Checks) != 2 || !f.Checks[1].OK {
		t.Fatalf("checks %+v", f.Checks)
	}
}
