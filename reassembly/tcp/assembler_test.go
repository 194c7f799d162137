package tcp

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// recorder logs every consumer call as one line, for exact comparison.
type recorder struct {
	log   *[]string
	multi bool // prefix lines with the client port
}

func (r *recorder) pfx(k FlowKey) string {
	if r.multi {
		return fmt.Sprintf("c%d ", k.A.Port())
	}
	return ""
}

func (r *recorder) Data(c *Chunk) {
	if len(c.Frames) != 1 || c.Frames[0].Len != len(c.Bytes) || c.Frames[0].Off != 0 {
		panic("bad frame spans")
	}
	*r.log = append(*r.log, fmt.Sprintf("%sD%d %d/%#x %q f%d", r.pfx(c.Key), c.Dir, c.Offset, c.Seq, c.Bytes, c.Frames[0].Frame))
}

func (r *recorder) Gap(g *Gap) {
	*r.log = append(*r.log, fmt.Sprintf("%sG%d %d+%d ->%d/%#x %s", r.pfx(g.Key), g.Dir, g.Offset, g.Size, g.ResumeOffset, g.ResumeSeq, g.Reason))
}

func (r *recorder) Anomaly(a *Anomaly) {
	*r.log = append(*r.log, fmt.Sprintf("%sA%d %s %d/%#x len=%d f%d prev=%d", r.pfx(a.Key), a.Dir, a.Kind, a.Offset, a.Seq, a.Len, a.Frame, a.PrevFrame))
}

func (r *recorder) Close(k FlowKey, reason CloseReason) {
	*r.log = append(*r.log, fmt.Sprintf("%sC %s", r.pfx(k), reason))
}

var (
	client = netip.MustParseAddrPort("10.0.0.1:1000")
	server = netip.MustParseAddrPort("10.0.0.2:80")
)

// in is one test segment: dir, seq, payload, flags ("S", "F", "R"), frame,
// and the client port (0 means 1000) for multi-connection tests.
type in struct {
	dir   Dir
	seq   uint32
	data  string
	flags string
	frame uint64
	port  uint16
}

func feed(a *Assembler, segs []in) {
	for _, s := range segs {
		c := client
		if s.port != 0 {
			c = netip.AddrPortFrom(client.Addr(), s.port)
		}
		src, dst := c, server
		if s.dir == 1 {
			src, dst = server, c
		}
		// The caller's buffer is reused: scribble on it after the call.
		buf := []byte(s.data)
		a.Add(src, dst, Segment{Seq: s.seq, Payload: buf, Frame: s.frame,
			SYN: strings.Contains(s.flags, "S"), FIN: strings.Contains(s.flags, "F"),
			RST: strings.Contains(s.flags, "R"), TimeNS: int64(s.frame)})
		for i := range buf {
			buf[i] = '#'
		}
	}
}

func newTest(cfg Config, multi bool) (*Assembler, *[]string) {
	var log []string
	cfg.NewConsumer = func(FlowKey) Consumer { return &recorder{log: &log, multi: multi} }
	return NewAssembler(cfg), &log
}

const w = 0xfffffff0 // ISN just before the wrap

