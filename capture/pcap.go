package capture

import "io"

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
	p.Iface = 0
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
	p.Iface = 0
	n := pcapRecordHeaderLen + int(caplen)
	_, _ = r.br.Discard(n) // cannot fail: the bytes are buffered
	r.off += int64(n)
	r.frame++
	return true
}
