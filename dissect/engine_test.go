package dissect_test

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// ipv4 builds a raw IPv4 packet (link type 228) with the given fragment
// fields around payload.
func ipv4(proto uint8, id uint16, fragOff int, more bool, payload []byte) []byte {
	b := make([]byte, 20, 20+len(payload))
	b[0] = 0x45
	binary.BigEndian.PutUint16(b[2:], uint16(20+len(payload)))
	binary.BigEndian.PutUint16(b[4:], id)
	fo := uint16(fragOff / 8)
	if more {
		fo |= 0x2000
	}
	binary.BigEndian.PutUint16(b[6:], fo)
	b[8], b[9] = 64, proto
	copy(b[12:], []byte{192, 0, 2, 1})
	copy(b[16:], []byte{192, 0, 2, 2})
	return append(b, payload...)
}

// A test-only UDP dissector on port 9 that records what it was given.
type sink struct {
	got  [][]byte
	offs []int
}

func (s *sink) Dissect(f *dissect.Frame, data []byte, off int) {
	s.got = append(s.got, append([]byte(nil), data...))
	s.offs = append(s.offs, off)
}

// A test-only stream dissector on TCP port 9.
type streamSink struct {
	sink
	data []byte
	seqs []uint32
	gaps []uint64
}

func (s *streamSink) StreamData(f *dissect.Frame, c *tcp.Chunk) {
	s.data = append(s.data, c.Bytes...)
	s.seqs = append(s.seqs, c.Seq)
}
func (s *streamSink) StreamGap(f *dissect.Frame, g *tcp.Gap)                   { s.gaps = append(s.gaps, g.Size) }
func (s *streamSink) StreamClose(*dissect.Frame, tcp.FlowKey, tcp.CloseReason) {}

var (
	udpSink    *sink
	streamTest *streamSink
)

func init() {
	dissect.RegisterDissector(&dissect.Registration{Name: "test-udp9", UDPPorts: []dissect.PortRange{{Lo: 9, Hi: 9}},
		New: func(*dissect.Engine) dissect.Dissector { udpSink = &sink{}; return udpSink }})
	dissect.RegisterDissector(&dissect.Registration{Name: "test-tcp9", TCPPorts: []dissect.PortRange{{Lo: 9, Hi: 9}},
		New: func(*dissect.Engine) dissect.Dissector { streamTest = &streamSink{}; return streamTest }})
}

// A UDP datagram in three IPv4 fragments, the last one arriving first, is
// dissected once, on the frame that completes it, with detached offsets.
func TestIPv4Reassembly(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	payload := make([]byte, 8+40)
	binary.BigEndian.PutUint16(payload[0:], 40000)
	binary.BigEndian.PutUint16(payload[2:], 9)
	binary.BigEndian.PutUint16(payload[4:], uint16(len(payload)))
	for i := 8; i < len(payload); i++ {
		payload[i] = byte(i)
	}
	frags := []struct {
		off  int
		more bool
	}{{32, false}, {0, true}, {16, true}}
	var last *dissect.Frame
	for i, fr := range frags {
		end := fr.off + 16
		if end > len(payload) {
			end = len(payload)
		}
		p := ipv4(17, 0x1234, fr.off, fr.more, payload[fr.off:end])
		last = eng.Decode(dissect.Packet{Num: uint64(i + 1), LinkType: dissect.LinkTypeIPv4, Data: p})
		if i < 2 && len(udpSink.got) != 0 {
			t.Fatalf("dissected before the datagram was complete (frame %d)", i+1)
		}
	}
	if len(udpSink.got) != 1 || string(udpSink.got[0]) != string(payload[8:]) || udpSink.offs[0] != -1 {
		t.Fatalf("got %d datagrams, offs %v", len(udpSink.got), udpSink.offs)
	}
	if last.Net.SrcPort != 40000 || last.Net.DstPort != 9 || !strings.Contains(last.Findings[0].Msg, "reassembled from frames 1, 2, 3") {
		t.Errorf("net %+v findings %+v", last.Net, last.Findings)
	}
}

