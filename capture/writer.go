package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Writers write little-endian files and do no buffering of their own: wrap w
// in a bufio.Writer when writing many packets.

var errNegativeTime = errors.New("capture: packet timestamp before 1970 cannot be written")

// PcapWriter writes a classic pcap file.
type PcapWriter struct {
	w       io.Writer
	snaplen uint32
	nanos   bool
	hdr     [pcapRecordHeaderLen]byte
}

// NewPcapWriter writes the file header. nanos selects the nanosecond magic;
// otherwise timestamps are truncated to microseconds.
func NewPcapWriter(w io.Writer, linkType uint16, snaplen int, nanos bool) (*PcapWriter, error) {
	if snaplen < 0 || snaplen > math.MaxUint32 {
		return nil, fmt.Errorf("capture: bad snaplen %d", snaplen)
	}
	var h [pcapFileHeaderLen]byte
	le := binary.LittleEndian
	if nanos {
		le.PutUint32(h[0:4], 0xa1b23c4d)
	} else {
		le.PutUint32(h[0:4], 0xa1b2c3d4)
	}
	le.PutUint16(h[4:6], 2)
	le.PutUint16(h[6:8], 4)
	le.PutUint32(h[16:20], uint32(snaplen))
	le.PutUint32(h[20:24], uint32(linkType))
	if _, err := w.Write(h[:]); err != nil {
		return nil, err
	}
	return &PcapWriter{w: w, snaplen: uint32(snaplen), nanos: nanos}, nil
}

// WritePacket writes p.Data with p.TimeNS and p.WireLen (0 means len(p.Data)).
func (pw *PcapWriter) WritePacket(p *Packet) error {
	if err := checkWrite(p, pw.snaplen); err != nil {
		return err
	}
	sec := p.TimeNS / 1e9
	if sec > math.MaxUint32 {
		return fmt.Errorf("capture: timestamp %d does not fit a pcap header", p.TimeNS)
	}
	frac := p.TimeNS % 1e9
	if !pw.nanos {
		frac /= 1000
	}
	h := pw.hdr[:]
	le := binary.LittleEndian
	le.PutUint32(h[0:4], uint32(sec))
	le.PutUint32(h[4:8], uint32(frac))
	le.PutUint32(h[8:12], uint32(len(p.Data)))
	le.PutUint32(h[12:16], wireLen(p))
	if _, err := pw.w.Write(h); err != nil {
		return err
	}
	_, err := pw.w.Write(p.Data)
	return err
}

// checkWrite refuses what the reader would refuse.
func checkWrite(p *Packet, snaplen uint32) error {
	if p.TimeNS < 0 {
		return errNegativeTime
	}
	if limit, what := recordLimit(snaplen); uint64(len(p.Data)) > uint64(limit) {
		return fmt.Errorf("capture: packet of %d bytes exceeds %s (%d)", len(p.Data), what, limit)
	}
	if p.WireLen < 0 || p.WireLen > math.MaxUint32 {
		return fmt.Errorf("capture: bad wire length %d", p.WireLen)
	}
	return nil
}

func wireLen(p *Packet) uint32 {
	if p.WireLen == 0 {
		return uint32(len(p.Data))
	}
	return uint32(p.WireLen)
}

// PcapngWriter writes a single-section pcapng file with nanosecond
// timestamps on every interface.
type PcapngWriter struct {
	w        io.Writer
	snaplens []uint32
	hdr      [28]byte
}

// NewPcapngWriter writes the Section Header Block.
func NewPcapngWriter(w io.Writer) (*PcapngWriter, error) {
	var b [minSHB]byte
	le := binary.LittleEndian
	le.PutUint32(b[0:4], blockSHB)
	le.PutUint32(b[4:8], minSHB)
	le.PutUint32(b[8:12], byteOrderLE)
	le.PutUint16(b[12:14], 1)
	le.PutUint64(b[16:24], math.MaxUint64) // section length unknown
	le.PutUint32(b[24:28], minSHB)
	if _, err := w.Write(b[:]); err != nil {
		return nil, err
	}
	return &PcapngWriter{w: w}, nil
}

// AddInterface writes an Interface Description Block and returns the
// interface's index for Packet.Iface. name may be empty.
func (pw *PcapngWriter) AddInterface(linkType uint16, snaplen int, name string) (int, error) {
	if snaplen < 0 || snaplen > math.MaxUint32 {
		return 0, fmt.Errorf("capture: bad snaplen %d", snaplen)
	}
	if len(name) > 0xffff {
		return 0, fmt.Errorf("capture: interface name of %d bytes is too long", len(name))
	}
	le := binary.LittleEndian
	b := make([]byte, 16, 40+len(name))
	le.PutUint32(b[0:4], blockIDB)
	le.PutUint16(b[8:10], linkType)
	le.PutUint32(b[12:16], uint32(snaplen))
	if name != "" {
		b = le.AppendUint16(b, 2) // if_name
		b = le.AppendUint16(b, uint16(len(name)))
		b = append(b, name...)
		b = append(b, make([]byte, pad4(len(name)))...)
	}
	b = le.AppendUint16(b, optTsresol)
	b = le.AppendUint16(b, 1)
	b = append(b, 9, 0, 0, 0) // 10^-9 s
	b = append(b, 0, 0, 0, 0) // opt_endofopt
	n := uint32(len(b) + 4)
	le.PutUint32(b[4:8], n)
	b = le.AppendUint32(b, n)
	if _, err := pw.w.Write(b); err != nil {
		return 0, err
	}
	pw.snaplens = append(pw.snaplens, uint32(snaplen))
	return len(pw.snaplens) - 1, nil
}

// WritePacket writes an Enhanced Packet Block on interface p.Iface; the
// interface, not p.LinkType, decides the link type.
func (pw *PcapngWriter) WritePacket(p *Packet) error {
	if p.Iface < 0 || p.Iface >= len(pw.snaplens) {
		return fmt.Errorf("capture: packet for interface %d, but %d interfaces were added", p.Iface, len(pw.snaplens))
	}
	if err := checkWrite(p, pw.snaplens[p.Iface]); err != nil {
		return err
	}
	le := binary.LittleEndian
	pad := pad4(len(p.Data))
	n := uint32(minEPB + len(p.Data) + pad)
	ts := uint64(p.TimeNS)
	h := pw.hdr[:]
	le.PutUint32(h[0:4], blockEPB)
	le.PutUint32(h[4:8], n)
	le.PutUint32(h[8:12], uint32(p.Iface))
	le.PutUint32(h[12:16], uint32(ts>>32))
	le.PutUint32(h[16:20], uint32(ts))
	le.PutUint32(h[20:24], uint32(len(p.Data)))
	le.PutUint32(h[24:28], wireLen(p))
	if _, err := pw.w.Write(h); err != nil {
		return err
	}
	if _, err := pw.w.Write(p.Data); err != nil {
		return err
	}
	// Padding and trailing length reuse the header scratch space.
	t := h[:pad+4]
	clear(t[:pad])
	le.PutUint32(t[pad:], n)
	_, err := pw.w.Write(t)
	return err
}

func pad4(n int) int { return (4 - n%4) % 4 }
