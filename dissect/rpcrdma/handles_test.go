package rpcrdma_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/dissect/mpa"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
)

// twoConns builds the frames of two RPC-over-RDMA connections, 0 and 1,
// whose requesters (clients) use the same handle values: a handle (R_Key,
// STag) means something only on its own adapter.
type twoConns interface {
	open(c int) [][]byte                                       // connection setup, if any
	call(c int, msg []byte) []byte                             // a Send from client c
	reply(c int, msg []byte) []byte                            // a Send to client c
	write(c int, handle uint32, va uint64, data []byte) []byte // an RDMA WRITE into client c's memory
	readReq(c int, handle uint32, va uint64, n int) []byte     // the server reads client c's memory
	readResp(c int, data []byte) []byte                        // client c's response to the last one
}

// roceTwo: RoCEv2, the server 192.0.2.2 and client c at 192.0.2.client[c],
// on QPs cqp[c] (client) and sqp[c] (server).
type roceTwo struct {
	client     [2]byte
	cqp, sqp   [2]uint32
	cpsn, spsn [2]uint32 // next request PSN of client c, of the server to client c
	rpsn       [2]uint32 // PSN of the server's last READ request to client c
}

func newRoCETwo(client [2]byte, cqp, sqp [2]uint32) *roceTwo {
	// each QP starts at its own PSN, as real ones do (random): the
	// InfiniBand layer pairs READ responses with requests by hosts and PSN
	return &roceTwo{client: client, cqp: cqp, sqp: sqp, cpsn: [2]uint32{10, 0x3000}, spsn: [2]uint32{50, 0x4000}}
}

func (r *roceTwo) toServer(c int, op uint8, psn uint32, ext, payload []byte) []byte {
	fr := roce(1, ib.BTHFields{Opcode: op, PKey: 0xFFFF, DestQP: r.sqp[c], PSN: psn}, ext, payload)
	fr[14+15] = r.client[c]
	return withICRC(fr)
}

func (r *roceTwo) toClient(c int, op uint8, ext, payload []byte) []byte {
	fr := roce(2, ib.BTHFields{Opcode: op, PKey: 0xFFFF, DestQP: r.cqp[c], PSN: r.spsn[c]}, ext, payload)
	fr[14+19] = r.client[c]
	r.spsn[c]++
	return withICRC(fr)
}

func (r *roceTwo) open(int) [][]byte { return nil }

func (r *roceTwo) call(c int, msg []byte) []byte {
	r.cpsn[c]++
	return r.toServer(c, 0x04, r.cpsn[c]-1, nil, msg)
}

func (r *roceTwo) reply(c int, msg []byte) []byte { return r.toClient(c, 0x04, nil, msg) }

func (r *roceTwo) write(c int, handle uint32, va uint64, data []byte) []byte {
	reth := (&ib.RETHFields{VA: va, RKey: handle, DMALen: uint32(len(data))}).Encode(nil)
	return r.toClient(c, 0x0A, reth, data) // RDMA WRITE Only
}

func (r *roceTwo) readReq(c int, handle uint32, va uint64, n int) []byte {
	r.rpsn[c] = r.spsn[c]
	reth := (&ib.RETHFields{VA: va, RKey: handle, DMALen: uint32(n)}).Encode(nil)
	return r.toClient(c, 0x0C, reth, nil) // one response packet: the next request PSN is one on
}

func (r *roceTwo) readResp(c int, data []byte) []byte {
	return r.toServer(c, 0x10, r.rpsn[c], []byte{0x1f, 0, 0, 1}, data) // READ response Only, with its AETH
}

// iwarpTwo: iWARP, client 192.0.2.1 on TCP port cport[c] and the server
// 192.0.2.2:20049 (MPA with CRCs, no markers).
type iwarpTwo struct {
	cport      [2]uint16
	cseq, sseq [2]uint32
	cmsn, smsn [2]uint32 // next Send MSN of client c, of the server to c
	rmsn       [2]uint32 // next Read Request MSN of the server to c
	sink       [2]uint32 // the sink STag of the server's last Read Request to c
}

const iwServerPort = 20049

func newIWARPTwo(cport [2]uint16) *iwarpTwo {
	return &iwarpTwo{cport: cport, cseq: [2]uint32{1001, 3001}, sseq: [2]uint32{5001, 7001},
		cmsn: [2]uint32{1, 1}, smsn: [2]uint32{1, 1}, rmsn: [2]uint32{1, 1}}
}

