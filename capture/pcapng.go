package capture

import (
	"encoding/binary"
	"io"
	"math/bits"
)

// pcapng block types.
const (
	blockSHB = 0x0a0d0d0a
	blockIDB = 0x00000001
	blockPB  = 0x00000002 // obsolete Packet Block
	blockSPB = 0x00000003
	blockEPB = 0x00000006
)

// Smallest total length of each block type (header, fixed fields, trailer).
const (
	minBlock    = 12
	minSHB      = 28
	minIDB      = 20
	minEPB      = 32 // also the obsolete Packet Block
	minSPB      = 16
	byteOrderLE = 0x1a2b3c4d // SHB byte-order magic read little-endian
	byteOrderBE = 0x4d3c2b1a
)

// IDB options rdx uses.
const (
	optEnd      = 0
	optTsresol  = 9
	optTsoffset = 14
)

// nextPcapng reads blocks until it has a packet.
func (r *Reader) nextPcapng(p *Packet) error {
	for {
		start := r.off
		typ, err := r.blockType(start)
		if err != nil {
			return err
		}
		if typ == blockSHB {
			if err := r.readSHB(start); err != nil {
				return err
			}
			continue
		}
		length := r.u32(r.hdr[4:8])
		switch typ {
		case blockIDB:
			if err := r.readIDB(start, length); err != nil {
				return err
			}
		case blockEPB, blockPB:
			return r.readEPB(p, start, typ, length)
		case blockSPB:
			return r.readSPB(p, start, length)
		default:
			// NRB, ISB, DSB, custom and unknown blocks carry nothing rdx
			// needs; their length is still checked so corruption shows.
			if err := r.checkLen(start, typ, length, minBlock); err != nil {
				return err
			}
			if err := r.skip(int64(length) - 12); err != nil {
				return r.truncated(start, length, err)
			}
			if err := r.trailer(start, length); err != nil {
				return err
			}
		}
	}
}

// blockType reads the 8-byte block header into r.hdr[0:8].
func (r *Reader) blockType(start int64) (uint32, error) {
	h := r.hdr[:8]
	if err := r.read(h); err != nil {
		switch err {
		case io.EOF:
			return 0, io.EOF
		case io.ErrUnexpectedEOF:
			return 0, r.fail(start, "truncated block header: only %d of 8 bytes present", r.off-start)
		}
		return 0, r.ioErr(start)
	}
	return r.u32(h[0:4]), nil
}

// checkLen validates a block's total length before anything is read by it.
func (r *Reader) checkLen(start int64, typ, length, min uint32) error {
	if length < minBlock || length%4 != 0 {
		return r.fail(start, "corrupt block length %d (block type 0x%08x): must be a multiple of 4 and at least %d", length, typ, minBlock)
	}
	if length < min {
		return r.fail(start, "block length %d too short for block type 0x%08x (minimum %d)", length, typ, min)
	}
	return nil
}

// truncated turns a failed read inside a block into an error.
func (r *Reader) truncated(start int64, length uint32, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return r.fail(start, "truncated block: header says %d bytes, only %d present", length, r.off-start)
	}
	return r.ioErr(start)
}

// trailer reads the block's trailing length and checks it against the
// leading one.
func (r *Reader) trailer(start int64, length uint32) error {
	t := r.hdr[28:32]
	if err := r.read(t); err != nil {
		return r.truncated(start, length, err)
	}
	if got := r.u32(t); got != length {
		return r.fail(start, "block trailing length %d does not match leading length %d", got, length)
	}
	return nil
}

// readSHB reads a Section Header Block whose first 8 bytes are in r.hdr. It
// sets the section's byte order and forgets the previous section's
// interfaces.
func (r *Reader) readSHB(start int64) error {
	m := r.hdr[8:12]
	if err := r.read(m); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return r.fail(start, "truncated section header block: only %d bytes present", r.off-start)
		}
		return r.ioErr(start)
	}
	switch bom := binary.LittleEndian.Uint32(m); bom {
	case byteOrderLE:
		r.be = false
	case byteOrderBE:
		r.be = true
	default:
		return r.fail(start, "bad byte-order magic 0x%08x in section header block", bom)
	}
	length := r.u32(r.hdr[4:8])
	if err := r.checkLen(start, blockSHB, length, minSHB); err != nil {
		return err
	}
	v := r.hdr[12:24] // major, minor, section length
	if err := r.read(v); err != nil {
		return r.truncated(start, length, err)
	}
	if major, minor := r.u16(v[0:2]), r.u16(v[2:4]); major != 1 {
		return r.fail(start, "unsupported pcapng version %d.%d", major, minor)
	}
	if err := r.skip(int64(length) - 28); err != nil {
		return r.truncated(start, length, err)
	}
	if err := r.trailer(start, length); err != nil {
		return err
	}
	r.ifaces = r.ifaces[:0]
	return nil
}

