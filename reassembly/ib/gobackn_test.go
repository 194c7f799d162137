package ib

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rdx-project/rdx/reassembly/budget"
)

// pk builds a request packet a1 → a2 on QP 5.
func pk(op uint8, psn uint32, data string, frame uint64) Packet {
	return Packet{Src: a1, Dst: a2, Opcode: op, DestQP: 5, PSN: psn & psnMask, Payload: []byte(data), Frame: frame,
		HasRETH: op == 0x06 || op == 0x0A, VA: 0x100, RKey: 9, DMALen: 64}
}

// ackPk builds an Acknowledge from the receiver a2 → a1 (to the sender's QP 6).
func ackPk(psn uint32, syndrome uint8, frame uint64) Packet {
	return Packet{Src: a2, Dst: a1, Opcode: 0x11, DestQP: 6, PSN: psn & psnMask, HasAETH: true, Syndrome: syndrome, Frame: frame}
}

// run feeds ps and returns every completed message as "data@frames".
func run(a *Assembler, ps []Packet) []string {
	var got []string
	for i := range ps {
		m, _ := a.Add(&ps[i])
		for ; m != nil; m = a.Next() {
			s := m.Kind.String() + ":" + string(m.Data) + "@"
			for _, f := range m.Frames {
				s += string(rune('0' + f%10))
			}
			got = append(got, s)
		}
	}
	return got
}

