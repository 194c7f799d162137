// Package rpcrdma dissects RPC-over-RDMA version 1 (RFC 8166) on InfiniBand
// and RoCE: the transport header in SEND messages (found by a strict
// heuristic), its read list, write list and reply chunk, RDMA_ERROR, and the
// chunks themselves: read chunks rebuilt from RDMA READ responses, write and
// reply chunks from RDMA WRITEs, so the whole RPC message is handed to
// dissect/oncrpc in the frame that completes it, with the frames it came from.
package rpcrdma

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rdx-project/rdx/dissect/xdr"
)

// Procedures (rdma_proc).
const (
	MSG   = 0
	NOMSG = 1
	MSGP  = 2
	DONE  = 3
	ERROR = 4
)

// Error codes (rdma_err).
const (
	ErrVers  = 1
	ErrChunk = 2
)

// MinHeader is the smallest valid header: four fixed words and three empty lists.
const MinHeader = 28

// Limits on what a header may list (far above what implementations send).
const (
	maxSegs = 64
)

// Segment is a plain RDMA segment (handle, length, offset).
type Segment struct {
	Handle, Length uint32
	Offset         uint64
}

// ReadSegment is a read list entry.
type ReadSegment struct {
	Position uint32
	Segment
}

// Header is an RPC-over-RDMA v1 transport header.
type Header struct {
	XID, Vers, Credit, Proc uint32
	Reads                   []ReadSegment
	Writes                  [][]Segment
	HasReply                bool
	Reply                   []Segment
	Align, Thresh           uint32 // RDMA_MSGP
	ErrCode, Low, High      uint32 // RDMA_ERROR
}

// Encode appends the header in XDR to b (for tests and synthesis).
func (h *Header) Encode(b []byte) []byte {
	u := func(v uint32) { b = binary.BigEndian.AppendUint32(b, v) }
	seg := func(s Segment) {
		u(s.Handle)
		u(s.Length)
		b = binary.BigEndian.AppendUint64(b, s.Offset)
	}
	u(h.XID)
	u(h.Vers)
	u(h.Credit)
	u(h.Proc)
	switch h.Proc {
	case ERROR:
		u(h.ErrCode)
		if h.ErrCode == ErrVers {
			u(h.Low)
			u(h.High)
		}
		return b
	case DONE:
		return b
	case MSGP:
		u(h.Align)
		u(h.Thresh)
	}
	for _, r := range h.Reads {
		u(1)
		u(r.Position)
		seg(r.Segment)
	}
	u(0)
	for _, w := range h.Writes {
		u(1)
		u(uint32(len(w)))
		for _, s := range w {
			seg(s)
		}
	}
	u(0)
	if h.HasReply {
		u(1)
		u(uint32(len(h.Reply)))
		for _, s := range h.Reply {
			seg(s)
		}
	} else {
		u(0)
	}
	return b
}

var (
	errVersion = errors.New("version is not 1")
	errProc    = errors.New("unknown procedure")
	errList    = errors.New("chunk list discriminator is not 0 or 1")
	// ErrCount marks a chunk list whose count or segments do not fit in
	// the header or exceed maxSegs: the header is RPC-over-RDMA's, broken.
	ErrCount   = errors.New("chunk count")
	errErrCode = errors.New("unknown RDMA_ERROR code")
)

