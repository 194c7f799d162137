package rpcrdma

import (
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// Hdr is one RPC-over-RDMA transport header (a PDU).
type Hdr struct {
	d         *State
	idx       int
	data      []byte // SEND payload: header then (RDMA_MSG) the RPC message
	off       int    // frame offset of data, -1 if assembled from several packets
	n         int    // header length
	hdr       Header
	hasDDP    bool
	ddpLen    int
	ddpFrames []uint64
}

// reset readies a pooled Hdr for a message, keeping the lists of its hdr
// for reuse. Field by field: the composite literal copied the whole Hdr,
// Header included, through a temporary (about 100 instructions a message).
func (h *Hdr) reset(d *State, data []byte, off int) {
	h.d, h.idx, h.data, h.off, h.n = d, 0, data, off, 0
	h.hasDDP, h.ddpLen, h.ddpFrames = false, 0, nil
}

func (h *Hdr) payOff() int {
	if h.off < 0 {
		return -1
	}
	return h.off + h.n
}

// Proto implements dissect.PDU.
func (h *Hdr) Proto() *dissect.ProtoInfo { return PRPCoRDMA }

// procName is procNames as an array for the summary (a map lookup per
// message cost more than the rest of the proc's text).
var procName = func() (t [ERROR + 1]string) {
	for i := range t {
		t[i] = procNames[uint64(i)]
	}
	return
}()

// Summary implements dissect.PDU: "RDMA_MSG XID 0x... credits 128 read 2 write 0 reply 0".
func (h *Hdr) Summary(dst []byte) []byte {
	hd := &h.hdr
	if hd.Proc < uint32(len(procName)) {
		dst = append(dst, procName[hd.Proc]...)
	} else {
		dst = append(dst, "proc "...)
		dst = dissect.AppendUint(dst, uint64(hd.Proc))
	}
	dst = append(dst, " XID 0x"...)
	dst = dissect.AppendHex8(dst, hd.XID)
	dst = append(dst, " credits "...)
	dst = dissect.AppendUint(dst, uint64(hd.Credit))
	if hd.Proc == ERROR {
		dst = append(dst, ' ')
		dst = append(dst, errNames[uint64(hd.ErrCode)]...)
		return dst
	}
	if len(hd.Reads) > 0 {
		dst = append(dst, " read chunks "...)
		dst = dissect.AppendUint(dst, uint64(hd.ReadChunkCount()))
	}
	if len(hd.Writes) > 0 {
		dst = append(dst, " write chunks "...)
		dst = dissect.AppendUint(dst, uint64(len(hd.Writes)))
	}
	if hd.HasReply {
		dst = append(dst, " reply chunk"...)
	}
	return dst
}

func treeSeg(t *dissect.Tree, o int, s *Segment) {
	t.Uint(fHandle, o, 4, uint64(s.Handle))
	t.Uint(fLength, o+4, 4, uint64(s.Length))
	t.Uint(fOffset, o+8, 8, s.Offset)
}

// Tree implements dissect.PDU.
func (h *Hdr) Tree(t *dissect.Tree, f *dissect.Frame) {
	if t.SkipProto(PRPCoRDMA, h.nodes(f)) { // a -Y or -T fields run reading none of its fields
		return
	}
	t.SetBase(max(h.off, 0), h.off < 0)
	hd := &h.hdr
	t.Proto(PRPCoRDMA, 0, h.n, "")
	t.Uint(fXID, 0, 4, uint64(hd.XID))
	t.Uint(fVers, 4, 4, uint64(hd.Vers))
	t.Uint(fCredit, 8, 4, uint64(hd.Credit))
	t.Uint(fProc, 12, 4, uint64(hd.Proc))
	o := 16
	switch hd.Proc {
	case ERROR:
		t.Uint(fErrCode, o, 4, uint64(hd.ErrCode))
		if hd.ErrCode == ErrVers {
			t.Uint(fVersLow, o+4, 4, uint64(hd.Low))
			t.Uint(fVersHigh, o+8, 4, uint64(hd.High))
		}
		f.TreeFindings(t, h.idx)
		return
	case DONE:
		f.TreeFindings(t, h.idx)
		return
	case MSGP:
		t.Uint(fAlign, o, 4, uint64(hd.Align))
		t.Uint(fThresh, o+4, 4, uint64(hd.Thresh))
		o += 8
	}
	t.Uint(fReads, o, 0, uint64(len(hd.Reads)))
	t.Open()
	for i := range hd.Reads {
		r := &hd.Reads[i]
		if i == 0 || hd.Reads[i-1].Position != r.Position {
			if i > 0 {
				t.Close()
			}
			label := ""
			if t.Labels() {
				label = "position " + strconv.Itoa(int(r.Position))
			}
			t.UintLabel(fChunk, o, 0, 0, label)
			t.Open()
		}
		t.Uint(fPosition, o+4, 4, uint64(r.Position))
		treeSeg(t, o+8, &r.Segment)
		o += 24
	}
	if len(hd.Reads) > 0 {
		t.Close()
	}
	o += 4
	t.Close()
	t.Uint(fWrites, o, 0, uint64(len(hd.Writes)))
	t.Open()
	for _, w := range hd.Writes {
		t.Uint(fSegCount, o+4, 4, uint64(len(w)))
		o += 8
		for i := range w {
			treeSeg(t, o, &w[i])
			o += 16
		}
	}
	o += 4
	t.Close()
	n := 0
	if hd.HasReply {
		n = 1
	}
	t.Uint(fReplies, o, 4, uint64(n))
	if hd.HasReply {
		t.Open()
		t.Uint(fSegCount, o+4, 4, uint64(len(hd.Reply)))
		o += 8
		for i := range hd.Reply {
			treeSeg(t, o, &hd.Reply[i])
			o += 16
		}
		t.Close()
	}
	if h.hasDDP {
		t.Uint(fDDPLen, -1, 0, uint64(h.ddpLen))
		frames := ""
		if t.Wants(fDDPFrames) {
			frames = string(dissect.AppendNumbers(nil, h.ddpFrames, ","))
		}
		t.String(fDDPFrames, -1, 0, frames)
	}
	f.TreeFindings(t, h.idx)
}

// nodes is the nodes Tree adds for h (dissect.Tree.SkipProto), from the
// header's lists alone: no walk of the tree code.
func (h *Hdr) nodes(f *dissect.Frame) int {
	hd := &h.hdr
	n := 5 // the protocol, XID, version, credits, procedure
	for i := range f.Findings {
		if f.Findings[i].PDU == h.idx {
			n++
		}
	}
	switch hd.Proc {
	case ERROR:
		if hd.ErrCode == ErrVers {
			return n + 3
		}
		return n + 1
	case DONE:
		return n
	case MSGP:
		n += 2
	}
	n += 3 // the counts of the read, write and reply lists
	for i := range hd.Reads {
		if i == 0 || hd.Reads[i-1].Position != hd.Reads[i].Position {
			n++ // a chunk's node
		}
		n += 4 // position and segment
	}
	for _, w := range hd.Writes {
		n += 1 + 3*len(w)
	}
	if hd.HasReply {
		n += 1 + 3*len(hd.Reply)
	}
	if h.hasDDP {
		n += 2
	}
	return n
}

// Reasm is a message rebuilt from chunks: the frames that carried it.
type Reasm struct {
	idx    int
	frames []uint64
	sizes  []int
	data   []byte
}

// Proto implements dissect.PDU.
func (r *Reasm) Proto() *dissect.ProtoInfo { return PRPCoRDMA }

// Summary implements dissect.PDU.
func (r *Reasm) Summary(dst []byte) []byte {
	dst = append(dst, "reassembled "...)
	dst = dissect.AppendUint(dst, uint64(len(r.data)))
	dst = append(dst, " octets from "...)
	dst = dissect.AppendUint(dst, uint64(len(r.frames)))
	if len(r.frames) == 1 {
		return append(dst, " frame"...)
	}
	return append(dst, " frames"...)
}

// Tree implements dissect.PDU.
func (r *Reasm) Tree(t *dissect.Tree, f *dissect.Frame) {
	t.SetBase(0, true)
	t.Proto(PRPCoRDMA, 0, len(r.data), "")
	t.Uint(fFragments, 0, len(r.data), 1)
	t.Open()
	for _, n := range r.frames {
		t.Uint(fFragment, 0, 0, n)
	}
	t.Uint(fFragCount, 0, 0, uint64(len(r.frames)))
	t.Uint(fReasLen, 0, 0, uint64(len(r.data)))
	t.Bytes(fReasData, 0, len(r.data), r.data)
	t.Close()
	f.TreeFindings(t, r.idx)
}