func tcpSeg(seq uint32, flags byte, payload []byte) []byte {
	b := make([]byte, 20, 20+len(payload))
	binary.BigEndian.PutUint16(b[0:], 40000)
	binary.BigEndian.PutUint16(b[2:], 9)
	binary.BigEndian.PutUint32(b[4:], seq)
	b[12] = 5 << 4
	b[13] = flags
	binary.BigEndian.PutUint16(b[14:], 65535)
	return ipv4(6, 1, 0, false, append(b, payload...))
}

// Stream dissectors get in-order bytes with absolute sequence numbers, across
// reordering and the 2^32 wrap, and an exact gap at the end.
func TestTCPStream(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	var isn uint32 = 0xfffffff0
	segs := [][]byte{
		tcpSeg(isn, 0x02, nil),                    // SYN
		tcpSeg(isn+1+8, 0x18, []byte("BBBBBBBB")), // out of order, across the wrap
		tcpSeg(isn+1, 0x18, []byte("AAAAAAAA")),
		tcpSeg(isn+1+16+4, 0x18, []byte("DDDD")), // 4-byte hole before it
	}
	for i, s := range segs {
		eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), LinkType: dissect.LinkTypeIPv4, Data: s})
	}
	eng.Finish()
	if string(streamTest.data) != "AAAAAAAABBBBBBBBDDDD" {
		t.Errorf("stream %q", streamTest.data)
	}
	if len(streamTest.seqs) < 3 || streamTest.seqs[0] != isn+1 || streamTest.seqs[1] != isn+1+8 {
		t.Errorf("seqs %#x", streamTest.seqs)
	}
	if len(streamTest.gaps) != 1 || streamTest.gaps[0] != 4 {
		t.Errorf("gaps %v", streamTest.gaps)
	}
}

// A dissector that panics does not crash the engine: the frame gets an
// error finding and the next frame decodes.
type panicker struct{}

func (panicker) Dissect(f *dissect.Frame, data []byte, off int) {
	if len(data) > 0 && data[0] == 0xff {
		panic("boom")
	}
	f.AddPDU(okPDU{})
}

type okPDU struct{}

var pOK = dissect.RegisterProto("test-ok", "test", "")

func (okPDU) Proto() *dissect.ProtoInfo              { return pOK }
func (okPDU) Summary(dst []byte) []byte              { return append(dst, "ok"...) }
func (okPDU) Tree(t *dissect.Tree, f *dissect.Frame) { panic("tree boom") }

func init() {
	dissect.RegisterDissector(&dissect.Registration{Name: "test-panic", UDPPorts: []dissect.PortRange{{Lo: 10, Hi: 10}},
		New: func(*dissect.Engine) dissect.Dissector { return panicker{} }})
}

// panicUDP is a UDP datagram to the test-panic dissector's port; 0xff
// makes it panic.
func panicUDP(b byte) []byte {
	u := make([]byte, 9)
	binary.BigEndian.PutUint16(u[0:], 40000)
	binary.BigEndian.PutUint16(u[2:], 10)
	binary.BigEndian.PutUint16(u[4:], 9)
	u[8] = b
	return ipv4(17, 1, 0, false, u)
}

func TestPanicBecomesFinding(t *testing.T) {
	t.Setenv(dissect.StrictEnv, "") // what users get, although this test binary runs strict
	eng := dissect.NewEngine(dissect.Options{})
	if eng.Opts.Strict {
		t.Fatal("strict without Options.Strict or " + dissect.StrictEnv)
	}
	udp := panicUDP
	p := udp(0xff)
	f := eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: p})
	if len(f.Findings) != 1 || !strings.Contains(f.Findings[0].Msg, "internal error in a dissector on frame 1") {
		t.Fatalf("findings %+v", f.Findings)
	}
	p = udp(1)
	f = eng.Decode(dissect.Packet{Num: 2, LinkType: dissect.LinkTypeIPv4, Data: p})
	if len(f.PDUs) != 1 {
		t.Fatalf("next frame: %d PDUs", len(f.PDUs))
	}
	var tree dissect.Tree
	eng.BuildTree(&tree, f)
	last := tree.Nodes[len(tree.Nodes)-1]
	if !strings.Contains(last.Label, "internal error while building the tree of frame 2") {
		t.Errorf("tree ends with %+v", last)
	}
}

// ethernet puts an Ethernet header (IPv4) before an IPv4 packet: such a
// frame takes DecodeRef's fast path to the UDP port table.
func ethernet(ip []byte) []byte {
	return append([]byte{2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00}, ip...)
}

