package tcp

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"
)

func TestSeqHelpers(t *testing.T) {
	tests := []struct {
		a, b uint32
		diff int32
		less bool
	}{
		{5, 3, 2, false},
		{3, 5, -2, true},
		{0, 0xffffffff, 1, false},
		{0xffffffff, 0, -1, true},
		{0x10, 0xfffffff0, 0x20, false},
		{0xfffffff0, 0x10, -0x20, true},
		{0x7fffffff, 0, 0x7fffffff, false},
		{7, 7, 0, false},
	}
	for _, tc := range tests {
		if d := seqDiff(tc.a, tc.b); d != tc.diff {
			t.Errorf("seqDiff(%#x,%#x)=%d want %d", tc.a, tc.b, d, tc.diff)
		}
		if l := seqLess(tc.a, tc.b); l != tc.less {
			t.Errorf("seqLess(%#x,%#x)=%v", tc.a, tc.b, l)
		}
	}
	if s := seqAt(0xfffffff1, 0x10); s != 1 {
		t.Errorf("seqAt wrap: %#x", s)
	}
	if s := seqAt(5, 1<<32+3); s != 8 {
		t.Errorf("seqAt past 4 GiB: %#x", s)
	}
}

func TestFlowKey(t *testing.T) {
	a := netip.MustParseAddrPort("10.0.0.2:80")
	b := netip.MustParseAddrPort("10.0.0.1:1000")
	k1, d1 := NewFlowKey(a, b)
	k2, d2 := NewFlowKey(b, a)
	if k1 != k2 || d1 == d2 || k1.A != b || d2 != 0 {
		t.Fatalf("%v %d %v %d", k1, d1, k2, d2)
	}
	if k1.Src(d1) != a || k1.Dst(d1) != b {
		t.Errorf("Src/Dst")
	}
	v6, _ := NewFlowKey(netip.MustParseAddrPort("[::1]:5"), netip.MustParseAddrPort("[::1]:4"))
	if v6.A.Port() != 4 {
		t.Errorf("port order: %v", v6)
	}
}

// TestHistory checks retransmissions against history: old bytes go
// unverified, recent different bytes are conflicts with the right frame.
func TestHistory(t *testing.T) {
	a, log := newTest(Config{History: 2048}, false)
	a.Add(client, server, Segment{Seq: 100, SYN: true, Frame: 1})
	seg := bytes.Repeat([]byte("0123456789abcdef"), 64) // 1024 bytes
	for i := range 4 {
		a.Add(client, server, Segment{Seq: 101 + uint32(i*1024), Payload: seg, Frame: uint64(2 + i)})
	}
	*log = nil
	// Bytes 0..2047 have left the history.
	a.Add(client, server, Segment{Seq: 101, Payload: []byte("xyz"), Frame: 10})
	// Byte 3000 came from frame 4 (offsets 2048..3071).
	a.Add(client, server, Segment{Seq: 101 + 3000, Payload: []byte("8X"), Frame: 11})
	want := `A0 conflict 3001/0xc1e len=1 f11 prev=4`
	if len(*log) != 1 || (*log)[0] != want {
		t.Errorf("got %q want %q", *log, want)
	}
	s := a.Stats()
	if s.Unverified != 3 || s.Conflicts != 1 || s.Retransmissions != 2 || s.Buffered != 2048 {
		t.Errorf("stats %+v", s)
	}
}

func TestTooFar(t *testing.T) {
	a, log := newTest(Config{}, false)
	a.Add(client, server, Segment{Seq: 100, Payload: []byte("a"), Frame: 1})
	a.Add(client, server, Segment{Seq: 100 + 1<<31 - 8, Payload: []byte("far"), Frame: 2})
	want := `D0 0/0x64 "a" f1|A0 too-far 2147483640/0x8000005c len=3 f2 prev=0`
	if got := join(*log); got != want {
		t.Errorf("got %s", got)
	}
	if a.Stats().Buffered > 1<<10 {
		t.Errorf("buffered %d", a.Stats().Buffered)
	}
}

func join(l []string) string {
	var b bytes.Buffer
	for i, s := range l {
		if i > 0 {
			b.WriteByte('|')
		}
		b.WriteString(s)
	}
	return b.String()
}