// TestGoBackN: synthesized go-back-N retransmissions, as a capture at the
// receiver sees them. Each message reaches the upper layer exactly once,
// in PSN order, however often its packets are sent again.
func TestGoBackN(t *testing.T) {
	base := uint32(0xFFFFFD) // the PSNs wrap in the middle of every case
	for _, tc := range []struct {
		name string
		ps   []Packet
		want []string
	}{
		{"SEND Only sent again after a timeout (ACK lost)", []Packet{
			pk(0x04, base, "a", 1), pk(0x04, base+1, "b", 2),
			pk(0x04, base, "a", 3), pk(0x04, base+1, "b", 4), // resent from the first unacknowledged
			pk(0x04, base+2, "c", 5),
		}, []string{"SEND:a@1", "SEND:b@2", "SEND:c@5"}},
		{"after a NAK: the packet after the lost one is held, then taken in order", []Packet{
			pk(0x0A, base, "w", 1), // RDMA WRITE Only: its PSN lost upstream is base+1
			pk(0x04, base+2, "reply", 2),
			// NAK (PSN sequence error) from the receiver, sender goes back to base+1
			pk(0x0A, base+1, "x", 3), pk(0x04, base+2, "reply", 4),
		}, []string{"RDMA WRITE:w@1", "RDMA WRITE:x@3", "SEND:reply@2"}},
		{"a whole multi-packet message resent after a timeout", []Packet{
			pk(0x00, base, "ab", 1), pk(0x01, base+1, "cd", 2), pk(0x02, base+2, "ef", 3),
			pk(0x00, base, "ab", 4), pk(0x01, base+1, "cd", 5), pk(0x02, base+2, "ef", 6),
		}, []string{"SEND:abcdef@123"}},
		{"a resend that starts in the middle of a message", []Packet{
			pk(0x06, base, "ab", 1), pk(0x07, base+1, "cd", 2) /* base+2 lost */, pk(0x08, base+3, "gh", 3),
			pk(0x07, base+1, "cd", 4), pk(0x07, base+2, "ef", 5), pk(0x08, base+3, "gh", 6),
		}, []string{"RDMA WRITE:abcdefgh@1253"}},
		{"the capture lost a packet the receiver got: the resend starts past it", []Packet{
			pk(0x04, base, "a", 1),                             /* base+1 taken by the receiver, not captured */
			pk(0x04, base+2, "c", 2), pk(0x04, base+3, "d", 3), /* base+4 lost upstream */
			pk(0x04, base+5, "f", 4),
			pk(0x04, base+4, "e", 5), pk(0x04, base+5, "f", 6), // go back to base+4: the receiver had base+1..3
		}, []string{"SEND:a@1", "SEND:c@2", "SEND:d@3", "SEND:e@5", "SEND:f@4"}},
		{"the capture lost a packet: the receiver's ACK says it has it", []Packet{
			pk(0x04, base, "a", 1), /* base+1 not captured */
			pk(0x04, base+2, "c", 2), pk(0x04, base+3, "d", 3),
			ackPk(base+3, 0x1F, 4),
			pk(0x04, base+4, "e", 5),
		}, []string{"SEND:a@1", "SEND:c@2", "SEND:d@3", "SEND:e@5"}},
		{"the receiver's NAK for a PSN sequence error", []Packet{
			pk(0x04, base, "a", 1), /* base+1 not captured */
			pk(0x04, base+2, "c", 2),
			ackPk(base+2, 0x60, 3), // NAK: expects base+2, so it has base+1
		}, []string{"SEND:a@1", "SEND:c@2"}},
	} {
		got := run(New(), tc.ps)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestReadResponseRetransmitted: a READ request sent again (the requester
// timed out) is executed again by the responder; its responses repeat PSNs
// already taken and must not make a second READ message, which would count
// the chunk's data twice.
func TestReadResponseRetransmitted(t *testing.T) {
	req := func(psn uint32, frame uint64) Packet {
		return Packet{Src: a2, Dst: a1, Opcode: 0x0C, DestQP: 7, PSN: psn, HasRETH: true, VA: 0x1000, RKey: 3, DMALen: 2048, Frame: frame}
	}
	resp := func(op uint8, psn uint32, frame uint64) Packet {
		return Packet{Src: a1, Dst: a2, Opcode: op, DestQP: 5, PSN: psn, Payload: make([]byte, 1024), Frame: frame}
	}
	a := New()
	got := run(a, []Packet{
		req(100, 1), resp(0x0D, 100, 2), resp(0x0F, 101, 3),
		req(100, 4), resp(0x0D, 100, 5), resp(0x0F, 101, 6), // the same READ again
		req(102, 7), resp(0x10, 102, 8),
	})
	if len(got) != 2 {
		t.Fatalf("%d READ messages, want 2", len(got))
	}
	if _, r := a.Open(); r != 0 {
		t.Errorf("%d READ requests left outstanding", r)
	}
}

// TestReadTimedFromFirstCopy: a READ request sent again before its
// responses is one request (ReadRequests), and the READ's time counts from
// its first copy (what the requester waited), its frame being the copy the
// responses answer.
func TestReadTimedFromFirstCopy(t *testing.T) {
	req := func(psn uint32, frame uint64) Packet {
		return Packet{Src: a2, Dst: a1, Opcode: 0x0C, DestQP: 7, PSN: psn, HasRETH: true, VA: 0x1000, RKey: 3, DMALen: 2048,
			Frame: frame, TimeNS: int64(frame) * 10}
	}
	resp := func(op uint8, psn uint32, frame uint64) Packet {
		return Packet{Src: a1, Dst: a2, Opcode: op, DestQP: 5, PSN: psn, Payload: make([]byte, 1024), Frame: frame, TimeNS: int64(frame) * 10}
	}
	a := New()
	var got []string
	for _, p := range []Packet{req(100, 1), req(100, 2), resp(0x0D, 100, 3), resp(0x0F, 101, 4), req(102, 5), resp(0x10, 102, 6)} {
		m, _ := a.Add(&p)
		for ; m != nil; m = a.Next() {
			got = append(got, fmt.Sprintf("frame %d at %d", m.ReqFrame, m.ReqTime))
		}
	}
	if w := []string{"frame 2 at 10", "frame 5 at 50"}; !slices.Equal(got, w) {
		t.Errorf("READs %q, want %q", got, w)
	}
	if a.ReadRequests != 2 {
		t.Errorf("%d READ requests counted, want 2", a.ReadRequests)
	}
}

// TestSendBetweenReadResponses: a SEND to a QP while READ responses to
// the same QP are under way (requests and responses are separate PSN
// spaces) leaves the READ whole.
func TestSendBetweenReadResponses(t *testing.T) {
	a := New()
	got := run(a, []Packet{
		{Src: a2, Dst: a1, Opcode: 0x0C, DestQP: 7, PSN: 500, HasRETH: true, VA: 0x1000, RKey: 3, DMALen: 3072, Frame: 1},
		{Src: a1, Dst: a2, Opcode: 0x0D, DestQP: 5, PSN: 500, Payload: []byte("r1"), Frame: 2},
		{Src: a1, Dst: a2, Opcode: 0x04, DestQP: 5, PSN: 9000, Payload: []byte("s"), Frame: 3},
		{Src: a1, Dst: a2, Opcode: 0x0E, DestQP: 5, PSN: 501, Payload: []byte("r2"), Frame: 4},
		{Src: a1, Dst: a2, Opcode: 0x0F, DestQP: 5, PSN: 502, Payload: []byte("r3"), Frame: 5},
	})
	if want := []string{"SEND:s@3", "RDMA READ:r1r2r3@245"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestHeldBounded: a stream that never gets its missing PSN holds at most
// maxHeld packets, then takes them as lost by the capture.
func TestHeldBounded(t *testing.T) {
	a := New()
	a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x04, DestQP: 5, PSN: 0, Payload: []byte("x")})
	n := 0
	for i := uint32(2); i < 2+2*maxHeld; i++ {
		m, _ := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x04, DestQP: 5, PSN: i, Payload: []byte("x")})
		for ; m != nil; m = a.Next() {
			n++
		}
		if a.Held() > maxHeld {
			t.Fatalf("%d packets held", a.Held())
		}
	}
	if n != 2*maxHeld-a.Held() {
		t.Errorf("%d messages out, %d held, of %d", n, a.Held(), 2*maxHeld)
	}
}

// TestBudget: the assembler's tables are charged to the budget and Enforce
// drops the least recently active stream, with what it held.
func TestBudget(t *testing.T) {
	b := budget.New(64 << 10)
	a := New()
	a.SetBudget(b)
	big := make([]byte, 4096)
	for qp := uint32(0); qp < 100; qp++ {
		b.Tick(uint64(qp))
		a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x06, DestQP: qp, PSN: 1, HasRETH: true, DMALen: 1 << 20, Payload: big})
		drops := b.Enforce()
		if b.Used() > b.Limit() {
			t.Fatalf("QP %d: %d octets used over the limit %d", qp, b.Used(), b.Limit())
		}
		if qp == 99 && len(drops) == 0 && b.Dropped() == 0 {
			t.Fatal("nothing dropped")
		}
	}
	if b.Dropped() == 0 || a.Dropped == 0 {
		t.Fatalf("budget dropped %d, assembler %d", b.Dropped(), a.Dropped)
	}
	a.Reset()
	if b.Used() != 0 {
		t.Errorf("%d octets charged after Reset", b.Used())
	}
}