func (w *iwarpTwo) seg(c int, toServer bool, payload []byte) []byte {
	if toServer {
		fr := ethTCP(1, 2, w.cport[c], iwServerPort, w.cseq[c], w.sseq[c], 0x18, payload)
		w.cseq[c] += uint32(len(payload))
		return fr
	}
	fr := ethTCP(2, 1, iwServerPort, w.cport[c], w.sseq[c], w.cseq[c], 0x18, payload)
	w.sseq[c] += uint32(len(payload))
	return fr
}

func (w *iwarpTwo) open(c int) [][]byte {
	cisn, sisn := w.cseq[c]-1, w.sseq[c]-1
	frames := [][]byte{
		ethTCP(1, 2, w.cport[c], iwServerPort, cisn, 0, 0x02, nil),
		ethTCP(2, 1, iwServerPort, w.cport[c], sisn, w.cseq[c], 0x12, nil),
		ethTCP(1, 2, w.cport[c], iwServerPort, w.cseq[c], w.sseq[c], 0x10, nil),
	}
	frames = append(frames, w.seg(c, true, mpa.EncodeStartup(nil, false, 0x40, 1, nil)))
	return append(frames, w.seg(c, false, mpa.EncodeStartup(nil, true, 0x40, 1, nil)))
}

func fpdu(ulpdu []byte) []byte { return mpa.EncodeFPDU(nil, ulpdu, 0, false, true) }

func (w *iwarpTwo) call(c int, msg []byte) []byte {
	w.cmsn[c]++
	return w.seg(c, true, fpdu(ddp.EncodeUntagged(nil, true, ddp.OpSend, 0, 0, w.cmsn[c]-1, 0, msg)))
}

func (w *iwarpTwo) reply(c int, msg []byte) []byte {
	w.smsn[c]++
	return w.seg(c, false, fpdu(ddp.EncodeUntagged(nil, true, ddp.OpSend, 0, 0, w.smsn[c]-1, 0, msg)))
}

func (w *iwarpTwo) write(c int, handle uint32, va uint64, data []byte) []byte {
	return w.seg(c, false, fpdu(ddp.EncodeTagged(nil, true, ddp.OpWrite, handle, va, data)))
}

func (w *iwarpTwo) readReq(c int, handle uint32, va uint64, n int) []byte {
	w.sink[c] = 0x5000 + uint32(c)
	rr := binary.BigEndian.AppendUint32(nil, w.sink[c])
	rr = binary.BigEndian.AppendUint64(rr, 0x9000)
	rr = binary.BigEndian.AppendUint32(rr, uint32(n))
	rr = binary.BigEndian.AppendUint32(rr, handle)
	rr = binary.BigEndian.AppendUint64(rr, va)
	w.rmsn[c]++
	return w.seg(c, false, fpdu(ddp.EncodeUntagged(nil, true, ddp.OpReadRequest, 0, 1, w.rmsn[c]-1, 0, rr)))
}

func (w *iwarpTwo) readResp(c int, data []byte) []byte {
	return w.seg(c, true, fpdu(ddp.EncodeTagged(nil, true, ddp.OpReadResponse, w.sink[c], 0x9000, data)))
}

// sameHandleCases: two connections whose clients offer equal handles, as
// two clients (RoCE, iWARP), two QP pairs between the same hosts (RoCE),
// or two TCP connections between the same hosts (iWARP: say, two virtual
// machines behind one address, each with its own adapter).
func sameHandleCases() map[string]func() twoConns {
	return map[string]func() twoConns{
		"RoCE/two clients": func() twoConns { return newRoCETwo([2]byte{1, 5}, [2]uint32{0x22, 0x22}, [2]uint32{0x11, 0x11}) },
		"RoCE/two QP pairs": func() twoConns {
			return newRoCETwo([2]byte{1, 1}, [2]uint32{0x22, 0x23}, [2]uint32{0x11, 0x12})
		},
		"iWARP/two ports": func() twoConns { return newIWARPTwo([2]uint16{40000, 40001}) },
	}
}

// runner decodes frames in one engine, numbering them.
type runner struct {
	eng *dissect.Engine
	num uint64
}

func (r *runner) decode(fr []byte) *dissect.Frame {
	r.num++
	return r.eng.Decode(dissect.Packet{Num: r.num, TimeNS: int64(r.num) * 1000, LinkType: dissect.LinkTypeEthernet, Data: fr})
}

