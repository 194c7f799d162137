package dissect

import (
	"encoding/binary"
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/reassembly/budget"
	"github.com/rdx-project/rdx/reassembly/frag"
)

// IPv4 reassembly (RFC 791 §3.2): fragments are held per (src, dst, id,
// protocol) until they cover the datagram from 0 to the end the fragment
// without MF gives.
//
// Inconsistent fragments end the datagram instead of being merged, as Linux
// does since the FragmentSmack fix (CVE-2018-5391) and as RFC 5722 requires
// for IPv6: any overlap (unless an exact duplicate), a fragment past the end
// the last fragment set, a last fragment ending before data already held, or
// two different ends drop the whole datagram with a finding. Which bytes a
// receiver would have kept is exactly what an overlap makes ambiguous, so
// showing either version would be a guess. An exact duplicate (same offset,
// length and bytes: a retransmitted or looped fragment) is ignored with a
// note; an empty fragment is never held.
//
// Because held pieces are then disjoint, a datagram is complete exactly when
// its octet count equals its end: no rescans. Pieces stay sorted by offset
// (in-order arrival appends), entries sit in a least-recently-active list so
// the oldest goes in O(1), and every octet is charged to the engine's memory
// budget (table "ip").
const (
	// maxDefrag bounds the datagrams in flight; the least recently active
	// is dropped (with a finding) to make room for a new one.
	maxDefrag = 1024
	// maxDefragBytes is the largest reassembled payload: the total length
	// of an IPv4 datagram is a 16-bit field.
	maxDefragBytes = 65535
	// maxDefragPieces bounds the fragments of one datagram, so one datagram
	// cannot be made of 8-octet pieces by the thousand. 64 KiB sent over a
	// 576-octet path takes 117 fragments; 1024 allows 64-octet fragments of
	// the largest datagram, far below any real MTU.
	maxDefragPieces = 1024
	// maxDefragFrames is how many frame numbers the reassembly finding lists.
	maxDefragFrames = 64
	// defragEntryCost is the budget charge of a datagram besides its
	// buffers (struct, map slot, list links), so that many tiny datagrams
	// count too.
	defragEntryCost = 192
)

type defragKey struct {
	src, dst netip.Addr
	id       uint16
	proto    uint8
}

// defragPolicy: fragments in octets from 0, exact duplicates ignored, every
// piece's record kept to name it when a later one clashes.
var defragPolicy = frag.Config{MaxPieces: maxDefragPieces, MaxBytes: maxDefragBytes, Dup: frag.DupExact,
	Records: true, MaxFrames: maxDefragFrames}

type defragger struct {
	tab  frag.Table[defragKey] // charged to the engine's budget as "ip"
	init bool
	acct *budget.Account
	msg  []byte // scratch for finding messages
}

type defragEntry = frag.Entry[defragKey]

