package dissect

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/reassembly/budget"
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
	// Budget charges besides the held octets: an entry (struct, map slot,
	// list links) and a piece (its slice element). Estimates, so that many
	// tiny datagrams count too.
	defragEntryCost = 192
	defragPieceCost = 24
	// maxDefragFree is how many finished entries are kept for reuse.
	maxDefragFree = 16
)

type defragKey struct {
	src, dst netip.Addr
	id       uint16
	proto    uint8
}

// fragPiece is a held fragment: octets [off, end) of the datagram, stored at
// arena[at:at+end-off] of its entry.
type fragPiece struct {
	off, end, at int32
	frame        uint64
}

type defragEntry struct {
	key        defragKey
	pieces     []fragPiece // sorted by off, disjoint
	arena      []byte
	total      int    // the datagram's end, -1 until the last fragment is seen
	lastFrame  uint64 // the frame that set total
	held       int    // octets held (pieces are disjoint)
	frames     []uint64
	charged    int64 // what this entry charged to the budget
	stamp      uint64
	prev, next *defragEntry
}

type defragger struct {
	m          map[defragKey]*defragEntry
	head, tail *defragEntry // least recently active first
	buf        []byte
	free       []*defragEntry
	acct       *budget.Account
	msg        []byte // scratch for finding messages
}

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
	if d.m == nil {
		d.m = map[defragKey]*defragEntry{}
	}
	en := d.m[k]
	if end > maxDefragBytes {
		b := d.fragMsg("IPv4 fragment", k, off, end, " ends past the largest datagram (")
		b = strconv.AppendInt(b, maxDefragBytes, 10)
		b = append(b, " octets)"...)
		f.AddFinding(-1, Error, GroupMalformed, nil, "ip", string(d.dropMsg(b, en, f.Num)))
		return nil, nil, false
	}
	if en == nil {
		if len(d.m) >= maxDefrag {
			what := d.DropOldest()
			f.AddFinding(-1, Warn, GroupReassembly, nil, "ip", "IPv4 reassembly table full ("+strconv.Itoa(maxDefrag)+
				" datagrams): dropped the least recently active, "+what)
		}
		en = d.newEntry(k)
	}
	d.touch(en)
	// The end of the datagram.
	if !more {
		if en.total >= 0 && en.total != end {
			b := d.fragMsg("IPv4 last fragment", k, off, end, " disagrees with the end ")
			b = strconv.AppendInt(b, int64(en.total), 10)
			b = append(b, " set by frame "...)
			b = strconv.AppendUint(b, en.lastFrame, 10)
			f.AddFinding(-1, Warn, GroupMalformed, nil, "ip", string(d.dropMsg(b, en, f.Num)))
			return nil, nil, false
		}
		if p := len(en.pieces); p > 0 && int(en.pieces[p-1].end) > end {
			last := &en.pieces[p-1]
			b := d.fragMsg("IPv4 last fragment", k, off, end, " ends before data already held (offset ")
			b = appendRange(b, int(last.off), int(last.end))
			b = append(b, " from frame "...)
			b = strconv.AppendUint(b, last.frame, 10)
			b = append(b, ')')
			f.AddFinding(-1, Warn, GroupMalformed, nil, "ip", string(d.dropMsg(b, en, f.Num)))
			return nil, nil, false
		}
	} else if en.total >= 0 && end > en.total {
		b := d.fragMsg("IPv4 fragment", k, off, end, " ends past the datagram's end ")
		b = strconv.AppendInt(b, int64(en.total), 10)
		b = append(b, " set by frame "...)
		b = strconv.AppendUint(b, en.lastFrame, 10)
		f.AddFinding(-1, Warn, GroupMalformed, nil, "ip", string(d.dropMsg(b, en, f.Num)))
		return nil, nil, false
	}
	// Where the piece goes: after every piece that starts before it. In-order
	// arrival (the usual case) appends without a search.
	ps := en.pieces
	i := len(ps)
	if i > 0 && int(ps[i-1].off) >= off {
		lo, hi := 0, i
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if int(ps[mid].off) < off {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		i = lo
	}
	if i < len(ps) && int(ps[i].off) == off && int(ps[i].end) == end &&
		bytes.Equal(en.arena[ps[i].at:int(ps[i].at)+n], data) {
		b := d.fragMsg("IPv4 fragment", k, off, end, " repeats frame ")
		b = strconv.AppendUint(b, ps[i].frame, 10)
		b = append(b, " exactly: ignored"...)
		f.AddFinding(-1, Note, GroupReassembly, nil, "ip", string(b))
		return nil, nil, false
	}
	var clash *fragPiece
	if i > 0 && int(ps[i-1].end) > off {
		clash = &ps[i-1]
	} else if i < len(ps) && int(ps[i].off) < end {
		clash = &ps[i]
	}
	if clash != nil {
		b := d.fragMsg("IPv4 fragment", k, off, end, " overlaps offset ")
		b = appendRange(b, int(clash.off), int(clash.end))
		b = append(b, " from frame "...)
		b = strconv.AppendUint(b, clash.frame, 10)
		f.AddFinding(-1, Warn, GroupMalformed, nil, "ip", string(d.dropMsg(b, en, f.Num)))
		return nil, nil, false
	}
	if len(ps) >= maxDefragPieces {
		b := d.fragMsg("IPv4 fragment", k, off, end, " would be fragment ")
		b = strconv.AppendInt(b, int64(len(ps)+1), 10)
		b = append(b, " of one datagram (limit "...)
		b = strconv.AppendInt(b, maxDefragPieces, 10)
		b = append(b, ')')
		f.AddFinding(-1, Warn, GroupReassembly, nil, "ip", string(d.dropMsg(b, en, f.Num)))
		return nil, nil, false
	}
	pc := fragPiece{off: int32(off), end: int32(end), at: int32(len(en.arena)), frame: f.Num}
	en.arena = append(en.arena, data...)
	ps = append(ps, fragPiece{})
	copy(ps[i+1:], ps[i:])
	ps[i] = pc
	en.pieces = ps
	en.held += n
	en.charge(d.acct, int64(n)+defragPieceCost)
	if len(en.frames) < maxDefragFrames {
		en.frames = append(en.frames, f.Num)
	}
	if !more {
		en.total, en.lastFrame = end, f.Num
	}
	if en.held != en.total { // disjoint pieces: equal octet counts mean full cover
		return nil, nil, true
	}
	if cap(d.buf) < en.total {
		d.buf = make([]byte, maxDefragBytes)
	}
	buf := d.buf[:en.total]
	for _, p := range en.pieces {
		copy(buf[p.off:p.end], en.arena[p.at:])
	}
	frames = en.frames
	d.release(en)
	return buf, frames, false
}