func newRunner(tr twoConns) *runner {
	r := &runner{eng: dissect.NewEngine(dissect.Options{})}
	for c := range 2 {
		for _, fr := range tr.open(c) {
			r.decode(fr)
		}
	}
	return r
}

func fill(c int, n int) []byte { return bytes.Repeat([]byte{0xA0 + byte(c)}, n) }

// TestSameHandleWriteList: both clients offer a write chunk under one
// handle; the server's RDMA WRITEs come in the other order than the
// calls, then the replies. Each reply's write list is filled from the
// WRITE into its own client's memory. Keyed by the handle alone, the
// first reply took the other client's data.
func TestSameHandleWriteList(t *testing.T) {
	for name, mk := range sameHandleCases() {
		t.Run(name, func(t *testing.T) {
			tr := mk()
			r := newRunner(tr)
			writes := [][]rpcrdma.Segment{{{Handle: 0x88, Length: 1024, Offset: 0x2000}}}
			for c := range 2 {
				xid := 0x100 + uint32(c)
				h := rpcrdma.Header{XID: xid, Vers: 1, Credit: 16, Proc: rpcrdma.MSG, Writes: writes}
				r.decode(tr.call(c, append(h.Encode(nil), call(xid, 6)...)))
			}
			var wrote [2]uint64
			for _, c := range []int{1, 0} {
				r.decode(tr.write(c, 0x88, 0x2000, fill(c, 1024)))
				wrote[c] = r.num
			}
			for c := range 2 {
				xid := 0x100 + uint32(c)
				h := rpcrdma.Header{XID: xid, Vers: 1, Credit: 16, Proc: rpcrdma.MSG, Writes: writes}
				f := r.decode(tr.reply(c, append(h.Encode(nil), reply(xid)...)))
				frames, n, ok := rpcrdma.WriteList(f)
				if !ok || n != 1024 || !slices.Equal(frames, []uint64{wrote[c]}) {
					t.Errorf("client %d's reply: write list of %d octets from frames %v (ok %v), want 1024 from its own WRITE, frame %d", c, n, frames, ok, wrote[c])
				}
			}
		})
	}
}

// TestSameHandleReplyChunk: both clients offer a reply chunk under one
// handle; the server writes the replies in the other order, then sends
// RDMA_NOMSG for each. Each client's reply is its own.
func TestSameHandleReplyChunk(t *testing.T) {
	for name, mk := range sameHandleCases() {
		t.Run(name, func(t *testing.T) {
			tr := mk()
			r := newRunner(tr)
			chunk := []rpcrdma.Segment{{Handle: 0x99, Length: uint32(len(reply(0))), Offset: 0x3000}}
			for c := range 2 {
				xid := 0x200 + uint32(c)
				h := rpcrdma.Header{XID: xid, Vers: 1, Credit: 16, Proc: rpcrdma.MSG, HasReply: true, Reply: chunk}
				r.decode(tr.call(c, append(h.Encode(nil), call(xid, 1)...)))
			}
			for _, c := range []int{1, 0} {
				r.decode(tr.write(c, 0x99, 0x3000, reply(0x200+uint32(c))))
			}
			for c := range 2 {
				xid := 0x200 + uint32(c)
				h := rpcrdma.Header{XID: xid, Vers: 1, Credit: 16, Proc: rpcrdma.NOMSG, HasReply: true, Reply: chunk}
				got := rpcrdma.Rebuilt(r.decode(tr.reply(c, h.Encode(nil))))
				if len(got) != 1 || !bytes.Equal(got[0], reply(xid)) {
					t.Errorf("client %d: reply chunk gave %x, want its own reply %x", c, got, reply(xid))
				}
			}
		})
	}
}