// TestBoundedHole: a hole that never fills, followed by lots of data, keeps
// memory under the per-stream limit and reports every skipped byte.
func TestBoundedHole(t *testing.T) {
	const limit = 64 << 10
	a := NewAssembler(Config{MaxBufferedPerStream: limit, History: -1})
	a.Add(client, server, Segment{Seq: 0, SYN: true})
	p := make([]byte, 1448)
	maxBuf := 0
	for i := range 10000 {
		if i%100 == 0 {
			continue // lost
		}
		a.Add(client, server, Segment{Seq: 1 + uint32(i*1448), Payload: p})
		maxBuf = max(maxBuf, a.Stats().Buffered)
	}
	if maxBuf > limit+1448 {
		t.Errorf("buffered up to %d", maxBuf)
	}
	a.FlushAll()
	s := a.Stats()
	if s.Gaps != 100 || s.GapBytes != 100*1448 || s.Bytes != 9900*1448 || s.Buffered != 0 {
		t.Errorf("stats %+v", s)
	}
}

// TestManyConns: short connections never closed properly stay bounded by
// MaxStreams, and properly closed ones are forgotten at once.
func TestManyConns(t *testing.T) {
	a := NewAssembler(Config{MaxStreams: 1000})
	p := []byte("GET / HTTP/1.0\r\n\r\n")
	for i := range 200000 {
		c := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 1234)
		a.Add(c, server, Segment{Seq: 7, SYN: true, TimeNS: int64(i)})
		a.Add(c, server, Segment{Seq: 8, Payload: p, TimeNS: int64(i)})
		if i%2 == 0 {
			a.Add(c, server, Segment{Seq: 8 + uint32(len(p)), FIN: true})
			a.Add(server, c, Segment{Seq: 99, FIN: true})
		}
		if a.Len() > 1000 {
			t.Fatalf("%d connections", a.Len())
		}
	}
	if s := a.Stats(); s.Evicted != 100000-1000 || s.Conns != 200000 {
		t.Errorf("stats %+v", s)
	}
	a.FlushOlderThan(200000 - 10)
	if a.Len() != 5 { // the odd ones of the last 10
		t.Errorf("after FlushOlderThan: %d", a.Len())
	}
	a.FlushAll()
	if a.Len() != 0 || a.Stats().Buffered != 0 {
		t.Errorf("after FlushAll: %d %+v", a.Len(), a.Stats())
	}
}

// TestBeyond4GiB: offsets keep counting past 2^32 bytes while seq wraps.
func TestBeyond4GiB(t *testing.T) {
	var last Chunk
	var n int
	cons := &funcConsumer{data: func(c *Chunk) { last = *c; n++ }}
	a := NewAssembler(Config{NewConsumer: func(FlowKey) Consumer { return cons }})
	a.Add(client, server, Segment{Seq: 0x12345677, SYN: true})
	p := make([]byte, 64<<10)
	const segs = 1<<16 + 10 // just over 4 GiB
	for i := range segs {
		a.Add(client, server, Segment{Seq: 0x12345678 + uint32(i*len(p)), Payload: p})
	}
	if n != segs || last.Offset != uint64(segs-1)*uint64(len(p)) || last.Seq != 0x12345678+uint32(last.Offset) {
		t.Errorf("n %d last %d/%#x", n, last.Offset, last.Seq)
	}
	// A retransmission of the last segment after the wrap is recognised.
	a.Add(client, server, Segment{Seq: last.Seq, Payload: p})
	if s := a.Stats(); s.Retransmissions != 1 || n != segs {
		t.Errorf("stats %+v", s)
	}
}

type funcConsumer struct {
	data func(*Chunk)
	gap  func(*Gap)
}

func (f *funcConsumer) Data(c *Chunk) {
	if f.data != nil {
		f.data(c)
	}
}

func (f *funcConsumer) Gap(g *Gap) {
	if f.gap != nil {
		f.gap(g)
	}
}
func (f *funcConsumer) Anomaly(*Anomaly)           {}
func (f *funcConsumer) Close(FlowKey, CloseReason) {}

// A hole the receiver has acknowledged past is reported at that ack, not at
// the end of the capture, and the held data follows at once.
func TestAckedHole(t *testing.T) {
	var log []string
	a := NewAssembler(Config{NewConsumer: func(FlowKey) Consumer { return &recorder{log: &log} }})
	a.Add(client, server, Segment{Seq: 1000, Payload: []byte("aaaa"), Frame: 1})
	a.Add(client, server, Segment{Seq: 1008, Payload: []byte("cccc"), Frame: 2}) // 1004-1007 never captured
	a.Add(server, client, Segment{Seq: 5000, ACK: true, Ack: 1006, Frame: 3})    // an ack inside the hole: lost by the capture
	// an ack that does not pass the next expected byte declares nothing
	a.Add(client, server, Segment{Seq: 1016, Payload: []byte("eeee"), Frame: 4})
	a.Add(server, client, Segment{Seq: 5000, ACK: true, Ack: 1012, Frame: 5})
	want := []string{
		`D0 0/0x3e8 "aaaa" f1`,
		`G0 4+4 ->8/0x3f0 acked`,
		`D0 8/0x3f0 "cccc" f2`,
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
}