func (en *defragEntry) charge(a *budget.Account, n int64) {
	en.charged += n
	a.Charge(n)
}

func (d *defragger) newEntry(k defragKey) *defragEntry {
	var en *defragEntry
	if n := len(d.free); n > 0 {
		en = d.free[n-1]
		d.free = d.free[:n-1]
		*en = defragEntry{pieces: en.pieces[:0], arena: en.arena[:0], frames: en.frames[:0]}
	} else {
		en = &defragEntry{}
	}
	en.key, en.total = k, -1
	d.m[k] = en
	en.charge(d.acct, defragEntryCost)
	return en
}

// touch stamps en as active now and moves it to the end of the list.
func (d *defragger) touch(en *defragEntry) {
	en.stamp = d.acct.Now()
	if d.tail == en {
		return
	}
	d.unlink(en)
	en.prev = d.tail
	if d.tail != nil {
		d.tail.next = en
	} else {
		d.head = en
	}
	d.tail = en
}

func (d *defragger) unlink(en *defragEntry) {
	if en.prev != nil {
		en.prev.next = en.next
	} else if d.head == en {
		d.head = en.next
	}
	if en.next != nil {
		en.next.prev = en.prev
	} else if d.tail == en {
		d.tail = en.prev
	}
	en.prev, en.next = nil, nil
}

// release forgets en and uncharges what it held.
func (d *defragger) release(en *defragEntry) {
	d.unlink(en)
	delete(d.m, en.key)
	d.acct.Charge(-en.charged)
	en.charged = 0
	if len(d.free) < maxDefragFree {
		d.free = append(d.free, en)
	}
}

// reset forgets every datagram (a rewind for a second pass).
func (d *defragger) reset() {
	clear(d.m)
	d.head, d.tail = nil, nil
	d.acct.Reset()
}

// Oldest is the stamp of the least recently active datagram (budget.Table).
func (d *defragger) Oldest() (uint64, bool) {
	if d.head == nil {
		return 0, false
	}
	return d.head.stamp, true
}

// DropOldest drops the least recently active datagram and names it.
func (d *defragger) DropOldest() string {
	en := d.head
	if en == nil {
		return ""
	}
	what := string(en.describe(nil))
	d.release(en)
	return what
}

// describe appends "IPv4 datagram 192.0.2.1 → 192.0.2.2 id 0x1234 (2
// fragments, 1480 octets, frames 1, 2)".
func (en *defragEntry) describe(b []byte) []byte {
	b = append(b, "IPv4 datagram "...)
	b = en.key.src.AppendTo(b)
	b = append(b, " → "...)
	b = en.key.dst.AppendTo(b)
	b = append(b, " id 0x"...)
	b = strconv.AppendUint(b, uint64(en.key.id), 16)
	b = append(b, " ("...)
	b = strconv.AppendInt(b, int64(len(en.pieces)), 10)
	if len(en.pieces) == 1 {
		b = append(b, " fragment, "...)
	} else {
		b = append(b, " fragments, "...)
	}
	b = strconv.AppendInt(b, int64(en.held), 10)
	b = append(b, " octets"...)
	if len(en.frames) > 0 {
		b = append(b, ", frames "...)
		b = appendFrames(b, en.frames)
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
		b = en.describe(b)
		b = append(b, " and frame "...)
		b = strconv.AppendUint(b, num, 10)
		d.release(en)
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
func (e *Engine) fragment(f *Frame) {
	ip := &e.ip4
	n := &f.Net
	k := defragKey{src: n.Src, dst: n.Dst, id: ip.Id, proto: uint8(ip.Protocol)}
	off := int(ip.FragOffset) * 8
	more := ip.Flags&0x1 != 0 // layers.IPv4MoreFragments
	payload, frames, held := e.defrag.add(f, k, off, more, ip.Payload)
	if payload == nil {
		if !held {
			return // refused or dropped, with a finding
		}
		f.AddFinding(-1, Note, GroupReassembly, nil, "ip", "IPv4 fragment (id 0x"+strconv.FormatUint(uint64(ip.Id), 16)+
			", offset "+strconv.Itoa(off)+", "+strconv.Itoa(len(ip.Payload))+" bytes), reassembled in a later frame")
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
