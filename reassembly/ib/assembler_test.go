package ib

import (
	"net/netip"
	"slices"
	"testing"
)

var a1, a2 = netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")

func TestSendAcrossPSNWrap(t *testing.T) {
	a := New()
	ps := []Packet{
		{Src: a1, Dst: a2, Opcode: 0x00, DestQP: 5, PSN: 0xFFFFFF, Payload: []byte("ab"), Frame: 1},
		{Src: a1, Dst: a2, Opcode: 0x01, DestQP: 5, PSN: 0, Payload: []byte("cd"), Frame: 2},
		{Src: a1, Dst: a2, Opcode: 0x02, DestQP: 5, PSN: 1, Payload: []byte("e"), Frame: 3},
	}
	var m *Message
	var ev Event
	for i := range ps {
		m, ev = a.Add(&ps[i])
	}
	if ev != Complete || string(m.Data) != "abcde" || len(m.Frames) != 3 || m.Kind != KindSend {
		t.Fatalf("got %v %+v", ev, m)
	}
}

func TestGapAndRead(t *testing.T) {
	a := New()
	a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x06, DestQP: 5, PSN: 10, HasRETH: true, VA: 0x100, RKey: 9, DMALen: 4, Payload: []byte("ab")})
	if _, ev := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x08, DestQP: 5, PSN: 12, Payload: []byte("cd")}); ev != Gap {
		t.Fatalf("want gap, got %v", ev)
	}
	a.Add(&Packet{Src: a2, Dst: a1, Opcode: 0x0C, DestQP: 7, PSN: 50, HasRETH: true, VA: 0x200, RKey: 3, DMALen: 3, Frame: 4})
	m, ev := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x10, DestQP: 5, PSN: 50, Payload: []byte("xyz"), Frame: 5})
	if ev != Complete || m.Kind != KindRead || m.VA != 0x200 || m.RKey != 3 || m.ReqFrame != 4 {
		t.Fatalf("read: %v %+v", ev, m)
	}
	if _, ev := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x10, DestQP: 5, PSN: 51, Payload: []byte("q")}); ev != Unmatched {
		t.Fatalf("want unmatched, got %v", ev)
	}
}

