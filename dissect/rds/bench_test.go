package rds_test

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rds"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// period is one repetition of the bench stream: 16 datagrams of 64 octets
// (many per segment), then 1400, 9000 and 65536 octets (across segments).
// hdrs holds each header's offset so sequence numbers can be renewed.
func period() (b []byte, hdrs []int) {
	add := func(n int) {
		hdrs = append(hdrs, len(b))
		h := rds.HeaderFields{Len: uint32(n), Sport: 4000, Dport: 4001}
		b = h.Encode(b)
		b = append(b, make([]byte, n)...)
	}
	for i := 0; i < 16; i++ {
		add(64)
	}
	for _, n := range []int{1400, 9000, 65536} {
		add(n)
	}
	return b, hdrs
}

func renumber(b []byte, hdrs []int, seq *uint64) {
	for _, o := range hdrs {
		*seq++
		binary.BigEndian.PutUint64(b[o:], *seq)
	}
}

const mss = 1448

// BenchmarkRDSFramer measures the stream dissector alone on 1448-octet
// chunks: steady state must not allocate.
func BenchmarkRDSFramer(b *testing.B) {
	d := rds.New(nil)
	key := tcp.FlowKey{A: netip.MustParseAddrPort("192.0.2.1:40000"), B: netip.MustParseAddrPort("192.0.2.2:16385")}
	buf, hdrs := period()
	var f dissect.Frame
	var seq, off uint64
	num := uint64(0)
	spans := make([]tcp.FrameSpan, 1)
	feed := func() {
		renumber(buf, hdrs, &seq)
		for i := 0; i < len(buf); i += mss {
			n := min(mss, len(buf)-i)
			num++
			f.Num, f.PDUs, f.Findings, f.Checks = num, f.PDUs[:0], f.Findings[:0], f.Checks[:0]
			spans[0] = tcp.FrameSpan{Frame: num, Len: n}
			c := tcp.Chunk{Key: key, Bytes: buf[i : i+n], Offset: off, Seq: uint32(off), Frames: spans}
			d.StreamData(&f, &c)
			off += uint64(n)
		}
	}
	feed() // warm the pools
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		feed()
	}
}

// BenchmarkRDSEngine measures the whole path (Ethernet/IPv4/TCP decode, TCP
// reassembly, RDS framing and tracking) per period of the stream.
func BenchmarkRDSEngine(b *testing.B) {
	eng := dissect.NewEngine(dissect.Options{})
	buf, hdrs := period()
	frame := make([]byte, 54+mss)
	binary.BigEndian.PutUint16(frame[12:], 0x0800)
	ip := frame[14:]
	ip[0], ip[8], ip[9] = 0x45, 64, 6
	copy(ip[12:], []byte{192, 0, 2, 1})
	copy(ip[16:], []byte{192, 0, 2, 2})
	th := ip[20:]
	binary.BigEndian.PutUint16(th[0:], 40000)
	binary.BigEndian.PutUint16(th[2:], rds.Port)
	th[12], th[13] = 5<<4, 0x10
	var seq uint64
	tseq := uint32(1000)
	num := uint64(0)
	send := func(payload []byte, flags uint8) {
		n := copy(frame[54:], payload)
		binary.BigEndian.PutUint16(ip[2:], uint16(40+n))
		binary.BigEndian.PutUint32(th[4:], tseq)
		th[13] = flags
		num++
		eng.Decode(dissect.Packet{Num: num, TimeNS: int64(num) * 1000, CapLen: 54 + n, WireLen: 54 + n, LinkType: dissect.LinkTypeEthernet, Data: frame[:54+n]})
		tseq += uint32(n)
	}
	send(nil, 0x02) // SYN
	tseq++
	feed := func() {
		renumber(buf, hdrs, &seq)
		for i := 0; i < len(buf); i += mss {
			send(buf[i:min(i+mss, len(buf))], 0x10)
		}
	}
	feed()
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		feed()
	}
}

// tcpFrames builds Ethernet/IP/TCP frames 192.0.2.1:40000 -> 192.0.2.2:port
// (v6: 2001:db8::1 -> 2001:db8::2): a SYN, then one frame per payload.
func tcpFrames(v6 bool, port uint16, payloads ...[]byte) [][]byte {
	var out [][]byte
	seq := uint32(1000)
	mk := func(p []byte, flags uint8) {
		ipLen := 20
		if v6 {
			ipLen = 40
		}
		f := make([]byte, 14+ipLen+20+len(p))
		ip := f[14:]
		if v6 {
			binary.BigEndian.PutUint16(f[12:], 0x86dd)
			ip[0] = 0x60
			binary.BigEndian.PutUint16(ip[4:], uint16(20+len(p)))
			ip[6], ip[7] = 6, 64
			copy(ip[8:], []byte{0x20, 0x01, 0x0d, 0xb8, 15: 1})
			copy(ip[24:], []byte{0x20, 0x01, 0x0d, 0xb8, 15: 2})
		} else {
			binary.BigEndian.PutUint16(f[12:], 0x0800)
			ip[0], ip[8], ip[9] = 0x45, 64, 6
			binary.BigEndian.PutUint16(ip[2:], uint16(40+len(p)))
			copy(ip[12:], []byte{192, 0, 2, 1})
			copy(ip[16:], []byte{192, 0, 2, 2})
		}
		th := ip[ipLen:]
		binary.BigEndian.PutUint16(th[0:], 40000)
		binary.BigEndian.PutUint16(th[2:], port)
		binary.BigEndian.PutUint32(th[4:], seq)
		th[12], th[13] = 5<<4, flags
		copy(th[20:], p)
		out = append(out, f)
		seq += uint32(len(p))
	}
	mk(nil, 0x02)
	seq++
	for _, p := range payloads {
		mk(p, 0x18)
	}
	return out
}