// add takes one fragment of frame f. It returns the reassembled payload
// (valid until the next call) and the frames it came from when the fragment
// completes a datagram, and held when the fragment is kept for later.
// Anything it refuses or drops becomes a finding on f.
func (d *defragger) add(f *Frame, k defragKey, off int, more bool, data []byte) (payload []byte, frames []uint64, held bool) {
	n := len(data)
	end := off + n
	if n == 0 {
		f.AddFinding(-1, Warn, GroupMalformed, nil, "ip", string(d.fragMsg("empty IPv4 fragment", k, off, end, ": ignored")))
		return nil, nil, false
	}
	if !d.init {
		d.init = true
		d.tab.Init(maxDefrag, defragEntryCost, &defragPolicy, d.acct, describeDatagram)
	}
	en := d.tab.Get(k)
	if end > maxDefragBytes {
		b := d.fragMsg("IPv4 fragment", k, off, end, " ends past the largest datagram (")
		b = strconv.AppendInt(b, maxDefragBytes, 10)
		b = append(b, " octets)"...)
		f.AddFinding(-1, Error, GroupMalformed, nil, "ip", string(d.dropMsg(b, en, f.Num)))
		return nil, nil, false
	}
	if en == nil {
		var what string
		if en, what = d.tab.Add(k); what != "" {
			f.AddFinding(-1, Warn, GroupReassembly, nil, "ip", "IPv4 reassembly table full ("+strconv.Itoa(maxDefrag)+
				" datagrams): dropped the least recently active, "+what)
		}
	}
	v, other := en.Add(int64(off), int64(end), data, !more, f.Num)
	var b []byte
	switch v {
	case frag.Added:
		en.NoteFrame(f.Num)
		if !en.Complete() {
			d.tab.Touch(en)
			return nil, nil, true
		}
		d.tab.Done(en)
		return en.Data(), en.Frames(), false
	case frag.Duplicate:
		d.tab.Touch(en)
		b = d.fragMsg("IPv4 fragment", k, off, end, " repeats frame ")
		b = strconv.AppendUint(b, other.Frame, 10)
		b = append(b, " exactly: ignored"...)
		f.AddFinding(-1, Note, GroupReassembly, nil, "ip", string(b))
		return nil, nil, false
	case frag.EndConflict:
		b = appendEnd(d.fragMsg("IPv4 last fragment", k, off, end, " disagrees with the end "), en)
	case frag.EndBeforeData:
		b = appendPiece(d.fragMsg("IPv4 last fragment", k, off, end, " ends before data already held (offset "), other)
		b = append(b, ')')
	case frag.PastEnd:
		b = appendEnd(d.fragMsg("IPv4 fragment", k, off, end, " ends past the datagram's end "), en)
	case frag.Overlap:
		b = appendPiece(d.fragMsg("IPv4 fragment", k, off, end, " overlaps offset "), other)
	case frag.TooMany:
		b = d.fragMsg("IPv4 fragment", k, off, end, " would be fragment ")
		b = strconv.AppendInt(b, int64(en.N()+1), 10)
		b = append(b, " of one datagram (limit "...)
		b = strconv.AppendInt(b, maxDefragPieces, 10)
		b = append(b, ')')
		f.AddFinding(-1, Warn, GroupReassembly, nil, "ip", string(d.dropMsg(b, en, f.Num)))
		return nil, nil, false
	}
	f.AddFinding(-1, Warn, GroupMalformed, nil, "ip", string(d.dropMsg(b, en, f.Num)))
	return nil, nil, false
}

// appendPiece appends "0-24 from frame 3" for a held fragment.
func appendPiece(b []byte, p frag.Piece) []byte {
	b = appendRange(b, int(p.Off), int(p.End))
	b = append(b, " from frame "...)
	return strconv.AppendUint(b, p.Frame, 10)
}

// appendEnd appends "48 set by frame 2": the datagram's end and its source.
func appendEnd(b []byte, en *defragEntry) []byte {
	b = strconv.AppendInt(b, en.End(), 10)
	b = append(b, " set by frame "...)
	return strconv.AppendUint(b, en.EndFrame(), 10)
}

// reset forgets every datagram (a rewind for a second pass).
func (d *defragger) reset() {
	if d.init {
		d.tab.Reset()
	}
}

// Oldest is the stamp of the least recently active datagram (budget.Table).
func (d *defragger) Oldest() (uint64, bool) { return d.tab.Oldest() }

// DropOldest drops the least recently active datagram and names it.
func (d *defragger) DropOldest() string { return d.tab.DropOldest() }

// describeDatagram appends "IPv4 datagram 192.0.2.1 → 192.0.2.2 id 0x1234 (2
// fragments, 1480 octets, frames 1, 2)".
func describeDatagram(b []byte, en *defragEntry) []byte {
	b = append(b, "IPv4 datagram "...)
	b = en.Key.src.AppendTo(b)
	b = append(b, " → "...)
	b = en.Key.dst.AppendTo(b)
	b = append(b, " id 0x"...)
	b = strconv.AppendUint(b, uint64(en.Key.id), 16)
	b = append(b, " ("...)
	b = strconv.AppendInt(b, int64(en.N()), 10)
	if en.N() == 1 {
		b = append(b, " fragment, "...)
	} else {
		b = append(b, " fragments, "...)
	}
	b = strconv.AppendInt(b, en.Held(), 10)
	b = append(b, " octets"...)
	if fr := en.Frames(); len(fr) > 0 {
		b = append(b, ", frames "...)
		b = appendFrames(b, fr)
	}
	return append(b, ')')
}