func FuzzIBAssembly(f *testing.F) {
	// second bytes: 4 keeps the PSN, 5 is the next one
	f.Add([]byte{0x00, 5, 0x01, 5, 0x02, 5, 0x0C, 5, 0x0D, 4, 0x0E, 5, 0x0F, 5})
	f.Add([]byte{0xAC, 4, 0x10, 4, 0xAC, 5, 0x0D, 4}) // XRC READ requests the other way, answered
	f.Add([]byte{0x04, 4, 0x04, 6, 0x91, 4, 0x04, 4}) // a gap the receiver's ACK closes, then a resend
	// a READ request held past a gap, answered, and a SEND in order past it
	f.Add([]byte{0xA4, 4, 0xAC, 7, 0x0D, 4, 0x0E, 5, 0x0F, 5, 0xA4, 5})
	f.Fuzz(func(t *testing.T, b []byte) {
		a := New()
		// The same packets to an assembler that places reads: the same
		// events and messages, and a READ's pieces, put at their offsets,
		// are the data the storing one assembled.
		pa := New()
		pa.PlaceReads(true)
		placed := map[*Message][]byte{}
		his := map[streamKey]uint32{}
		psn := uint32(0xFFFFF8) // near the wrap
		for i := 0; i+1 < len(b); i += 2 {
			// The second byte moves the PSN a little (in order, gaps,
			// go-back-N) or, with its top bit, anywhere in the 2^24.
			d := b[i+1]
			if d&0x80 != 0 {
				psn = uint32(d) * 0x10101 & psnMask
			} else {
				psn = (psn + uint32(d&0xF) - 4) & psnMask
			}
			p := Packet{Src: a1, Dst: a2, Opcode: b[i], DestQP: uint32(d >> 4 & 1), PSN: psn,
				HasRETH: true, VA: uint64(d), RKey: 1, Payload: b[i:], Frame: uint64(i),
				// READs of up to 4 PSNs widen readWin; Acknowledges resync held packets.
				DMALen: 8 + uint32(d&0x60)<<3, HasAETH: true, Syndrome: d & 0x7F}
			if b[i]&0x80 != 0 { // swap direction
				p.Src, p.Dst = a2, a1
			}
			q := p
			m, ev := a.Add(&p)
			if (m != nil) != (ev == Complete) {
				t.Fatalf("message %v with event %v", m != nil, ev)
			}
			if err := checkStreams(a, his); err != nil {
				t.Fatal(err)
			}
			pm, pev := pa.Add(&q)
			if pev != ev || (pm == nil) != (m == nil) {
				t.Fatalf("placing reads: event %v, storing: %v", pev, ev)
			}
			if x := pa.Placed(); x != nil {
				if x.PieceOff == 0 {
					placed[x] = placed[x][:0]
				}
				if x.PieceOff != len(placed[x]) || x.PlacedLen != x.PieceOff+len(x.Piece) || len(x.Data) != 0 {
					t.Fatalf("piece at %d of %d placed (%d stored)", x.PieceOff, len(placed[x]), len(x.Data))
				}
				placed[x] = append(placed[x], x.Piece...)
			}
			for ; m != nil; m, pm = a.Next(), pa.Next() {
				if len(m.Data) > m.Len || len(m.Frames) != len(m.Sizes) {
					t.Fatalf("inconsistent message %+v", m)
				}
				if pm == nil || pm.Kind != m.Kind || pm.Len != m.Len || len(pm.Frames) != len(m.Frames) {
					t.Fatalf("placing reads completed %+v, storing %+v", pm, m)
				}
				if m.Kind == KindRead && string(placed[pm]) != string(m.Data) {
					t.Fatalf("READ pieces %x, stored %x", placed[pm], m.Data)
				}
				if m.Kind != KindRead && string(pm.Data) != string(m.Data) {
					t.Fatalf("%v data %x, stored %x", m.Kind, pm.Data, m.Data)
				}
			}
			if pm != nil {
				t.Fatal("placing reads completed more messages")
			}
		}
		if o, r := a.Open(); o > maxOpen || r > maxReads {
			t.Fatal("tables over their bounds")
		}
	})
}

// feed adds the packets in order and returns the last result and every event.
func feed(a *Assembler, ps []Packet) (*Message, []Event) {
	var m *Message
	var evs []Event
	for i := range ps {
		var ev Event
		m, ev = a.Add(&ps[i])
		evs = append(evs, ev)
	}
	return m, evs
}

// A lost WRITE Middle: the responder drops what follows until the requester
// goes back to the missing PSN (go-back-N) and sends the rest again. The
// assembler holds the packets ahead of the gap, takes them in order when
// the missing one comes, and never takes the retransmitted copies again.
func TestWriteGoBackN(t *testing.T) {
	w := func(op uint8, psn uint32, data string, frame uint64) Packet {
		return Packet{Src: a1, Dst: a2, Opcode: op, DestQP: 5, PSN: psn, Payload: []byte(data), Frame: frame,
			HasRETH: op == 0x06, VA: 0x100, RKey: 9, DMALen: 8}
	}
	ps := []Packet{
		w(0x06, 10, "ab", 1),
		// PSN 11 lost
		w(0x07, 12, "ef", 2), w(0x08, 13, "gh", 3),
		w(0x07, 11, "cd", 4), w(0x07, 12, "ef", 5),
		w(0x07, 11, "cd", 6), // a second copy, behind the next PSN
		w(0x08, 13, "gh", 7),
	}
	m, evs := feed(New(), ps)
	want := []Event{Partial, Gap, Gap, Complete, Duplicate, Duplicate, Duplicate}
	if !slices.Equal(evs, want) {
		t.Fatalf("events %v, want %v", evs, want)
	}
	_ = m
	a := New()
	var got *Message
	for i := range ps {
		if m, ev := a.Add(&ps[i]); ev == Complete {
			if got != nil {
				t.Fatal("the message was completed twice")
			}
			got = m
			if string(m.Data) != "abcdefgh" || m.VA != 0x100 || !slices.Equal(m.Frames, []uint64{1, 4, 2, 3}) {
				t.Fatalf("message %q frames %v", m.Data, m.Frames)
			}
		}
	}
}