// TestUnreliableNotDeduplicated: UD and UC packets are never sent again,
// and a UD QP hears many senders (QP1 MADs): a repeated or earlier PSN is
// a new packet there, not a duplicate, and nothing is held.
func TestUnreliableNotDeduplicated(t *testing.T) {
	ud := func(psn uint32, data string, frame uint64) Packet {
		return Packet{Src: a1, Dst: a2, Opcode: 0x64, DestQP: 1, PSN: psn, Payload: []byte(data), Frame: frame}
	}
	got := run(New(), []Packet{ud(10, "a", 1), ud(10, "b", 2), ud(5, "c", 3), ud(900, "d", 4)})
	if want := []string{"SEND:a@1", "SEND:b@2", "SEND:c@3", "SEND:d@4"}; !slices.Equal(got, want) {
		t.Errorf("UD: got %q, want %q", got, want)
	}
	uc := func(op uint8, psn uint32, data string, frame uint64) Packet {
		return Packet{Src: a1, Dst: a2, Opcode: 0x20 | op, DestQP: 9, PSN: psn, Payload: []byte(data), Frame: frame}
	}
	// UC: a gap drops the message in progress; the next one is taken
	got = run(New(), []Packet{uc(0x00, 1, "a", 1), uc(0x02, 3, "b", 2), uc(0x04, 7, "c", 3)})
	if want := []string{"SEND:c@3"}; !slices.Equal(got, want) {
		t.Errorf("UC: got %q, want %q", got, want)
	}
}

// A resync that takes two consecutive held packets skips nothing between
// them: it must not forget which PSNs were taken (skip to the current
// highest PSN went once round all 2^24 PSNs, clearing every mark on the
// way: 16 million steps a packet, and a retransmission of a packet taken
// before came out as a new message).
func TestResyncConsecutiveHeld(t *testing.T) {
	a := New()
	send := func(psn uint32, frame uint64) Event {
		_, ev := a.Add(&Packet{Src: a1, Dst: a2, Opcode: 0x04, DestQP: 5, PSN: psn, Payload: []byte{byte(psn)}, Frame: frame})
		return ev
	}
	if ev := send(10, 1); ev != Complete {
		t.Fatalf("PSN 10: %v", ev)
	}
	for _, psn := range []uint32{12, 13} {
		if ev := send(psn, uint64(psn)); ev != Gap {
			t.Fatalf("PSN %d: %v, want held (Gap)", psn, ev)
		}
	}
	// The receiver acknowledges 13: it has 11, which the capture lost.
	m, ev := a.Add(&Packet{Src: a2, Dst: a1, Opcode: 0x11, DestQP: 6, PSN: 13, HasAETH: true, Frame: 20})
	if ev != Complete || m.FirstPSN != 12 || a.Next() == nil {
		t.Fatalf("ACK 13: %v %+v, want 12 and 13 taken", ev, m)
	}
	if ev := send(10, 21); ev != Duplicate {
		t.Fatalf("PSN 10 sent again: %v, want Duplicate", ev)
	}
}
