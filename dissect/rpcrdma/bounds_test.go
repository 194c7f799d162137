package rpcrdma_test

import (
	"encoding/binary"
	"net/netip"
	"runtime"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// hugeWriteList is a reply whose write list announces 64 segments of
// 0xFFFFFFFF octets, with nothing written into them.
func hugeWriteList(xid, psn uint32) []byte {
	segs := make([]rpcrdma.Segment, 64)
	for i := range segs {
		segs[i] = rpcrdma.Segment{Handle: 0x100 + uint32(i), Length: 0xFFFFFFFF, Offset: uint64(i) << 32}
	}
	h := rpcrdma.Header{XID: xid, Vers: 1, Credit: 16, Proc: rpcrdma.MSG, Writes: [][]rpcrdma.Segment{segs}}
	return withICRC(roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: psn}, nil, append(h.Encode(nil), reply(xid)...)))
}

// TestHugeWriteListAllocatesWhatArrives: the chunk buffers of a reply are
// sized by the RDMA WRITE data that arrived, not by the lengths its write
// list announces (it was min(length, 16 MiB) per segment: 20 such replies
// allocated 20 GiB and took 4.4 s).
func TestHugeWriteListAllocatesWhatArrives(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	var frames [][]byte
	for i := uint32(0); i < 20; i++ {
		frames = append(frames, hugeWriteList(0x1000+i, 100+i))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	warned := 0
	for i, fr := range frames {
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), LinkType: dissect.LinkTypeEthernet, Data: fr})
		for _, fd := range f.Findings {
			if fd.Proto == "rpcordma" && fd.Group == dissect.GroupReassembly {
				warned++
			}
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("20 replies with empty write chunks allocated %d octets", n)
	}
	if warned != 20 {
		t.Errorf("%d of 20 replies report the missing write chunk data", warned)
	}
}

// BenchmarkHugeWriteList: one reply announcing 64 segments of 0xFFFFFFFF
// octets per op.
func BenchmarkHugeWriteList(b *testing.B) {
	eng := dissect.NewEngine(dissect.Options{})
	fr := hugeWriteList(0x1000, 100)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		psn := uint32(100 + i) // moves on: not a retransmission
		fr[42+9], fr[42+10], fr[42+11] = byte(psn>>16), byte(psn>>8), byte(psn)
		eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), LinkType: dissect.LinkTypeEthernet, Data: fr})
	}
}

// TestReadChunkRetransmitted: a READ response placed twice (a responder
// that executed a READ request again) fills its part of the read chunk
// once: the call completes only when the rest arrives, with the right data.
func TestReadChunkRetransmitted(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	st := eng.Instance(rpcrdma.Name).(*rpcrdma.State)
	body := writeCall(42, 2048)
	h := rpcrdma.Header{XID: 42, Vers: 1, Credit: 16, Proc: rpcrdma.MSG,
		Reads: []rpcrdma.ReadSegment{{Position: uint32(len(body)), Segment: rpcrdma.Segment{Handle: 0x77, Length: 2048, Offset: 0x1000}}}}
	// an empty frame to carry the PDUs
	empty := func(n uint64) *dissect.Frame {
		return eng.Decode(dissect.Packet{Num: n, CapLen: 1, WireLen: 1, LinkType: dissect.LinkTypeEthernet, Data: []byte{0}})
	}
	// the call and its data come from the requester (192.0.2.1) to the
	// responder on one iWARP connection: calls are kept per connection
	key, dir := tcp.NewFlowKey(netip.MustParseAddrPort("192.0.2.1:40000"), netip.MustParseAddrPort("192.0.2.2:20049"))
	st.DDPSend(empty(1), &ddp.Message{Key: key, Dir: dir, Opcode: ddp.OpSend, Data: append(h.Encode(nil), body...), Frames: []uint64{1}})
	half := func(b byte) []byte {
		d := make([]byte, 1024)
		for i := range d {
			d[i] = b
		}
		return d
	}
	place := func(n uint64, va uint64, data []byte) bool {
		f := empty(n)
		st.DDPPlacement(f, &ddp.Placement{Key: key, Dir: dir, Opcode: ddp.OpReadResponse, Matched: true, SrcSTag: 0x77, SrcTO: va, Data: data, Frame: n})
		for _, p := range f.PDUs {
			if p.Proto().Abbrev == "rpc" {
				return true
			}
		}
		return false
	}
	if place(2, 0x1000, half(0xAA)) || place(3, 0x1000, half(0xAA)) {
		t.Fatal("the call completed with half its read chunk (the first half counted twice)")
	}
	if !place(4, 0x1400, half(0xBB)) {
		t.Fatal("the call did not complete when the second half arrived")
	}
}

// TestChunkCountMalformed: a write or reply chunk of 2^32-1 segments is a
// malformed finding naming the count, not silence.
func TestChunkCountMalformed(t *testing.T) {
	hdr := func(lists ...uint32) []byte {
		b := binary.BigEndian.AppendUint32(nil, 0x99)
		for _, v := range append([]uint32{1, 16, rpcrdma.MSG, 0}, lists...) { // vers, credits, proc, empty read list
			b = binary.BigEndian.AppendUint32(b, v)
		}
		return append(b, make([]byte, 40)...)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"write chunk", hdr(1, 0xFFFFFFFF), "write chunk of 4294967295 segments"},
		{"reply chunk", hdr(0, 1, 0xFFFFFFFF), "reply chunk of 4294967295 segments"},
	} {
		eng := dissect.NewEngine(dissect.Options{})
		fr := withICRC(roce(1, ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x11, PSN: 5}, nil, tc.b))
		f := eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeEthernet, Data: fr})
		found := false
		for _, fd := range f.Findings {
			if fd.Proto == "rpcordma" && fd.Group == dissect.GroupMalformed && strings.Contains(fd.Msg, tc.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no malformed finding with %q in %v", tc.name, tc.want, f.Findings)
		}
	}
}