// A lost READ Response: the requester discards the responses after it and
// re-issues the READ for the rest, from the missing PSN and the matching
// address (IBA 9.7.5.1.3). The assembler gives one message for the whole
// transfer, from the first request's VA.
func TestReadReissued(t *testing.T) {
	req := func(psn uint32, va uint64, n uint32, frame uint64) Packet {
		return Packet{Src: a2, Dst: a1, Opcode: 0x0C, DestQP: 7, PSN: psn, HasRETH: true, VA: va, RKey: 3, DMALen: n, Frame: frame}
	}
	resp := func(op uint8, psn uint32, data string, frame uint64) Packet {
		return Packet{Src: a1, Dst: a2, Opcode: op, DestQP: 5, PSN: psn, Payload: []byte(data), Frame: frame}
	}
	for _, tc := range []struct {
		name string
		ps   []Packet
		want []Event
		fr   []uint64
	}{
		{"middle lost", []Packet{
			req(50, 0x1000, 8, 1),
			resp(0x0D, 50, "ab", 2) /* 51 lost */, resp(0x0E, 52, "ef", 3), resp(0x0F, 53, "gh", 4),
			req(51, 0x1002, 6, 5),
			resp(0x0D, 51, "cd", 6), resp(0x0E, 52, "ef", 7), resp(0x0F, 53, "gh", 8),
		}, []Event{ReadRequest, Partial, Gap, Gap, ReadRequest, Partial, Partial, Complete}, []uint64{2, 6, 7, 8}},
		{"last lost", []Packet{
			req(50, 0x1000, 8, 1),
			resp(0x0D, 50, "ab", 2), resp(0x0E, 51, "cd", 3), resp(0x0E, 52, "ef", 4), /* 53 lost */
			req(53, 0x1006, 2, 5),
			resp(0x10, 53, "gh", 6),
		}, []Event{ReadRequest, Partial, Partial, Partial, ReadRequest, Complete}, []uint64{2, 3, 4, 6}},
	} {
		m, evs := feed(New(), tc.ps)
		if !slices.Equal(evs, tc.want) {
			t.Errorf("%s: events %v, want %v", tc.name, evs, tc.want)
			continue
		}
		if m.Kind != KindRead || string(m.Data) != "abcdefgh" || m.VA != 0x1000 || m.DMALen != 8 || m.Reissued != 1 || m.ReqFrame != 1 {
			t.Errorf("%s: %v %q VA %#x len %d reissued %d", tc.name, m.Kind, m.Data, m.VA, m.DMALen, m.Reissued)
		}
		if len(m.Frames) != len(tc.fr) {
			t.Errorf("%s: frames %v, want %v", tc.name, m.Frames, tc.fr)
			continue
		}
		for i := range tc.fr {
			if m.Frames[i] != tc.fr[i] {
				t.Errorf("%s: frames %v, want %v", tc.name, m.Frames, tc.fr)
				break
			}
		}
	}
	// A READ of something else while one is open is not its continuation.
	a := New()
	feed(a, []Packet{req(50, 0x1000, 8, 1), resp(0x0D, 50, "ab", 2), req(51, 0x9000, 2, 3)})
	if _, ev := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x10, DestQP: 5, PSN: 51, Payload: []byte("zz")}); ev != Complete {
		t.Fatalf("unrelated READ: %v", ev)
	}
	if a.Dropped != 1 {
		t.Fatalf("the cut READ was not counted as dropped: %d", a.Dropped)
	}
}