// threeMessages is a stream of RDS messages of 10, 20 and 3000 octets cut
// into three segments: the first two messages lie in the first segment, the
// third spans all three.
func threeMessages(v6 bool, port uint16) [][]byte {
	m := func(seq uint64, n int) []byte {
		h := rds.HeaderFields{Seq: seq, Len: uint32(n), Sport: 4000, Dport: 4001}
		return append(h.Encode(nil), make([]byte, n)...)
	}
	s := append(append(m(1, 10), m(2, 20)...), m(3, 3000)...)
	return tcpFrames(v6, port, s[:1448], s[1448:2896], s[2896:])
}

// lensOffsets decodes frames and returns the rds.len values and rds.seq
// offsets of their trees, and the frames' findings.
func lensOffsets(eng *dissect.Engine, frames [][]byte) (lens, offs string, findings []string) {
	var l, o []string
	var tree dissect.Tree
	for i, fr := range frames {
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i) * 1000, LinkType: dissect.LinkTypeEthernet, Data: fr})
		for _, x := range f.Findings {
			findings = append(findings, fmt.Sprintf("frame %d: %+v", i+1, x))
		}
		eng.BuildTree(&tree, f)
		for _, n := range tree.Nodes {
			if n.F != nil && n.F.Abbrev == "rds.len" {
				l = append(l, string(dissect.AppendField(nil, &n)))
			}
			if n.F != nil && n.F.Abbrev == "rds.seq" {
				o = append(o, strconv.Itoa(int(n.Off)))
			}
		}
	}
	return strings.Join(l, ","), strings.Join(o, ","), findings
}

// TestEngineDecodeAs runs RDS on a non-standard TCP port through the engine:
// with -d tcp.port==5000,rds, and by the heuristic without it. Header fields
// point at their bytes in the frame when a message lies in one frame.
func TestEngineDecodeAs(t *testing.T) {
	frames := threeMessages(false, 5000)
	da, err := dissect.ParseDecodeAs("tcp.port==5000,rds")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []dissect.Options{{DecodeAs: []dissect.DecodeAs{da}}, {}} {
		lens, offs, _ := lensOffsets(dissect.NewEngine(opts), frames)
		if lens != "10,20,3000" {
			t.Errorf("decode-as %v: rds.len %s", opts.DecodeAs, lens)
		}
		// 54 octets of headers, then message 1 at 0 and message 2 at 58.
		if offs != "54,112,-1" {
			t.Errorf("rds.seq offsets %s", offs)
		}
	}
}

func TestHeuristic(t *testing.T) {
	cong := rds.HeaderFields{Flags: rds.FlagCongBitmap, Len: rds.CongMapLen}
	data := rds.HeaderFields{Seq: 1, Len: 2, Sport: 4000, Dport: 4001}
	two := append(data.Encode(nil), 0, 0)
	data.Seq = 2
	two = data.Encode(two)
	for _, c := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"congestion map first", append(cong.Encode(nil), make([]byte, 1400)...), true},
		{"two messages", two, true},
		{"message then junk", append(append([]byte(nil), two[:50]...), strings.Repeat("x", 60)...), false},
		{"zeros", make([]byte, 1448), false},
		{"http", []byte("GET / HTTP/1.1\r\nHost: example.com\r\nUser-Agent: curl/8.0\r\nAccept: */*\r\n\r\n"), false},
		{"short", two[:47], false},
	} {
		if got := rds.Heuristic(c.b); got != c.want {
			t.Errorf("%s: %v", c.name, got)
		}
	}
}

// RDS over TCP over IPv6 on the standard port: the same messages, with
// header fields at their offsets behind the 40-octet IPv6 header.
func TestIPv6(t *testing.T) {
	lens, offs, findings := lensOffsets(dissect.NewEngine(dissect.Options{}), threeMessages(true, rds.Port))
	for _, f := range findings {
		t.Error(f)
	}
	if lens != "10,20,3000" {
		t.Errorf("rds.len %s", lens)
	}
	if offs != "74,132,-1" {
		t.Errorf("rds.seq offsets %s", offs)
	}
}
