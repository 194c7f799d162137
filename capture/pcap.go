package capture

import (
	"encoding/binary"
	"io"
	"slices"
)

const (
	pcapFileHeaderLen   = 24
	pcapRecordHeaderLen = 16
)

// readPcapHeader parses the 24-byte pcap file header.
func (r *Reader) readPcapHeader() error {
	h := r.hdr[:pcapFileHeaderLen]
	if err := r.read(h); err != nil {
		if err != io.EOF && err != io.ErrUnexpectedEOF {
			return r.ioErr(0)
		}
		return r.fail(0, "truncated file header: only %d of %d bytes present", r.off, pcapFileHeaderLen)
	}
	r.format = formatPcap
	// The magic is 0xa1b2c3d4 or 0xa1b23c4d in the writer's byte order.
	r.be = h[0] == 0xa1
	r.nanos = h[2] == 0x3c || h[1] == 0x3c
	major, minor := r.u16(h[4:6]), r.u16(h[6:8])
	if major != 2 {
		return r.fail(0, "unsupported pcap version %d.%d", major, minor)
	}
	r.snaplen = r.u32(h[16:20])
	// The upper bits of the link-type field carry FCS information.
	r.linkType = uint16(r.u32(h[20:24]))
	return nil
}

// nextPcap reads one record header and its data.
func (r *Reader) nextPcap(p *Packet) error {
	if r.winPcap(p) {
		return nil
	}
	r.commitWin()
	if r.peekPcap(p) {
		return nil
	}
	start := r.off
	h := r.hdr[:pcapRecordHeaderLen]
	if err := r.read(h); err != nil {
		switch err {
		case io.EOF:
			return io.EOF
		case io.ErrUnexpectedEOF:
			return r.fail(start, "truncated record header: only %d of %d bytes present", r.off-start, pcapRecordHeaderLen)
		}
		return r.ioErr(start)
	}
	sec, frac := r.u32(h[0:4]), r.u32(h[4:8])
	caplen, wirelen := r.u32(h[8:12]), r.u32(h[12:16])
	if limit, what := recordLimit(r.snaplen); caplen > limit {
		return r.fail(start, "record of %d bytes exceeds %s (%d)", caplen, what, limit)
	}
	data := r.grow(int(caplen))
	if err := r.read(data); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return r.fail(start, "truncated record: header says %d bytes, only %d present", caplen, r.off-start-pcapRecordHeaderLen)
		}
		return r.ioErr(start)
	}
	r.frame++
	ns := int64(frac)
	if !r.nanos {
		ns *= 1000
	}
	p.Data = data
	p.TimeNS = int64(sec)*1e9 + ns
	p.CapLen = int(caplen)
	p.WireLen = int(wirelen)
	p.LinkType = r.linkType
	p.Iface = r.iface(data)
	return nil
}

// peekPcap is the fast path: when the whole record is already in the read
// buffer, hand out a slice of it instead of copying (valid, like every
// Packet.Data, until the next call). Anything unusual (a short or truncated
// record, an oversized one) goes the careful way, which reports it.
func (r *Reader) peekPcap(p *Packet) bool {
	h, err := r.br.Peek(pcapRecordHeaderLen)
	if err != nil {
		return false
	}
	caplen := r.u32(h[8:12])
	if limit, _ := recordLimit(r.snaplen); caplen > limit || int(caplen)+pcapRecordHeaderLen > r.br.Size() {
		return false
	}
	b, err := r.br.Peek(pcapRecordHeaderLen + int(caplen))
	if err != nil {
		return false
	}
	sec, frac, wirelen := r.u32(b[0:4]), r.u32(b[4:8]), r.u32(b[12:16])
	ns := int64(frac)
	if !r.nanos {
		ns *= 1000
	}
	p.Data = b[pcapRecordHeaderLen:]
	p.TimeNS = int64(sec)*1e9 + ns
	p.CapLen = int(caplen)
	p.WireLen = int(wirelen)
	p.LinkType = r.linkType
	p.Iface = r.iface(p.Data)
	n := pcapRecordHeaderLen + int(caplen)
	_, _ = r.br.Discard(n) // cannot fail: the bytes are buffered
	r.off += int64(n)
	r.frame++
	// Peeking what is buffered does not refill: p.Data stays where it is.
	r.win, r.wpos = nil, 0
	if n := r.br.Buffered(); n >= pcapRecordHeaderLen {
		r.win, _ = r.br.Peek(n)
	}
	return true
}

// winPcap hands out the next record from win when all of it is there, as
// peekPcap would (the same checks; anything else goes peekPcap's way).
func (r *Reader) winPcap(p *Packet) bool {
	b := r.win[r.wpos:]
	if len(b) < pcapRecordHeaderLen {
		return false
	}
	caplen := r.u32(b[8:12])
	if limit, _ := recordLimit(r.snaplen); caplen > limit || uint64(len(b)-pcapRecordHeaderLen) < uint64(caplen) {
		return false
	}
	sec, frac, wirelen := r.u32(b[0:4]), r.u32(b[4:8]), r.u32(b[12:16])
	ns := int64(frac)
	if !r.nanos {
		ns *= 1000
	}
	n := pcapRecordHeaderLen + int(caplen)
	p.Data = b[pcapRecordHeaderLen:n:n]
	p.TimeNS = int64(sec)*1e9 + ns
	p.CapLen = int(caplen)
	p.WireLen = int(wirelen)
	p.LinkType = r.linkType
	p.Iface = r.iface(p.Data)
	r.wpos += n
	r.off += int64(n)
	r.frame++
	return true
}

