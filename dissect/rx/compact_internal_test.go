package rx

import (
	"testing"
	"unsafe"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// The budget charges must cover the structs they stand for, and a call kept
// after its reply must stay small: its reassembly state is pooled
// (dirWork), not part of the entry each of the 16,384 calls holds.
func TestOverheads(t *testing.T) {
	entry := unsafe.Sizeof(dissect.Entry[callKey, call]{})
	if entry > 256 {
		t.Errorf("a call's table entry is %d octets, want at most 256 (reassembly state belongs in dirWork)", entry)
	}
	// two index slots (a hash and a pointer each) per entry: the index is
	// at most half full once presized (dissect/tableindex.go)
	if slot := 2 * (unsafe.Sizeof(uint64(0)) + unsafe.Sizeof(&dissect.Entry[callKey, call]{})); callOverhead < entry+slot {
		t.Errorf("callOverhead %d below the entry (%d) and its index slots (%d)", callOverhead, entry, slot)
	}
	if w := unsafe.Sizeof(dirWork{}); workOverhead < w {
		t.Errorf("workOverhead %d below dirWork's %d octets", workOverhead, w)
	}
}

// compactEngine sends Rx DATA packets of one connection: call, seq, flags
// (FlagClientInitiated says the direction), at frame num; it returns the
// packet's findings.
func compactEngine() (*dissect.Engine, func(num uint64, call, seq uint32, flags uint8) []string) {
	eng := dissect.NewEngine(dissect.Options{})
	serial := uint32(0)
	return eng, func(num uint64, call, seq uint32, flags uint8) []string {
		serial++
		h := HeaderFields{Epoch: 0x5f3a1b2c, CID: 0x8a2b0c04, CallNumber: call, Seq: seq, Serial: serial,
			Type: TypeData, Flags: flags, ServiceID: 1}
		sport, dport := uint16(40000), uint16(7000)
		src, dst := testpkt.Client, testpkt.Server
		if flags&FlagClientInitiated == 0 {
			sport, dport, src, dst = dport, sport, dst, src
		}
		data := testpkt.UDP4(nil, src, dst, sport, dport, append(h.Encode(nil), 0, 0, 0, 1, 0, 0, 0, 0))
		f := eng.Decode(dissect.Packet{Num: num, TimeNS: int64(num) * 1e6, LinkType: dissect.LinkTypeIPv4, Data: data})
		var msgs []string
		for _, fd := range f.Findings {
			msgs = append(msgs, fd.Msg)
		}
		return msgs
	}
}

// A delivered direction gives its reassembly state back (the budget then
// holds the connection and the bare call), yet later packets of it are
// told apart as before: a resent seq is a retransmission naming its first
// frame, one past the last an error, and a seq past the last that took a
// resent seq's place in the recent seqs leaves it unnamed, as recent did.
func TestCompactedCall(t *testing.T) {
	const cl, last = FlagClientInitiated, FlagLastPacket
	eng, send := compactEngine()
	want := func(got []string, w string) {
		t.Helper()
		if len(got) != 1 || got[0] != w {
			t.Errorf("findings %q, want %q", got, w)
		}
	}
	send(1, 1, 1, cl)
	send(2, 1, 2, cl)
	send(3, 1, 3, cl|last) // the request is delivered
	send(4, 1, 1, last)    // so is the reply
	if u := eng.Budget().Used(); u != connOverhead+callOverhead {
		t.Errorf("%d octets charged for a connection and its delivered call, want %d (no reassembly state)", u, connOverhead+callOverhead)
	}
	want(send(5, 1, 2, cl), "retransmission of seq 2 (first sent in frame 2), new serial 5")
	want(send(6, 1, 1, cl), "retransmission of seq 1 (first sent in frame 1), new serial 6")
	want(send(7, 1, 1, 0), "retransmission of seq 1 (first sent in frame 4), new serial 7")
	want(send(8, 1, 18, cl), "seq 18 after the last packet (seq 3)")
	want(send(9, 1, 2, cl), "retransmission of seq 2 (first sent in an earlier frame), new serial 9")
	want(send(10, 1, 3, cl), "retransmission of seq 3 (first sent in frame 3), new serial 10")

	// 17 seqs, and seqs 65,535 frames apart: too many or too far to
	// compact, the work stays and names them all the same
	eng, send = compactEngine()
	for s := uint32(1); s < 17; s++ {
		send(uint64(s), 1, s, cl)
	}
	send(17, 1, 17, cl|last)
	send(100, 2, 1, cl)
	send(100+65535, 2, 2, cl|last)
	if u := eng.Budget().Used(); u <= connOverhead+2*callOverhead+2*workOverhead {
		t.Errorf("%d octets charged: the calls' reassembly state is not", u)
	}
	want(send(200000, 1, 2, cl), "retransmission of seq 2 (first sent in frame 2), new serial 20")
	want(send(200001, 2, 1, cl), "retransmission of seq 1 (first sent in frame 100), new serial 21")
}