// fragMsg starts a finding about fragment [off, end) of datagram k:
// "<what> (id 0x1234, offset 8-16)<tail>".
func (d *defragger) fragMsg(what string, k defragKey, off, end int, tail string) []byte {
	b := append(d.msg[:0], what...)
	b = append(b, " (id 0x"...)
	b = strconv.AppendUint(b, uint64(k.id), 16)
	b = append(b, ", offset "...)
	b = appendRange(b, off, end)
	b = append(b, ')')
	d.msg = append(b, tail...)
	return d.msg
}

// dropMsg ends a finding about a fragment of frame num that ends its
// datagram en (if any): en is dropped and named.
func (d *defragger) dropMsg(b []byte, en *defragEntry, num uint64) []byte {
	if en == nil {
		b = append(b, ": fragment dropped"...)
	} else {
		b = append(b, ": dropped the "...)
		b = describeDatagram(b, en)
		b = append(b, " and frame "...)
		b = strconv.AppendUint(b, num, 10)
		d.tab.Done(en)
	}
	d.msg = b
	return b
}

func appendRange(b []byte, off, end int) []byte {
	b = strconv.AppendInt(b, int64(off), 10)
	b = append(b, '-')
	return strconv.AppendInt(b, int64(end), 10)
}

func appendFrames(b []byte, frames []uint64) []byte {
	for i, fr := range frames {
		if i > 0 {
			b = append(b, ',', ' ')
		}
		b = strconv.AppendUint(b, fr, 10)
	}
	return b
}

// fragment handles an IPv4 fragment in the current frame: it is held, and the
// frame that completes a datagram dissects it (with offsets detached from the
// frame, since the bytes come from several).
// reassemble adds the frame's IPv4 fragment to its datagram and returns
// the datagram's payload when this fragment completes it (fragment, and
// NumberStreams on the -j reader, which must see the same datagrams end).
func (e *Engine) reassemble(f *Frame) (payload []byte, frames []uint64) {
	ip := &e.ip4
	n := &f.Net
	k := defragKey{src: n.Src, dst: n.Dst, id: ip.Id, proto: uint8(ip.Protocol)}
	off := int(ip.FragOffset) * 8
	more := ip.Flags&0x1 != 0 // layers.IPv4MoreFragments
	payload, frames, held := e.defrag.add(f, k, off, more, ip.Payload)
	if payload == nil && held {
		f.AddFinding(-1, Note, GroupReassembly, nil, "ip", "IPv4 fragment (id 0x"+strconv.FormatUint(uint64(ip.Id), 16)+
			", offset "+strconv.Itoa(off)+", "+strconv.Itoa(len(ip.Payload))+" bytes), reassembled in a later frame")
	}
	return payload, frames // nil: held, or refused or dropped with a finding
}

func (e *Engine) fragment(f *Frame) {
	ip := &e.ip4
	n := &f.Net
	payload, frames := e.reassemble(f)
	if payload == nil {
		return
	}
	msg := appendFrames([]byte("IPv4 datagram reassembled from frames "), frames)
	f.AddFinding(-1, Note, GroupReassembly, nil, "ip", string(msg))
	n.Fragment = false
	switch ip.Protocol {
	case 17:
		if len(payload) < 8 {
			return
		}
		n.HasL4 = true
		f.reasmUDP = payload[:8]
		n.SrcPort, n.DstPort = binary.BigEndian.Uint16(payload), binary.BigEndian.Uint16(payload[2:])
		ulen := int(binary.BigEndian.Uint16(payload[4:]))
		body := payload[8:]
		if ulen >= 8 && ulen-8 < len(body) {
			body = body[:ulen-8]
		}
		n.PayloadOff, n.PayloadLen = -1, len(body)
		f.Proto = "udp"
		e.ports(e.tUDP, f, body, -1)
	default:
		if i := e.tIP.dense[uint8(ip.Protocol)]; i != 0 {
			n.PayloadOff, n.PayloadLen = -1, len(payload)
			e.tIP.ents[i-1].d.Dissect(f, payload, -1)
		}
	}
}