// Guard's one recovery for a whole loop: each frame a dissector panics on
// comes back from Guard once, with one finding naming it and the PDUs
// before the panic, and the loop resumes with the next packet; frames on
// the fast path (Ethernet) and the layered path (raw IP) alike. Outside
// Guard, DecodeRef and Decode recover per frame again.
func TestGuardResumesAfterPanic(t *testing.T) {
	t.Setenv(dissect.StrictEnv, "")
	eng := dissect.NewEngine(dissect.Options{})
	var pkts []dissect.Packet
	for i, b := range []byte{1, 0xff, 1, 0xff, 0xff, 1, 1} {
		p := dissect.Packet{Num: uint64(i + 1), LinkType: dissect.LinkTypeEthernet, Data: ethernet(panicUDP(b))}
		if i%2 == 1 {
			p.LinkType, p.Data = dissect.LinkTypeIPv4, panicUDP(b)
		}
		pkts = append(pkts, p)
	}
	var got []string
	record := func(f *dissect.Frame) {
		s := strconv.FormatUint(f.Num, 10) + ":" + strconv.Itoa(len(f.PDUs))
		for _, fd := range f.Findings {
			s += " " + fd.Msg
		}
		got = append(got, s)
	}
	next := 0
	loop := func() {
		for next < len(pkts) {
			next++
			record(eng.DecodeRef(&pkts[next-1]))
		}
	}
	cut := 0
	for f := eng.Guard(loop); f != nil; f = eng.Guard(loop) {
		cut++
		record(f)
	}
	boom := func(n int) string {
		return strconv.Itoa(n) + ":0 internal error in a dissector on frame " + strconv.Itoa(n) + " (please report it): boom"
	}
	want := []string{"1:1", boom(2), "3:1", boom(4), boom(5), "6:1", "7:1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || cut != 3 {
		t.Errorf("%d frames cut, got\n%s\nwant\n%s", cut, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range pkts[3:5] { // after Guard: the per-frame recovery
		if f := eng.DecodeRef(&p); len(f.Findings) != 1 || !strings.Contains(f.Findings[0].Msg, "internal error in a dissector") {
			t.Errorf("DecodeRef after Guard: findings %+v", f.Findings)
		}
		if f := eng.Decode(p); len(f.Findings) != 1 {
			t.Errorf("Decode after Guard: findings %+v", f.Findings)
		}
	}
}

// Guard recovers only a frame's decoding: a panic in what the loop does
// with a decoded frame goes on up, untouched; in strict mode a dissector
// panic leaves Guard as the *InternalError Decode raises.
func TestGuardScope(t *testing.T) {
	t.Setenv(dissect.StrictEnv, "")
	eng := dissect.NewEngine(dissect.Options{})
	ok := dissect.Packet{Num: 1, LinkType: dissect.LinkTypeEthernet, Data: ethernet(panicUDP(1))}
	func() {
		defer func() {
			if r := recover(); r != "sink boom" {
				t.Errorf("recovered %v, want the loop's own panic", r)
			}
		}()
		f := eng.Guard(func() {
			eng.DecodeRef(&ok)
			panic("sink boom")
		})
		t.Errorf("Guard returned %v after a panic outside decoding", f)
	}()
	if f := eng.Decode(ok); len(f.PDUs) != 1 || len(f.Findings) != 0 {
		t.Errorf("after the loop's panic: %d PDUs, findings %+v", len(f.PDUs), f.Findings)
	}

	strict := dissect.NewEngine(dissect.Options{Strict: true})
	bad := dissect.Packet{Num: 7, LinkType: dissect.LinkTypeEthernet, Data: ethernet(panicUDP(0xff))}
	ie := strictPanic(t, func() { strict.Guard(func() { strict.DecodeRef(&ok); strict.DecodeRef(&bad) }) })
	if ie == nil || ie.Frame != 7 || ie.Where != "dissector" || ie.Value != "boom" || !strings.Contains(string(ie.Stack), "panicker.Dissect") {
		t.Fatalf("strict Guard: %+v", ie)
	}
	if ie := strictPanic(t, func() { strict.DecodeRef(&bad) }); ie == nil || ie.Frame != 7 {
		t.Errorf("strict DecodeRef after Guard: %+v", ie)
	}
	if f := strict.DecodeRef(&ok); len(f.PDUs) != 1 || len(f.Findings) != 0 {
		t.Errorf("strict, next frame: %d PDUs, findings %+v", len(f.PDUs), f.Findings)
	}
}

// A stream dissector whose close panics, on TCP port 11: the panic happens
// in the end-of-input flush.
type closePanicker struct{}

func (closePanicker) Dissect(*dissect.Frame, []byte, int)                      {}
func (closePanicker) StreamData(*dissect.Frame, *tcp.Chunk)                    {}
func (closePanicker) StreamGap(*dissect.Frame, *tcp.Gap)                       {}
func (closePanicker) StreamClose(*dissect.Frame, tcp.FlowKey, tcp.CloseReason) { panic("close boom") }

func init() {
	dissect.RegisterDissector(&dissect.Registration{Name: "test-close-panic", TCPPorts: []dissect.PortRange{{Lo: 11, Hi: 11}},
		New: func(*dissect.Engine) dissect.Dissector { return closePanicker{} }})
}

// strictPanic runs fn and returns the *InternalError it panicked with (nil
// if it did not panic; any other panic fails the test).
func strictPanic(t *testing.T, fn func()) (ie *dissect.InternalError) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		var ok bool
		if ie, ok = r.(*dissect.InternalError); !ok {
			t.Fatalf("panicked with %T %v, want *dissect.InternalError", r, r)
		}
	}()
	fn()
	return nil
}