// readIDB reads an Interface Description Block.
func (r *Reader) readIDB(start int64, length uint32) error {
	if err := r.checkLen(start, blockIDB, length, minIDB); err != nil {
		return err
	}
	n := length - 12
	if n > MaxRecord {
		return r.fail(start, "interface description block of %d bytes exceeds the maximum record size (%d)", length, MaxRecord)
	}
	b := r.grow(int(n))
	if err := r.read(b); err != nil {
		return r.truncated(start, length, err)
	}
	if err := r.trailer(start, length); err != nil {
		return err
	}
	ifc := iface{linkType: r.u16(b[0:2]), snaplen: r.u32(b[4:8]), units: 1e6}
	for o := b[8:]; len(o) >= 4; {
		code, olen := r.u16(o[0:2]), int(r.u16(o[2:4]))
		if code == optEnd {
			break
		}
		if 4+olen > len(o) {
			return r.fail(start, "interface description block option %d of %d bytes overruns the block", code, olen)
		}
		val := o[4 : 4+olen]
		switch code {
		case optTsresol:
			if olen != 1 {
				return r.fail(start, "if_tsresol option of %d bytes (want 1)", olen)
			}
			units, ok := tsUnits(val[0])
			if !ok {
				return r.fail(start, "if_tsresol 0x%02x out of range", val[0])
			}
			ifc.units = units
		case optTsoffset:
			if olen != 8 {
				return r.fail(start, "if_tsoffset option of %d bytes (want 8)", olen)
			}
			ifc.offset = int64(r.u64(val))
		}
		o = o[min(4+(olen+3)&^3, len(o)):]
	}
	if !r.haveLink {
		r.firstLink, r.haveLink = ifc.linkType, true
	}
	r.ifaces = append(r.ifaces, ifc)
	return nil
}

// tsUnits turns an if_tsresol value into ticks per second: a power of 10, or
// of 2 when the high bit is set. It fails when that overflows 64 bits.
func tsUnits(v byte) (uint64, bool) {
	e := v & 0x7f
	if v&0x80 != 0 {
		if e > 63 {
			return 0, false
		}
		return 1 << e, true
	}
	if e > 19 {
		return 0, false
	}
	u := uint64(1)
	for range e {
		u *= 10
	}
	return u, true
}

// timeNS converts an interface timestamp to Unix nanoseconds.
func (f *iface) timeNS(ts uint64) int64 {
	off := f.offset * 1e9
	switch f.units {
	case 1e9:
		return int64(ts) + off
	case 1e6:
		return int64(ts)*1000 + off
	}
	sec, frac := ts/f.units, ts%f.units
	// frac < units, so the 128-bit quotient fits in 64 bits.
	hi, lo := bits.Mul64(frac, 1e9)
	ns, _ := bits.Div64(hi, lo, f.units)
	return int64(sec)*1e9 + int64(ns) + off
}