func TestAssembler(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		multi bool
		segs  []in
		flush bool
		want  []string
		check func(t *testing.T, a *Assembler)
	}{
		{name: "in-order", segs: []in{{0, 1000, "abc", "", 1, 0}, {0, 1003, "def", "", 2, 0}}, flush: true,
			want: []string{`D0 0/0x3e8 "abc" f1`, `D0 3/0x3eb "def" f2`, `C flush`}},
		{name: "reversed", segs: []in{{0, 100, "", "S", 1, 0}, {0, 107, "ghi", "", 2, 0}, {0, 104, "def", "", 3, 0}, {0, 101, "abc", "", 4, 0}},
			want: []string{`D0 0/0x65 "abc" f4`, `D0 3/0x68 "def" f3`, `D0 6/0x6b "ghi" f2`},
			check: func(t *testing.T, a *Assembler) {
				if s := a.Stats(); s.OutOfOrder != 2 {
					t.Errorf("OutOfOrder %d", s.OutOfOrder)
				}
			}},
		{name: "duplicated", segs: []in{{0, 100, "", "S", 1, 0}, {0, 101, "abc", "", 2, 0}, {0, 101, "abc", "", 3, 0},
			{0, 107, "ghi", "", 4, 0}, {0, 107, "ghi", "", 5, 0}, {0, 104, "def", "", 6, 0}, {0, 104, "def", "", 7, 0}},
			want: []string{`D0 0/0x65 "abc" f2`, `D0 3/0x68 "def" f6`, `D0 6/0x6b "ghi" f4`},
			check: func(t *testing.T, a *Assembler) {
				if s := a.Stats(); s.Retransmissions != 3 || s.Conflicts != 0 || s.Unverified != 0 {
					t.Errorf("stats %+v", s)
				}
			}},
		{name: "overlap-same", segs: []in{{0, 100, "", "S", 1, 0}, {0, 101, "abcd", "", 2, 0}, {0, 103, "cdef", "", 3, 0}},
			want: []string{`D0 0/0x65 "abcd" f2`, `D0 4/0x69 "ef" f3`},
			check: func(t *testing.T, a *Assembler) {
				if s := a.Stats(); s.Overlaps != 1 || s.Conflicts != 0 {
					t.Errorf("stats %+v", s)
				}
			}},
		{name: "overlap-same-held", segs: []in{{0, 100, "", "S", 1, 0}, {0, 105, "efg", "", 2, 0}, {0, 103, "cdef", "", 3, 0}, {0, 101, "ab", "", 4, 0}},
			want: []string{`D0 0/0x65 "ab" f4`, `D0 2/0x67 "cd" f3`, `D0 4/0x69 "efg" f2`}},
		{name: "overlap-different", segs: []in{{0, 100, "", "S", 1, 0}, {0, 101, "abcd", "", 2, 0}, {0, 103, "cXeX", "", 3, 0}},
			want: []string{`D0 0/0x65 "abcd" f2`, `A0 conflict 3/0x68 len=1 f3 prev=2`, `D0 4/0x69 "eX" f3`}},
		{name: "overlap-different-held", segs: []in{{0, 100, "", "S", 1, 0}, {0, 105, "efg", "", 2, 0}, {0, 103, "cdEF", "", 3, 0}, {0, 101, "ab", "", 4, 0}},
			want: []string{`A0 conflict 4/0x69 len=2 f3 prev=2`, `D0 0/0x65 "ab" f4`, `D0 2/0x67 "cd" f3`, `D0 4/0x69 "efg" f2`}},
		{name: "overlap-spanning-held", segs: []in{{0, 100, "", "S", 1, 0}, {0, 103, "c", "", 2, 0}, {0, 105, "e", "", 3, 0}, {0, 101, "abxdefg", "", 4, 0}},
			want: []string{`A0 conflict 2/0x67 len=1 f4 prev=2`, `D0 0/0x65 "ab" f4`, `D0 2/0x67 "c" f2`, `D0 3/0x68 "d" f4`, `D0 4/0x69 "e" f3`, `D0 5/0x6a "fg" f4`}},
		{name: "gap-then-fill", segs: []in{{0, 100, "", "S", 1, 0}, {0, 101, "abc", "", 2, 0}, {0, 107, "ghi", "", 3, 0}, {0, 104, "def", "", 4, 0}},
			want: []string{`D0 0/0x65 "abc" f2`, `D0 3/0x68 "def" f4`, `D0 6/0x6b "ghi" f3`}},
		{name: "gap-never-filled", segs: []in{{0, 100, "", "S", 1, 0}, {0, 101, "abc", "", 2, 0}, {0, 107, "ghi", "", 3, 0}, {0, 120, "tu", "", 4, 0}}, flush: true,
			want: []string{`D0 0/0x65 "abc" f2`, `G0 3+3 ->6/0x6b flush`, `D0 6/0x6b "ghi" f3`, `G0 9+10 ->19/0x78 flush`, `D0 19/0x78 "tu" f4`, `C flush`},
			check: func(t *testing.T, a *Assembler) {
				if s := a.Stats(); s.Gaps != 2 || s.GapBytes != 13 || s.Buffered != 0 || a.Len() != 0 {
					t.Errorf("stats %+v", s)
				}
			}},
		{name: "wrap-in-order", segs: []in{{0, w, "", "S", 1, 0}, {0, w + 1, "0123456789", "", 2, 0}, {0, w + 11, "abcdefghij", "", 3, 0}, {0, 5, "KLMN", "", 4, 0}},
			want: []string{`D0 0/0xfffffff1 "0123456789" f2`, `D0 10/0xfffffffb "abcdefghij" f3`, `D0 20/0x5 "KLMN" f4`}},
		{name: "wrap-out-of-order", segs: []in{{0, w, "", "S", 1, 0}, {0, 5, "KLMN", "", 4, 0}, {0, w + 11, "abcdefghij", "", 3, 0}, {0, 0, "fgh", "", 5, 0}, {0, w + 1, "0123456789", "", 2, 0}},
			want: []string{`D0 0/0xfffffff1 "0123456789" f2`, `D0 10/0xfffffffb "abcdefghij" f3`, `D0 20/0x5 "KLMN" f4`},
			check: func(t *testing.T, a *Assembler) {
				if s := a.Stats(); s.Retransmissions != 1 {
					t.Errorf("stats %+v", s)
				}
			}},
		{name: "wrap-gap", segs: []in{{0, w, "", "S", 1, 0}, {0, w + 1, "0123456789", "", 2, 0}, {0, 5, "KLMN", "", 4, 0}}, flush: true,
			want: []string{`D0 0/0xfffffff1 "0123456789" f2`, `G0 10+10 ->20/0x5 flush`, `D0 20/0x5 "KLMN" f4`, `C flush`}},
		{name: "mid-stream", segs: []in{{0, 5000, "hello", "", 1, 0}, {0, 4995, "abcde", "", 2, 0}, {0, 4998, "xyhel", "", 3, 0}, {0, 5005, " world", "", 4, 0}},
			want: []string{`D0 0/0x1388 "hello" f1`, `A0 before-start -5/0x1383 len=5 f2 prev=0`, `A0 before-start -2/0x1386 len=2 f3 prev=0`, `D0 5/0x138d " world" f4`}},
		{name: "syn-then-data", segs: []in{{0, 100, "", "S", 1, 0}, {0, 100, "", "S", 2, 0}, {0, 101, "abc", "", 3, 0}},
			want: []string{`D0 0/0x65 "abc" f3`}},
		{name: "syn-with-data", segs: []in{{0, 100, "hi", "S", 1, 0}, {0, 103, "there", "", 2, 0}},
			want: []string{`D0 0/0x65 "hi" f1`, `D0 2/0x67 "there" f2`}},
		{name: "syn-reuse", segs: []in{{0, 100, "", "S", 1, 0}, {0, 101, "abc", "", 2, 0}, {0, 9000, "", "S", 3, 0}, {0, 9001, "new", "", 4, 0}},
			want: []string{`D0 0/0x65 "abc" f2`, `C reused`, `D0 0/0x2329 "new" f4`}},
		{name: "both-directions", segs: []in{{0, 100, "", "S", 1, 0}, {1, 500, "", "S", 2, 0}, {0, 101, "req1", "", 3, 0},
			{1, 506, "p2", "", 4, 0}, {0, 105, "req2", "", 5, 0}, {1, 501, "resp1", "", 6, 0}},
			want: []string{`D0 0/0x65 "req1" f3`, `D0 4/0x69 "req2" f5`, `D1 0/0x1f5 "resp1" f6`, `D1 5/0x1fa "p2" f4`}},
		{name: "fin-both", segs: []in{{0, 100, "", "S", 1, 0}, {1, 500, "", "S", 2, 0}, {0, 101, "abc", "F", 3, 0}, {1, 501, "", "F", 4, 0}, {0, 105, "", "", 5, 0}},
			want: []string{`D0 0/0x65 "abc" f3`, `C fin`},
			check: func(t *testing.T, a *Assembler) {
				if a.Len() != 0 {
					t.Errorf("closed connection kept: %d", a.Len())
				}
			}},
		{name: "fin-hole-filled", segs: []in{{0, 100, "", "S", 1, 0}, {1, 500, "", "S", 2, 0}, {0, 101, "abc", "", 3, 0}, {0, 107, "ghi", "F", 4, 0},
			{1, 501, "", "F", 5, 0}, {0, 104, "def", "", 6, 0}},
			want: []string{`D0 0/0x65 "abc" f3`, `D0 3/0x68 "def" f6`, `D0 6/0x6b "ghi" f4`, `C fin`}},
		{name: "fin-hole-flushed", segs: []in{{0, 100, "", "S", 1, 0}, {1, 500, "", "S", 2, 0}, {0, 101, "abc", "", 3, 0}, {0, 110, "", "F", 4, 0},
			{1, 501, "", "F", 5, 0}}, flush: true,
			want: []string{`D0 0/0x65 "abc" f3`, `G0 3+6 ->9/0x6e flush`, `C flush`}},
		{name: "rst-hole", segs: []in{{0, 100, "", "S", 1, 0}, {0, 101, "abc", "", 2, 0}, {0, 107, "ghi", "", 3, 0}, {1, 500, "", "R", 4, 0}, {0, 110, "late", "", 5, 0}},
			want: []string{`D0 0/0x65 "abc" f2`, `G0 3+3 ->6/0x6b closed`, `D0 6/0x6b "ghi" f3`, `C rst`, `D0 0/0x6e "late" f5`}},
		{name: "stream-limit", cfg: Config{MaxBufferedPerStream: 8 + 2*SegmentOverhead},
			segs: []in{{0, 100, "", "S", 1, 0}, {0, 101, "ab", "", 2, 0}, {0, 105, "efgh", "", 3, 0}, {0, 111, "klmnop", "", 4, 0}}, flush: true,
			want: []string{`D0 0/0x65 "ab" f2`, `G0 2+2 ->4/0x69 stream-limit`, `D0 4/0x69 "efgh" f3`, `G0 8+2 ->10/0x6f flush`, `D0 10/0x6f "klmnop" f4`, `C flush`}},
		{name: "total-limit", cfg: Config{MaxBufferedTotal: 8 + SegmentOverhead, History: -1}, multi: true,
			segs: []in{{0, 100, "", "S", 1, 1}, {0, 101, "ab", "", 2, 1}, {0, 105, "efgh", "", 3, 1},
				{0, 200, "", "S", 4, 2}, {0, 201, "x", "", 5, 2}, {0, 205, "12345", "", 6, 2}},
			want: []string{`c1 D0 0/0x65 "ab" f2`, `c2 D0 0/0xc9 "x" f5`, `c2 G0 1+3 ->4/0xcd total-limit`, `c2 D0 4/0xcd "12345" f6`},
			check: func(t *testing.T, a *Assembler) {
				if s := a.Stats(); s.Buffered != 4+SegmentOverhead {
					t.Errorf("Buffered %d", s.Buffered)
				}
			}},
		{name: "eviction", cfg: Config{MaxStreams: 2}, multi: true,
			segs: []in{{0, 100, "a", "", 1, 1}, {0, 200, "b", "", 2, 2}, {0, 203, "z", "", 6, 2}, {0, 103, "c", "", 3, 1}, {0, 300, "d", "", 4, 3}, {0, 104, "e", "", 5, 1}}, flush: true,
			want: []string{`c1 D0 0/0x64 "a" f1`, `c2 D0 0/0xc8 "b" f2`, `c2 G0 1+2 ->3/0xcb evicted`, `c2 D0 3/0xcb "z" f6`, `c2 C evicted`, `c3 D0 0/0x12c "d" f4`,
				`c3 C flush`, `c1 G0 1+2 ->3/0x67 flush`, `c1 D0 3/0x67 "c" f3`, `c1 D0 4/0x68 "e" f5`, `c1 C flush`},
			check: func(t *testing.T, a *Assembler) {
				if a.Len() != 0 || a.Stats().Evicted != 1 || a.Stats().Conns != 3 {
					t.Errorf("len %d stats %+v", a.Len(), a.Stats())
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, log := newTest(tc.cfg, tc.multi)
			feed(a, tc.segs)
			if tc.flush {
				a.FlushAll()
			}
			if got := strings.Join(*log, "\n"); got != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(tc.want, "\n"))
			}
			if tc.check != nil {
				tc.check(t, a)
			}
		})
	}
}