// In strict mode (tests, fuzzing) a dissector panic is re-raised with the
// frame number, the original value and the stack where it happened, from
// Decode, BuildTree and the end-of-input flush alike; RDX_STRICT=1 turns it
// on for engines built with default options.
func TestStrictPanics(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{Strict: true})
	p := panicUDP(0xff)
	ie := strictPanic(t, func() { eng.Decode(dissect.Packet{Num: 7, LinkType: dissect.LinkTypeIPv4, Data: p}) })
	if ie == nil {
		t.Fatal("Decode: a dissector panic did not fail in strict mode")
	}
	if ie.Frame != 7 || ie.Where != "dissector" || ie.Value != "boom" || !strings.Contains(string(ie.Stack), "panicker.Dissect") {
		t.Errorf("Decode: frame %d where %q value %v stack:\n%s", ie.Frame, ie.Where, ie.Value, ie.Stack)
	}
	if msg := ie.Error(); !strings.Contains(msg, "frame 7") || !strings.Contains(msg, "boom") {
		t.Errorf("message %q", msg)
	}

	p = panicUDP(1)
	f := eng.Decode(dissect.Packet{Num: 8, LinkType: dissect.LinkTypeIPv4, Data: p})
	if len(f.PDUs) != 1 || len(f.Findings) != 0 {
		t.Fatalf("after a strict panic: %d PDUs, findings %+v", len(f.PDUs), f.Findings)
	}
	var tree dissect.Tree
	ie = strictPanic(t, func() { eng.BuildTree(&tree, f) })
	if ie == nil || ie.Frame != 8 || ie.Where != "tree" || ie.Value != "tree boom" || !strings.Contains(string(ie.Stack), "okPDU.Tree") {
		t.Errorf("BuildTree: %+v", ie)
	}

	seg := make([]byte, 20)
	binary.BigEndian.PutUint16(seg[0:], 40000)
	binary.BigEndian.PutUint16(seg[2:], 11)
	seg[12], seg[13] = 5<<4, 0x18 // PSH ACK
	seg = append(seg, 'x')
	p = ipv4(6, 2, 0, false, seg)
	eng.Decode(dissect.Packet{Num: 9, LinkType: dissect.LinkTypeIPv4, Data: p})
	ie = strictPanic(t, eng.Finish)
	if ie == nil || ie.Where != "flush" || ie.Value != "close boom" {
		t.Errorf("Finish: %+v", ie)
	}

	t.Setenv(dissect.StrictEnv, "")
	lax := dissect.NewEngine(dissect.Options{})
	lax.Decode(dissect.Packet{Num: 9, LinkType: dissect.LinkTypeIPv4, Data: p})
	if ie := strictPanic(t, lax.Finish); ie != nil {
		t.Errorf("Finish without strict mode panicked: %v", ie)
	}
	t.Setenv(dissect.StrictEnv, "1")
	if !dissect.NewEngine(dissect.Options{}).Opts.Strict {
		t.Errorf("%s=1 did not make the engine strict", dissect.StrictEnv)
	}
}

