package dissect

import (
	"encoding/binary"
	"net/netip"
	"strconv"
)

// IPv4 reassembly (RFC 791 §3.2): fragments are held per (src, dst, id,
// protocol) until the pieces cover the datagram from 0 to the end given by the
// fragment without MF. Bounded: at most maxDefrag datagrams in flight, each at
// most 64 KiB; the oldest is dropped first (with a finding when it is).
const (
	maxDefrag      = 1024
	maxDefragBytes = 65535
)

type defragKey struct {
	src, dst netip.Addr
	id       uint16
	proto    uint8
}

type fragPiece struct {
	off  int
	data []byte
}

type defragEntry struct {
	key    defragKey
	pieces []fragPiece
	total  int // -1 until the last fragment is seen
	frames []uint64
	bytes  int
	seq    uint64
}

type defragger struct {
	m    map[defragKey]*defragEntry
	seq  uint64
	buf  []byte
	free []*defragEntry
}

// add stores one fragment; when the datagram is complete it returns the
// reassembled payload (valid until the next call) and the frames it came from.
func (d *defragger) add(k defragKey, off int, more bool, data []byte, frame uint64) (payload []byte, frames []uint64, dropped bool) {
	if d.m == nil {
		d.m = map[defragKey]*defragEntry{}
	}
	en := d.m[k]
	if en == nil {
		if len(d.m) >= maxDefrag {
			d.evictOldest()
			dropped = true
		}
		if n := len(d.free); n > 0 {
			en = d.free[n-1]
			d.free = d.free[:n-1]
			*en = defragEntry{pieces: en.pieces[:0], frames: en.frames[:0]}
		} else {
			en = &defragEntry{}
		}
		en.key, en.total = k, -1
		d.seq++
		en.seq = d.seq
		d.m[k] = en
	}
	if off+len(data) > maxDefragBytes || en.bytes+len(data) > 2*maxDefragBytes {
		return nil, nil, dropped
	}
	en.pieces = append(en.pieces, fragPiece{off: off, data: append([]byte(nil), data...)})
	en.bytes += len(data)
	if len(en.frames) < 64 {
		en.frames = append(en.frames, frame)
	}
	if !more {
		en.total = off + len(data)
	}
	if en.total < 0 {
		return nil, nil, dropped
	}
	// complete when the pieces cover [0, total)
	if cap(d.buf) < en.total {
		d.buf = make([]byte, en.total)
	}
	buf := d.buf[:en.total]
	have := 0
	for done := false; !done; {
		done = true
		for _, p := range en.pieces {
			if p.off <= have && p.off+len(p.data) > have {
				end := p.off + len(p.data)
				if end > en.total {
					end = en.total
				}
				copy(buf[p.off:end], p.data[:end-p.off])
				have = end
				done = false
			}
		}
	}
	if have < en.total {
		return nil, nil, dropped
	}
	delete(d.m, k)
	d.free = append(d.free, en)
	return buf, en.frames, dropped
}

func (d *defragger) evictOldest() {
	var old *defragEntry
	for _, en := range d.m {
		if old == nil || en.seq < old.seq {
			old = en
		}
	}
	if old != nil {
		delete(d.m, old.key)
		d.free = append(d.free, old)
	}
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
	payload, frames, dropped := e.defrag.add(k, off, more, ip.Payload, f.Num)
	if dropped {
		f.AddFinding(-1, Warn, GroupReassembly, nil, "ip", "IPv4 reassembly table full: the oldest incomplete datagram was dropped")
	}
	if payload == nil {
		f.AddFinding(-1, Note, GroupReassembly, nil, "ip", "IPv4 fragment (id 0x"+strconv.FormatUint(uint64(ip.Id), 16)+
			", offset "+strconv.Itoa(off)+", "+strconv.Itoa(len(ip.Payload))+" bytes), reassembled in a later frame")
		return
	}
	msg := []byte("IPv4 datagram reassembled from frames ")
	for i, fr := range frames {
		if i > 0 {
			msg = append(msg, ',', ' ')
		}
		msg = strconv.AppendUint(msg, fr, 10)
	}
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
		if i := pickPort(e.udpPort, n.SrcPort, n.DstPort); i >= 0 {
			e.inst[i].Dissect(f, body, -1)
			return
		}
		for _, i := range e.heurUDP {
			if e.regs[i].HeuristicUDP(body) {
				e.inst[i].Dissect(f, body, -1)
				return
			}
		}
	default:
		if i := e.ipProto[uint8(ip.Protocol)]; i != 0 {
			n.PayloadOff, n.PayloadLen = -1, len(payload)
			e.inst[i-1].Dissect(f, payload, -1)
		}
	}
}