// readEPB reads an Enhanced Packet Block or an obsolete Packet Block (same
// layout, but a 16-bit interface id followed by a drop count).
func (r *Reader) readEPB(p *Packet, start int64, typ, length uint32) error {
	if err := r.checkLen(start, typ, length, minEPB); err != nil {
		return err
	}
	h := r.hdr[8:28]
	if err := r.read(h); err != nil {
		return r.truncated(start, length, err)
	}
	id := r.u32(h[0:4])
	if typ == blockPB {
		id = uint32(r.u16(h[0:2]))
	}
	ts := uint64(r.u32(h[4:8]))<<32 | uint64(r.u32(h[8:12]))
	caplen, wirelen := r.u32(h[12:16]), r.u32(h[16:20])
	if uint64(id) >= uint64(len(r.ifaces)) {
		return r.fail(start, "packet for interface %d, but the section defines %d interfaces", id, len(r.ifaces))
	}
	ifc := &r.ifaces[id]
	padded := (uint64(caplen) + 3) &^ 3
	if padded > uint64(length)-minEPB {
		return r.fail(start, "captured length %d does not fit in a block of %d bytes", caplen, length)
	}
	if limit, what := recordLimit(ifc.snaplen); caplen > limit {
		return r.fail(start, "record of %d bytes exceeds %s (%d)", caplen, what, limit)
	}
	data := r.grow(int(padded))
	if err := r.read(data); err != nil {
		return r.truncated(start, length, err)
	}
	// Options (comments, flags, hashes) are not used.
	if err := r.skip(int64(length) - minEPB - int64(padded)); err != nil {
		return r.truncated(start, length, err)
	}
	if err := r.trailer(start, length); err != nil {
		return err
	}
	r.frame++
	p.Data = data[:caplen]
	p.TimeNS = ifc.timeNS(ts)
	p.CapLen = int(caplen)
	p.WireLen = int(wirelen)
	p.LinkType = ifc.linkType
	p.Iface = int(id)
	return nil
}

// scanBufferedPcapng is scanBuffered for pcapng: the Enhanced Packet Blocks
// at the start of the read buffer that pass every check readEPB makes
// (length, interface, captured length, trailer). It stops at the first
// other block (a section or interface header changes how the next are
// read) or doubtful one, which Next then reads and reports.
func (r *Reader) scanBufferedPcapng(ps []Packet, room int) (n, pos int) {
	b := r.buffered(room)
	for n < len(ps) && len(b)-pos >= minEPB {
		h := b[pos:]
		length := r.u32(h[4:8])
		if r.u32(h[0:4]) != blockEPB || length < minEPB || length%4 != 0 || uint64(length) > uint64(len(h)) {
			break
		}
		id, caplen, wirelen := r.u32(h[8:12]), r.u32(h[20:24]), r.u32(h[24:28])
		if uint64(id) >= uint64(len(r.ifaces)) {
			break
		}
		ifc := &r.ifaces[id]
		if limit, _ := recordLimit(ifc.snaplen); caplen > limit || (uint64(caplen)+3)&^3 > uint64(length)-minEPB ||
			r.u32(h[length-4:length]) != length {
			break
		}
		start, end := pos+28, pos+28+int(caplen)
		p := &ps[n]
		p.Data, p.TimeNS, p.CapLen, p.WireLen = b[start:end:end], ifc.timeNS(uint64(r.u32(h[12:16]))<<32|uint64(r.u32(h[16:20]))), int(caplen), int(wirelen)
		p.LinkType, p.Iface = ifc.linkType, int(id)
		pos += int(length)
		n++
	}
	return n, pos
}

// readSPB reads a Simple Packet Block: interface 0, no timestamp, and a
// captured length implied by the block length and snaplen.
func (r *Reader) readSPB(p *Packet, start int64, length uint32) error {
	if err := r.checkLen(start, blockSPB, length, minSPB); err != nil {
		return err
	}
	if len(r.ifaces) == 0 {
		return r.fail(start, "simple packet block, but the section defines no interface")
	}
	ifc := &r.ifaces[0]
	h := r.hdr[8:12]
	if err := r.read(h); err != nil {
		return r.truncated(start, length, err)
	}
	wirelen := r.u32(h)
	caplen := min(wirelen, length-minSPB)
	if ifc.snaplen > 0 {
		caplen = min(caplen, ifc.snaplen)
	}
	if caplen > MaxRecord {
		return r.fail(start, "record of %d bytes exceeds the maximum record size (%d)", caplen, MaxRecord)
	}
	padded := (caplen + 3) &^ 3
	data := r.grow(int(padded))
	if err := r.read(data); err != nil {
		return r.truncated(start, length, err)
	}
	if err := r.skip(int64(length) - minSPB - int64(padded)); err != nil {
		return r.truncated(start, length, err)
	}
	if err := r.trailer(start, length); err != nil {
		return err
	}
	r.frame++
	p.Data = data[:caplen]
	p.TimeNS = 0
	p.CapLen = int(caplen)
	p.WireLen = int(wirelen)
	p.LinkType = ifc.linkType
	p.Iface = 0
	return nil
}