// TCP sequence numbers are also shown relative to each direction's start,
// as tshark does: the SYN is 0, the first data octet 1; a capture that
// starts mid-connection counts its first octet as 1.
func TestTCPRelativeSeq(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	var isn uint32 = 0xfffffff0
	syn := tcpSeg(isn, 0x02, nil)
	f := eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: syn})
	if f.Net.RelSeq != 0 {
		t.Errorf("SYN relative seq %d", f.Net.RelSeq)
	}
	data := tcpSeg(isn+1+100, 0x18, []byte("x")) // across the 2^32 wrap
	f = eng.Decode(dissect.Packet{Num: 2, LinkType: dissect.LinkTypeIPv4, Data: data})
	if f.Net.RelSeq != 101 {
		t.Errorf("data relative seq %d, want 101", f.Net.RelSeq)
	}
	eng = dissect.NewEngine(dissect.Options{})
	f = eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: data})
	if f.Net.RelSeq != 1 {
		t.Errorf("mid-stream first segment relative seq %d, want 1", f.Net.RelSeq)
	}
}

// Dropping state for the budget calls into dissectors (a stream's close):
// a panic there is a finding on the frame for users, and fails strict runs.
func TestBudgetDropPanic(t *testing.T) {
	seg := func(sport uint16) []byte {
		p := anSeg(true, 1000, 0, fSYN, 500, 0)
		binary.BigEndian.PutUint16(p[20:], sport)
		binary.BigEndian.PutUint16(p[22:], 11) // the test-close-panic stream dissector
		return p
	}
	feed := func(eng *dissect.Engine) (found bool) {
		for i := range 3000 {
			p := seg(uint16(2000 + i))
			f := eng.Decode(dissect.Packet{Num: uint64(i + 1), LinkType: dissect.LinkTypeIPv4, Data: p})
			for _, fd := range f.Findings {
				found = found || strings.Contains(fd.Msg, "internal error while dropping state for the memory budget")
			}
		}
		return found
	}
	t.Setenv(dissect.StrictEnv, "")
	if !feed(dissect.NewEngine(dissect.Options{MaxMem: 64 << 10})) {
		t.Error("no finding for a dissector panic during a budget drop")
	}
	if ie := strictPanic(t, func() { feed(dissect.NewEngine(dissect.Options{MaxMem: 64 << 10, Strict: true})) }); ie == nil || ie.Where != "budget" {
		t.Errorf("strict: %+v, want an InternalError from the budget drop", ie)
	}
}

// An IPv4 packet inside IPv4 (protocol 4) is not dissected: the engine holds
// one decoded header per IP version, and the inner one used to overwrite
// the outer's fields, so the outer header's tree pointed past the frame
// (found by FuzzEngine).
func TestIPinIPNotDissected(t *testing.T) {
	udp := make([]byte, 9)
	binary.BigEndian.PutUint16(udp[2:], 9) // the test UDP sink
	binary.BigEndian.PutUint16(udp[4:], 9)
	inner := ipv4(17, 2, 0, false, udp)
	p := ipv4(4, 1, 0, false, inner)
	eng := dissect.NewEngine(dissect.Options{})
	f := eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: p})
	if f.Net.HasL4 || f.Net.IPProto != 4 {
		t.Fatalf("net %+v: want the outer header only", f.Net)
	}
	if len(f.Findings) != 1 || !strings.Contains(f.Findings[0].Msg, "IP in IP (protocol 4)") {
		t.Fatalf("findings %+v", f.Findings)
	}
	var tree dissect.Tree
	eng.BuildTree(&tree, f)
	ips := 0
	for _, n := range tree.Nodes {
		if n.F != nil && n.F.Abbrev == "ip" {
			ips++
			if n.Off != 0 || n.Len != 20 {
				t.Errorf("ip node at %d length %d, want 0, 20", n.Off, n.Len)
			}
		}
	}
	if ips != 1 {
		t.Errorf("%d ip nodes, want 1", ips)
	}
}