// commitWin discards from br what winPcap handed out, before anything else
// reads br.
func (r *Reader) commitWin() {
	if r.wpos > 0 {
		_, _ = r.br.Discard(r.wpos) // cannot fail: the bytes are buffered
	}
	r.win, r.wpos = nil, 0
}

// scanBuffered parses the complete, ordinary records at the start of the
// read buffer into ps (Data a view of the buffer), as many as fit ps and
// room octets (headers included). It consumes nothing: n records took pos
// octets. Anything else (a record cut by the end of the buffer, an
// oversized one, the end of the input) is left to Next, which reads it
// carefully and reports what is wrong; this only saves Next's per-record
// calls. The loop is the per-record cost of reading a file.
func (r *Reader) scanBuffered(ps []Packet, room int) (n, pos int) {
	if r.havePend || r.err != nil {
		return 0, 0
	}
	switch r.format {
	case formatPcapng:
		return r.scanBufferedPcapng(ps, room)
	case formatPcap:
	default:
		return 0, 0
	}
	b := r.buffered(room)
	limit, _ := recordLimit(r.snaplen)
	// The reader's settings, loaded once.
	be, nanos, linkType, erf := r.be, r.nanos, r.linkType, r.linkType == linkTypeERF
	// Filled by index, not appended: an append costs a temporary and a
	// capacity check per record.
	for n < len(ps) && len(b)-pos >= pcapRecordHeaderLen {
		h := (*[pcapRecordHeaderLen]byte)(b[pos:])
		var sec, frac, caplen, wirelen uint32
		if be {
			sec, frac = binary.BigEndian.Uint32(h[0:4]), binary.BigEndian.Uint32(h[4:8])
			caplen, wirelen = binary.BigEndian.Uint32(h[8:12]), binary.BigEndian.Uint32(h[12:16])
		} else {
			sec, frac = binary.LittleEndian.Uint32(h[0:4]), binary.LittleEndian.Uint32(h[4:8])
			caplen, wirelen = binary.LittleEndian.Uint32(h[8:12]), binary.LittleEndian.Uint32(h[12:16])
		}
		// caplen is at most MaxRecord before it is added.
		start := pos + pcapRecordHeaderLen
		if caplen > limit || len(b)-start < int(caplen) {
			break
		}
		ns := int64(frac)
		if !nanos {
			ns *= 1000
		}
		pos = start + int(caplen)
		p := &ps[n]
		p.Data, p.TimeNS, p.CapLen, p.WireLen, p.LinkType, p.Iface = b[start:pos:pos], int64(sec)*1e9+ns, int(caplen), int(wirelen), linkType, 0
		n++
	}
	if erf { // after the loop: a call in it would spill and reload its values every record
		for i := range ps[:n] {
			ps[i].Iface = r.iface(ps[i].Data)
		}
	}
	return n, pos
}

// buffered is what the read buffer holds, up to room octets, after what
// winPcap handed out is let go.
func (r *Reader) buffered(room int) []byte {
	r.commitWin()
	b := r.br.buf[r.br.r:r.br.w]
	return b[:min(len(b), max(room, 0))]
}

// TakeBuffered appends to pkts, up to maxPkts packets, the complete records
// already in the read buffer that fit in room octets (headers included),
// consuming them, and returns the octets they took: for a caller that
// reads in batches (Prefetch, rdx -j's reader), one call per bufferful
// instead of one Next per record, and no copy. It returns at once for
// anything but a pcap file or a pcapng file's Enhanced Packet Blocks, and
// leaves to Next whatever it does not take (a record cut by the end of the
// buffer, one it must report, any other pcapng block).
//
// The packets' Data are views of the read buffer, which the reader then
// lends: when it reads on, it moves to another buffer and keeps this one for
// Retired. The views stay valid until the caller hands that buffer back
// (Reuse), which it does once no view of it is in use.
func (r *Reader) TakeBuffered(pkts []Packet, maxPkts, room int) (_ []Packet, took int) {
	n0 := len(pkts)
	if n0 >= maxPkts {
		return pkts, 0
	}
	pkts = slices.Grow(pkts, maxPkts-n0)
	n, pos := r.scanBuffered(pkts[n0:maxPkts], room)
	if n > 0 {
		r.frame += uint64(n)
		r.br.r += pos // buffered: scanBuffered saw them
		r.off += int64(pos)
		r.br.lend()
	}
	return pkts[:n0+n], pos
}

// Retired appends to bufs the read buffers the reader moved on from since
// the last call, each with views TakeBuffered handed out, and forgets them.
func (r *Reader) Retired(bufs [][]byte) [][]byte {
	bufs = append(bufs, r.br.retired...)
	clear(r.br.retired)
	r.br.retired = r.br.retired[:0]
	return bufs
}

// Reuse gives the reader buffers Retired returned (of it or of a reader of
// the same file), no view of which is in use any more, to read into.
func (r *Reader) Reuse(bufs [][]byte) {
	for _, b := range bufs {
		if len(b) == r.br.Size() {
			r.br.spare = append(r.br.spare, b)
		}
	}
}
