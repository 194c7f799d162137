package tcp

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// fuzzCheck verifies one direction's events against the reference stream.
type fuzzCheck struct {
	stream []byte
	isn1   uint32 // seq of stream[0]
	start  int    // stream index of offset 0 (mid-stream start)
	next   uint64
	gaps   int
	err    error
	closed bool
}

func (f *fuzzCheck) fail(format string, args ...any) {
	if f.err == nil {
		f.err = fmt.Errorf(format, args...)
	}
}

type fuzzConsumer struct {
	d      [2]*fuzzCheck
	strict bool // no limits: no gaps, no anomalies but before-start
}

func (c *fuzzConsumer) Data(ch *Chunk) {
	f := c.d[ch.Dir]
	if ch.Offset != f.next {
		f.fail("data at %d, want %d", ch.Offset, f.next)
	}
	if want := f.isn1 + uint32(f.start) + uint32(ch.Offset); ch.Seq != want {
		f.fail("seq %#x at offset %d, want %#x", ch.Seq, ch.Offset, want)
	}
	for i, b := range ch.Bytes {
		k := f.start + int(ch.Offset) + i
		if k >= len(f.stream) || f.stream[k] != b {
			f.fail("byte at offset %d differs", int(ch.Offset)+i)
			break
		}
	}
	f.next += uint64(len(ch.Bytes))
}

func (c *fuzzConsumer) Gap(g *Gap) {
	f := c.d[g.Dir]
	f.gaps++
	if c.strict {
		f.fail("gap %+v without limits", *g)
	}
	if g.Offset != f.next || g.Size == 0 || g.ResumeOffset != g.Offset+g.Size ||
		g.ResumeSeq != f.isn1+uint32(f.start)+uint32(g.ResumeOffset) {
		f.fail("bad gap %+v at %d", *g, f.next)
	}
	f.next = g.ResumeOffset
}

func (c *fuzzConsumer) Anomaly(a *Anomaly) {
	if a.Kind != BeforeStart || a.Offset >= 0 {
		c.d[a.Dir].fail("anomaly %+v", *a)
	}
}

func (c *fuzzConsumer) Close(FlowKey, CloseReason) { c.d[0].closed = true }

type fseg struct{ s, e int }

// FuzzReassembly feeds a known stream cut into segments, with duplicates and
// overlaps, in a fuzzer-chosen order, in both directions, and checks that
// every delivered byte is the stream's byte at that offset.
func FuzzReassembly(f *testing.F) {
	f.Add([]byte("\xff\xff\xff\xf0\x00\x02\x00abcdefghijklmnopqrstuvwxyz0123456789"))
	f.Add([]byte("\x00\x00\x00\x01\x01\x01\x00\x10\x20\x30\x40\x50\x60\x70\x80\x90"))
	f.Add([]byte("\x80\x00\x00\x00\x02\x04\x00\xff\xfe\xfd\xfc\x01\x02\x03\x04\x05\x06"))
	f.Add([]byte("\xff\xff\xfe\x00\x03\x08\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"))
	f.Add([]byte("\x12\x34\x56\x78\x08\x03\x00\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0f\x30\x90\x31\x91\x32\x92\x33\x93\x34\x94\x35\x95\x36\x96\x37\x97\x38\x98\x39\x99\x3a\x9a\x3b\x9b\x3c\x9c\x3d\x9d\x3e\x9e\x01\x02\x03\x04\x05\x06\x07\x00\x01\x02\x03\x04\x05\x06\x07\x00\x01\x02\x03")) // lent, reclaimed now and then, retransmissions
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 7 {
			return
		}
		isn := binary.BigEndian.Uint32(data)
		mode := data[4]
		n := 1 + int(binary.BigEndian.Uint16(data[5:]))%4096
		r := data[7:]
		rnd := func(m int) int { // fuzzer-driven choice in [0, m)
			if len(r) == 0 || m <= 1 {
				return 0
			}
			v := int(r[0])
			r = r[1:]
			return v % m
		}
		stream := make([]byte, n)
		x := isn | 1
		for i := range stream {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			stream[i] = byte(x)
		}
		// Cut the stream, then add duplicates and overlapping segments.
		var segs []fseg
		for s := 0; s < n; {
			e := min(n, s+1+rnd(1+n/4))
			segs = append(segs, fseg{s, e})
			s = e
		}
		for extra := rnd(16); extra > 0 && len(segs) < 200; extra-- {
			s := rnd(n)
			segs = append(segs, fseg{s, min(n, s+1+rnd(300))})
		}
		for i := len(segs) - 1; i > 0; i-- {
			j := rnd(i + 1)
			segs[i], segs[j] = segs[j], segs[i]
		}
		syn := mode&2 == 0
		cfg := Config{History: 1 << (9 + int(mode>>4)%6)}
		if mode&1 != 0 {
			cfg.MaxBufferedPerStream = 1 + int(mode>>2)*16
		}
		cons := &fuzzConsumer{strict: mode&1 == 0}
		isns := [2]uint32{isn, isn ^ 0x80000001}
		for d := range cons.d {
			cons.d[d] = &fuzzCheck{stream: stream, isn1: isns[d] + 1}
		}
		if !syn {
			// The first segment seen in each direction anchors offset 0.
			cons.d[0].start = segs[0].s
			cons.d[1].start = segs[len(segs)-1].s
		}
		cfg.NewConsumer = func(FlowKey) Consumer { return cons }
		a := NewAssembler(cfg)
		buf := make([]byte, 0, n)
		lend := mode&8 != 0
		var lent [][]byte
		send := func(d Dir, sg fseg) {
			if lend {
				// Lent until Reclaim, then overwritten: the history must
				// have copied what it still compares with.
				p := append([]byte(nil), stream[sg.s:sg.e]...)
				lent = append(lent, p)
				a.Segment(FlowKey{A: client, B: server}, d, Segment{Seq: isns[d] + 1 + uint32(sg.s), Payload: p, Lent: true})
				if rnd(4) == 0 {
					a.Reclaim()
					for _, p := range lent {
						clear(p)
					}
					lent = lent[:0]
				}
				return
			}
			// Reuse one buffer, as a capture reader does.
			buf = append(buf[:0], stream[sg.s:sg.e]...)
			a.Segment(FlowKey{A: client, B: server}, d, Segment{Seq: isns[d] + 1 + uint32(sg.s), Payload: buf})
			clear(buf)
		}
		if syn {
			a.Segment(FlowKey{A: client, B: server}, 0, Segment{Seq: isns[0], SYN: true})
			a.Segment(FlowKey{A: client, B: server}, 1, Segment{Seq: isns[1], SYN: true})
		}
		for i := range segs {
			send(0, segs[i])
			send(1, segs[len(segs)-1-i])
		}
		a.FlushAll()
		for d, c := range cons.d {
			if c.err != nil {
				t.Fatalf("dir %d: %v", d, c.err)
			}
			if want := uint64(n - c.start); c.next != want {
				t.Fatalf("dir %d: stream ends at %d, want %d", d, c.next, want)
			}
		}
		if !cons.d[0].closed || a.Len() != 0 || a.Stats().Buffered != 0 {
			t.Fatalf("not closed: %d conns, stats %+v", a.Len(), a.Stats())
		}
	})
}