// TestSameHandleReadChunk: both clients offer a read chunk under one
// handle; the server reads both, the responses come in the other order.
// Each call is rebuilt with its own client's data (TestSameHandleTwoClients
// covers two RoCE clients a READ of two packets each).
func TestSameHandleReadChunk(t *testing.T) {
	for name, mk := range sameHandleCases() {
		t.Run(name, func(t *testing.T) {
			tr := mk()
			r := newRunner(tr)
			const n = 512
			var body [2][]byte
			for c := range 2 {
				xid := 0x300 + uint32(c)
				body[c] = writeCall(xid, n)
				h := rpcrdma.Header{XID: xid, Vers: 1, Credit: 16, Proc: rpcrdma.MSG,
					Reads: []rpcrdma.ReadSegment{{Position: uint32(len(body[c])), Segment: rpcrdma.Segment{Handle: 0x77, Length: n, Offset: 0x1000}}}}
				r.decode(tr.call(c, append(h.Encode(nil), body[c]...)))
			}
			for c := range 2 {
				r.decode(tr.readReq(c, 0x77, 0x1000, n))
			}
			for _, c := range []int{1, 0} {
				got := rpcrdma.Rebuilt(r.decode(tr.readResp(c, fill(c, n))))
				want := append(append([]byte(nil), body[c]...), fill(c, n)...)
				if len(got) != 1 || !bytes.Equal(got[0], want) {
					t.Errorf("client %d: %d messages rebuilt, want its own call with its own data", c, len(got))
				}
			}
		})
	}
}

// TestWriteNotAdvertisedOnItsConnection: an RDMA WRITE is kept for a
// reply only when its own client advertised the handle; another client's
// offer of the same handle does not count.
func TestWriteNotAdvertisedOnItsConnection(t *testing.T) {
	for name, mk := range sameHandleCases() {
		t.Run(name, func(t *testing.T) {
			if name == "RoCE/two QP pairs" {
				// a call names only the server's QP, an RDMA WRITE only the
				// client's: which handles were offered is known per host
				// pair (the WRITE kept is claimed by no other QP's reply:
				// TestSameHandleWriteList)
				t.Skip("InfiniBand packets name only the receiving QP")
			}
			tr := mk()
			r := newRunner(tr)
			h := rpcrdma.Header{XID: 0x400, Vers: 1, Credit: 16, Proc: rpcrdma.MSG,
				Writes: [][]rpcrdma.Segment{{{Handle: 0x88, Length: 1024, Offset: 0x2000}}}}
			r.decode(tr.call(0, append(h.Encode(nil), call(0x400, 6)...)))
			r.decode(tr.write(1, 0x88, 0x2000, fill(1, 1024)))
			if n := rpcrdma.Kept(r.eng); n != 0 {
				t.Errorf("a WRITE to client 1, which advertised nothing, kept (%d kept)", n)
			}
			r.decode(tr.write(0, 0x88, 0x2000, fill(0, 1024)))
			if n := rpcrdma.Kept(r.eng); n != 1 {
				t.Errorf("%d WRITEs kept, want client 0's", n)
			}
		})
	}
}

// TestAdvertisedLimit: past 4096 handles offered for write and reply
// chunks the table forgets them all, with a finding on the call that
// went over; a WRITE into a forgotten handle is not kept, one into a
// handle offered since is.
func TestAdvertisedLimit(t *testing.T) {
	tr := newRoCETwo([2]byte{1, 5}, [2]uint32{0x22, 0x22}, [2]uint32{0x11, 0x11})
	r := newRunner(tr)
	found := 0
	handle := uint32(0x10000)
	for i := range 4096/32 + 1 {
		xid := 0x500 + uint32(i)
		var seg []rpcrdma.Segment
		for range 32 {
			seg = append(seg, rpcrdma.Segment{Handle: handle, Length: 16, Offset: 0x2000})
			handle++
		}
		h := rpcrdma.Header{XID: xid, Vers: 1, Credit: 16, Proc: rpcrdma.MSG, Writes: [][]rpcrdma.Segment{seg}}
		f := r.decode(tr.call(i%2, append(h.Encode(nil), call(xid, 6)...)))
		for _, fd := range f.Findings {
			if strings.Contains(fd.Msg, "more than 4096 handles offered for write and reply chunks") {
				found++
			}
		}
	}
	if found != 1 {
		t.Fatalf("%d findings on forgetting the offered handles, want 1", found)
	}
	r.decode(tr.write(0, 0x10000, 0x2000, fill(0, 16))) // offered by the first call, forgotten
	if n := rpcrdma.Kept(r.eng); n != 0 {
		t.Errorf("a WRITE into a forgotten handle kept (%d kept)", n)
	}
	r.decode(tr.write(0, handle-1, 0x2000, fill(0, 16))) // offered by the last call (client 0)
	if n := rpcrdma.Kept(r.eng); n != 1 {
		t.Errorf("%d WRITEs kept, want the one into the handle offered last", n)
	}
}