// TestPlaceReadsStoresNothing: with reads placed, each READ response
// packet's payload is handed out as it is (the packet's own octets, not a
// copy) at its offset in the READ, the message stores none of it, and the
// READ's data is not charged; SENDs are assembled as before.
func TestPlaceReadsStoresNothing(t *testing.T) {
	a := New()
	a.PlaceReads(true)
	a.Add(&Packet{Src: a2, Dst: a1, Opcode: 0x0C, DestQP: 7, PSN: 50, HasRETH: true, VA: 0x200, RKey: 3, DMALen: 7, Frame: 1})
	ps := []Packet{
		{Src: a1, Dst: a2, Opcode: 0x0D, DestQP: 5, PSN: 50, Payload: []byte("abc"), Frame: 2},
		{Src: a1, Dst: a2, Opcode: 0x0E, DestQP: 5, PSN: 51, Payload: []byte("de"), Frame: 3},
		{Src: a1, Dst: a2, Opcode: 0x0F, DestQP: 5, PSN: 52, Payload: []byte("fg"), Frame: 4},
	}
	off := 0
	for i := range ps {
		m, ev := a.Add(&ps[i])
		pm := a.Placed()
		if pm == nil || &pm.Piece[0] != &ps[i].Payload[0] || len(pm.Piece) != len(ps[i].Payload) || pm.PieceOff != off {
			t.Fatalf("packet %d: placed %+v, want its own payload at %d", i, pm, off)
		}
		off += len(ps[i].Payload)
		if len(pm.Data) != 0 {
			t.Fatalf("packet %d: READ data stored: %q", i, pm.Data)
		}
		if i == len(ps)-1 && (ev != Complete || m != pm || m.Len != 7 || m.PlacedLen != 7 || len(m.Frames) != 3) {
			t.Fatalf("last: %v %+v", ev, m)
		}
	}
	if _, ev := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x04, DestQP: 5, PSN: 9, Payload: []byte("xy")}); ev != Complete ||
		a.Placed() != nil {
		t.Fatalf("SEND: %v, placed %v", ev, a.Placed())
	}
	if m, _ := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x04, DestQP: 5, PSN: 10, Payload: []byte("zw")}); string(m.Data) != "zw" {
		t.Fatalf("SEND data %q", m.Data)
	}
}

// A SEND Only's message has the packet's payload as its Data, not a copy,
// capped at its length; the message after it, of several packets on the
// recycled buffer, is built in the assembler's own buffer and never
// written into that payload.
func TestSendOnlyLendsPayload(t *testing.T) {
	a := New()
	frame := []byte("ONLY+ICRC") // the payload and what follows it in the frame
	only := Packet{Src: a1, Dst: a2, Opcode: 0x04, DestQP: 5, PSN: 1, Payload: frame[:4], Frame: 1}
	m, ev := a.Add(&only)
	if ev != Complete || string(m.Data) != "ONLY" || &m.Data[0] != &frame[0] || cap(m.Data) != 4 {
		t.Fatalf("SEND Only: %v %q (cap %d), want its payload itself", ev, m.Data, cap(m.Data))
	}
	m, _ = feed(a, []Packet{
		{Src: a1, Dst: a2, Opcode: 0x00, DestQP: 5, PSN: 2, Payload: []byte("abcdef"), Frame: 2},
		{Src: a1, Dst: a2, Opcode: 0x02, DestQP: 5, PSN: 3, Payload: []byte("gh"), Frame: 3},
	})
	if m == nil || string(m.Data) != "abcdefgh" || string(frame) != "ONLY+ICRC" {
		t.Fatalf("next message %+v, frame now %q", m, frame)
	}
	if &m.Data[0] == &frame[0] {
		t.Fatal("a message of several packets built in a packet's payload")
	}
}

// A SEND Only held behind a gap is copied when held: its message has the
// copy, which a later packet (that reuses the hold buffer) leaves alone.
func TestHeldSendOnlyCopied(t *testing.T) {
	a := New()
	late := Packet{Src: a1, Dst: a2, Opcode: 0x04, DestQP: 5, PSN: 3, Payload: []byte("late"), Frame: 2}
	feed(a, []Packet{{Src: a1, Dst: a2, Opcode: 0x04, DestQP: 5, PSN: 1, Payload: []byte("one"), Frame: 1}, late})
	m, ev := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x04, DestQP: 5, PSN: 2, Payload: []byte("two"), Frame: 3})
	if ev != Complete || m == nil || string(m.Data) != "two" {
		t.Fatalf("gap filled: %v %+v", ev, m)
	}
	n := a.Next()
	if n == nil || string(n.Data) != "late" || &n.Data[0] == &late.Payload[0] {
		t.Fatalf("held message %+v, want a copy of %q", n, late.Payload)
	}
	for _, b := range a.bufs { // given back for the next hold to overwrite
		if &b[:1][0] == &n.Data[0] {
			t.Fatal("held message's Data is the hold buffer the next hold reuses")
		}
	}
}
