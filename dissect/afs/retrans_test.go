package afs_test

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/afs"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/dissect/rx"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// udp4 wraps an Rx packet in IPv4+UDP (link type 228): client
// 192.0.2.1:40000, server 192.0.2.2:7000 (the FS port).
func udp4(reply bool, payload []byte) []byte {
	if reply {
		return testpkt.UDP4(nil, testpkt.Server, testpkt.Client, 7000, 40000, payload)
	}
	return testpkt.UDP4(nil, testpkt.Client, testpkt.Server, 40000, 7000, payload)
}

// rxFeed decodes Rx packets one frame each and records the AFS PDUs.
type rxFeed struct {
	eng  *dissect.Engine
	n    uint64
	afs  []afsSeen
	find []string // every finding, "frame: message"
}

type afsSeen struct {
	frame uint64
	call  rx.Call
}

func (r *rxFeed) send(h rx.HeaderFields, body []byte, reply bool) {
	r.n++
	if !reply {
		h.Flags |= rx.FlagClientInitiated
	}
	data := udp4(reply, append(h.Encode(nil), body...))
	f := r.eng.Decode(dissect.Packet{Num: r.n, TimeNS: int64(r.n) * 1e6, LinkType: dissect.LinkTypeIPv4, Data: data})
	for _, p := range f.PDUs {
		if a, ok := p.(*afs.PDU); ok {
			r.afs = append(r.afs, afsSeen{r.n, a.Call})
		}
	}
	for _, fd := range f.Findings {
		r.find = append(r.find, strconv.FormatUint(r.n, 10)+": "+fd.Msg)
	}
}

// jumbo builds a jumbogram body from sub-packet bodies (each but the last
// JumboLen octets) and the flags of the sub-packets after the first.
func jumbo(subs [][]byte, flags []uint8) []byte {
	var b []byte
	for i, s := range subs {
		b = append(b, s...)
		if i < len(subs)-1 {
			b = append(b, flags[i], 0, 0, 0)
		}
	}
	return b
}

// storeData is an FS StoreData request with n data octets.
func storeData(n int) []byte {
	b := binary.BigEndian.AppendUint32(nil, 133)
	b = binary.BigEndian.AppendUint32(b, 536870913) // fid: volume, vnode, unique
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint32(b, 1)
	b = append(b, make([]byte, 24)...) // store status: 6 words
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	for i := 0; i < n; i++ {
		b = append(b, byte(i))
	}
	return b
}

func fsHdr(call, seq, serial uint32, flags uint8) rx.HeaderFields {
	return rx.HeaderFields{Epoch: 0x11223344, CID: 0x0abc0000, CallNumber: call, Seq: seq, Serial: serial,
		Type: rx.TypeData, Flags: flags, ServiceID: 1}
}

// Rx resends DATA with the same seq and a new serial, often with
// REQUEST_ACK, alone or inside jumbograms that overlap what already
// arrived, before and after the call completed. AFS must see the request and
// the reply exactly once each, the reply matched to the request.
func TestResentDataDeliveredOnce(t *testing.T) {
	r := &rxFeed{eng: dissect.NewEngine(dissect.Options{})}
	req := storeData(5000) // 5060 octets: 1412 * 3 + 824
	s := [][]byte{req[:1412], req[1412:2824], req[2824:4236], req[4236:]}
	const more, last, rack, jf = rx.FlagMorePackets, rx.FlagLastPacket, rx.FlagRequestAck, rx.FlagJumbo
	ci := uint8(rx.FlagClientInitiated)
	r.send(fsHdr(1, 1, 1, more), s[0], false)                                                      // 1
	r.send(fsHdr(1, 1, 2, more|rack), s[0], false)                                                 // 2: resend before completion
	r.send(fsHdr(1, 2, 3, more|jf), jumbo(s[1:3], []uint8{more | ci}), false)                      // 3: seq 2-3
	r.send(fsHdr(1, 1, 4, more|jf|rack), jumbo(s[0:3], []uint8{jf | more | ci, more | ci}), false) // 4: seq 1-3 again
	r.send(fsHdr(1, 4, 7, last), s[3], false)                                                      // 5: completes the request
	r.send(fsHdr(1, 4, 8, last|rack), s[3], false)                                                 // 6: resend after completion
	r.send(fsHdr(1, 3, 9, jf|rack), jumbo(s[2:4], []uint8{last | ci}), false)                      // 7: seq 3-4 again
	rep := make([]byte, 4+21*4+6*4)                                                                // status + volsync
	r.send(fsHdr(1, 1, 1, last), rep, true)                                                        // 8: the reply
	r.send(fsHdr(1, 1, 2, last|rack), rep, true)                                                   // 9: reply resent
	r.send(fsHdr(1, 4, 10, last|rack), s[3], false)                                                // 10: request resent after the reply

	if len(r.afs) != 2 {
		for _, a := range r.afs {
			t.Logf("AFS PDU in frame %d (reply %v)", a.frame, a.call.Reply)
		}
		t.Fatalf("AFS decoded %d times, want 2 (request once, reply once); findings %q", len(r.afs), r.find)
	}
	q, p := r.afs[0], r.afs[1]
	if q.frame != 5 || q.call.Reply || q.call.DataLen != len(req) || q.call.Truncated {
		t.Errorf("request in frame %d (reply %v, %d octets, truncated %v), want frame 5, %d octets",
			q.frame, q.call.Reply, q.call.DataLen, q.call.Truncated, len(req))
	}
	if p.frame != 8 || !p.call.Reply || p.call.ReqFrame != 5 || p.call.RepFrame != 8 {
		t.Errorf("reply in frame %d, matched to request frame %d", p.frame, p.call.ReqFrame)
	}
	if n := strings.Count(strings.Join(r.find, "\n"), "retransmission of seq"); n != 9 {
		t.Errorf("%d retransmissions reported, want 9 (frames 2, 4 (x3), 6, 7 (x2), 9, 10): %q", n, r.find)
	}
}

// A resend arriving after the memory budget dropped its call must not be
// taken for a new call: no second AFS request or reply.
func TestResentAfterDropDeliveredOnce(t *testing.T) {
	r := &rxFeed{eng: dissect.NewEngine(dissect.Options{MaxMem: 64 << 10})}
	req := storeData(100)
	rep := make([]byte, 4+21*4+6*4)
	const last, rack = rx.FlagLastPacket, rx.FlagRequestAck
	r.send(fsHdr(1, 1, 1, last), req, false)
	r.send(fsHdr(1, 1, 1, last), rep, true)
	// later calls on the same connection, each holding data, push call 1 out
	for c := uint32(2); c < 80; c++ {
		r.send(fsHdr(c, 1, c, rx.FlagMorePackets), make([]byte, 1400), false)
	}
	if !strings.Contains(strings.Join(r.find, "\n"), "dropped Rx call 1 of connection") {
		t.Fatalf("call 1 was not dropped by the budget: %q", r.find)
	}
	r.send(fsHdr(1, 1, 2, last|rack), req, false)
	r.send(fsHdr(1, 1, 2, last|rack), rep, true)
	if len(r.afs) != 2 {
		t.Fatalf("AFS decoded %d times, want 2 (the resends after the drop must not be delivered)", len(r.afs))
	}
	if !strings.Contains(strings.Join(r.find, "\n"), "Rx call 1: its earlier state was dropped") {
		t.Errorf("no finding on the resend of a dropped call: %q", r.find)
	}
}