// Parse decodes a header from b into h, reusing h's slices, and returns its
// length. Only version 1 is decoded past the fixed words.
func Parse(b []byte, h *Header) (int, error) {
	r := xdr.NewReader(b)
	reads, writes, reply := h.Reads[:0], h.Writes[:0], h.Reply[:0]
	if len(b) >= 16 {
		// the four fixed words after one length check (xdr.Reader.U32 is
		// a call each: it is too large to inline)
		*h = Header{XID: binary.BigEndian.Uint32(b), Vers: binary.BigEndian.Uint32(b[4:]),
			Credit: binary.BigEndian.Uint32(b[8:]), Proc: binary.BigEndian.Uint32(b[12:])}
		r.Off = 16
	} else {
		*h = Header{XID: r.U32(), Vers: r.U32(), Credit: r.U32(), Proc: r.U32()}
	}
	h.Reads, h.Writes, h.Reply = reads, writes, reply
	if len(b) >= 28 && h.Vers == 1 && (h.Proc == MSG || h.Proc == NOMSG) &&
		binary.LittleEndian.Uint64(b[16:]) == 0 && binary.LittleEndian.Uint32(b[24:]) == 0 {
		// no read list, write list or reply chunk, most messages: what
		// the three lists' loops below conclude from their three zero
		// discriminators
		return 28, nil
	}
	if err := r.Err(); err != nil {
		return 0, err
	}
	if h.Vers != 1 {
		return r.Off, errVersion
	}
	switch h.Proc {
	case DONE:
		return r.Off, nil
	case ERROR:
		h.ErrCode = r.U32()
		if h.ErrCode == ErrVers {
			h.Low, h.High = r.U32(), r.U32()
		}
		if err := r.Err(); err != nil {
			return 0, err
		}
		if h.ErrCode != ErrVers && h.ErrCode != ErrChunk {
			return r.Off, errErrCode
		}
		return r.Off, nil
	case MSGP:
		h.Align, h.Thresh = r.U32(), r.U32()
	case MSG, NOMSG:
	default:
		return r.Off, errProc
	}
	// read list
	for {
		if more, err := present(&r); !more {
			if err != nil {
				return 0, err
			}
			break
		}
		if len(h.Reads) >= maxSegs {
			return 0, fmt.Errorf("%w: read list of more than %d segments", ErrCount, maxSegs)
		}
		var s ReadSegment
		s.Position, s.Handle, s.Length, s.Offset = r.U32(), r.U32(), r.U32(), r.U64()
		h.Reads = append(h.Reads, s)
	}
	// write list
	nseg := 0
	for {
		if more, err := present(&r); !more {
			if err != nil {
				return 0, err
			}
			break
		}
		o := r.Off
		n := r.Count(16)
		nseg += n
		if r.Err() != nil || nseg > maxSegs {
			return 0, countErr("write chunk", b, o, nseg-n)
		}
		var w []Segment
		if len(h.Writes) < cap(h.Writes) {
			w = h.Writes[:len(h.Writes)+1][len(h.Writes)][:0]
		}
		h.Writes = append(h.Writes, appendSegments(&r, w, n))
	}
	// reply chunk
	more, err := present(&r)
	if err != nil {
		return 0, err
	}
	if more {
		h.HasReply = true
		o := r.Off
		n := r.Count(16)
		if r.Err() != nil || n > maxSegs {
			return 0, countErr("reply chunk", b, o, 0)
		}
		h.Reply = appendSegments(&r, h.Reply, n)
	}
	if err := r.Err(); err != nil {
		return 0, err
	}
	return r.Off, nil
}

// countErr describes a chunk's segment count at b[o:] that does not fit.
func countErr(what string, b []byte, o, before int) error {
	if o+4 > len(b) {
		return fmt.Errorf("%w: %s truncated", ErrCount, what)
	}
	n := binary.BigEndian.Uint32(b[o:])
	if int64(n)*16 > int64(len(b)-o-4) {
		return fmt.Errorf("%w: %s of %d segments (%d octets) does not fit in the %d octets left", ErrCount, what, n, int64(n)*16, len(b)-o-4)
	}
	return fmt.Errorf("%w: %s of %d segments: more than %d in the header", ErrCount, what, uint64(n)+uint64(before), maxSegs)
}

// present reads an XDR optional-data discriminator (RFC 4506 §4.19), which
// links the chunk lists: 1, an item follows; 0, the list ends.
func present(r *xdr.Reader) (bool, error) {
	var d uint32
	if o := r.Off; o+4 <= len(r.B) && r.Err() == nil {
		d, r.Off = binary.BigEndian.Uint32(r.B[o:]), o+4
	} else if d = r.U32(); r.Err() != nil {
		return false, r.Err()
	}
	if d > 1 {
		return false, errList
	}
	return d == 1, nil
}

// appendSegments reads n plain segments (handle, length, offset).
func appendSegments(r *xdr.Reader, dst []Segment, n int) []Segment {
	for range n {
		dst = append(dst, Segment{Handle: r.U32(), Length: r.U32(), Offset: r.U64()})
	}
	return dst
}

// Chunks groups the read list by position, in list order.
func (h *Header) ReadChunkCount() int {
	n := 0
	for i, r := range h.Reads {
		if i == 0 || h.Reads[i-1].Position != r.Position {
			n++
		}
	}
	return n
}
