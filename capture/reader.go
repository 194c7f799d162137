package capture

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// readBufSize is large so that the per-packet path rarely reaches the OS or
// the decompressor.
const readBufSize = 1 << 20

// File magics as they appear in the first four bytes of the file.
const (
	magicPcapUsBE = 0xa1b2c3d4 // written big-endian, microseconds
	magicPcapUsLE = 0xd4c3b2a1
	magicPcapNsBE = 0xa1b23c4d // nanoseconds
	magicPcapNsLE = 0x4d3cb2a1
	magicPcapng   = 0x0a0d0d0a // SHB block type, a palindrome
)

const (
	formatPcap = iota + 1
	formatPcapng
)

// Reader reads a pcap or pcapng stream, optionally gzip-compressed.
// It implements Source. Its errors give the offset where the failing record
// or block starts.
type Reader struct {
	name   string
	closer io.Closer // the file Open opened; nil for stdin and NewReader
	gz     *gzip.Reader
	src    errReader // what br reads; remembers the first non-EOF error
	br     *rbuf

	format int
	be     bool  // current byte order (per section in pcapng)
	off    int64 // offset of the next unread byte of the decompressed stream
	frame  uint64
	err    error // sticky: returned by every Next after the first failure
	hdr    [32]byte
	buf    []byte // reused record buffer; Packet.Data points into it
	header bool   // still parsing the file header: errors name frame 0

	// pcap
	nanos    bool
	snaplen  uint32
	linkType uint16
	erfIDs   *erfIfaces // LINKTYPE_ERF: interface numbers by ERF port
	// win is what the read buffer held after the last record peekPcap
	// took, handed out record by record without a bufio call each (70% of
	// the reading cost of a small record); wpos octets of it are handed
	// out but not yet discarded from br. Anything else that reads br
	// discards them first (commitWin).
	win  []byte
	wpos int

	// pcapng
	ifaces    []iface
	firstLink uint16
	haveLink  bool
	pend      Packet // first packet, read ahead by NewReader to learn the link type
	havePend  bool
}

// iface is one pcapng Interface Description Block.
type iface struct {
	linkType uint16
	snaplen  uint32
	units    uint64 // timestamp ticks per second (if_tsresol)
	offset   int64  // seconds added to every timestamp (if_tsoffset)
}

// errReader keeps the first real error of the underlying stream, so a short
// read can be told apart from a broken gzip stream or a failing disk.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// Open opens a capture file; "-" means standard input.
func Open(path string) (*Reader, error) { return OpenWith(path, nil) }

// OpenWith is Open with wrap, when not nil, between the file and the parser
// (a progress meter counting the octets read).
func OpenWith(path string, wrap func(io.Reader) io.Reader) (*Reader, error) {
	if path == "-" {
		return NewReader(os.Stdin, "<stdin>")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var rd io.Reader = f
	if wrap != nil {
		rd = wrap(f)
	}
	r, err := NewReader(rd, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewReader reads a capture from rd; name is used in error messages.
func NewReader(rd io.Reader, name string) (*Reader, error) {
	r := &Reader{name: name, header: true}
	// A small buffer is enough to sniff the gzip magic; the big one is above
	// the decompressor, where the records are.
	raw := bufio.NewReaderSize(rd, 64<<10)
	size, known := readBufSize, false
	if b, _ := raw.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		gz, err := gzip.NewReader(raw)
		if err != nil {
			return nil, r.fail(0, "bad gzip stream: %v", err)
		}
		r.gz = gz
		r.src.r = gz
	} else {
		r.src.r = raw
		// A small capture (tests, fuzzing, one short trace) needs no 1 MiB
		// buffer: for a few-KB file the two buffers a lending reader makes
		// were most of what the run allocated, enough to start a collection
		// (about 1,300 page faults scanning gopacket's tables). A file that
		// grows while read is still read whole, a buffer at a time.
		if n, ok := knownLen(rd); ok {
			size, known = min(size, max(n, 4096)), true
		}
	}
	r.br = newRbuf(&r.src, size, known)

	magic, err := r.br.Peek(4)
	if len(magic) < 4 {
		if r.src.err != nil {
			return nil, r.ioErr(0)
		}
		if len(magic) == 0 && err == io.EOF {
			return nil, r.fail(0, "empty file")
		}
		return nil, r.fail(0, "not a pcap or pcapng file (only %d bytes)", len(magic))
	}
	m := binary.BigEndian.Uint32(magic)
	switch m {
	case magicPcapUsBE, magicPcapUsLE, magicPcapNsBE, magicPcapNsLE:
		if err := r.readPcapHeader(); err != nil {
			return nil, err
		}
	case magicPcapng:
		r.format = formatPcapng
		// The first SHB has the same checks as any other; it only has to be
		// there and complete for the file to count as pcapng.
		if _, err := r.blockType(0); err != nil {
			return nil, err
		}
		if err := r.readSHB(0); err != nil {
			return nil, err
		}
		r.header = false
		// Read ahead to the first packet so LinkType knows the first
		// interface; any error waits for Next, which names frame 1.
		if err := r.nextPcapng(&r.pend); err != nil {
			r.err = err
		} else {
			r.havePend = true
		}
	default:
		return nil, r.fail(0, "not a pcap or pcapng file (magic 0x%08x)", m)
	}
	r.header = false
	return r, nil
}

// LinkType is the pcap header's link type, or that of the first interface of
// a pcapng file (0 if it has none before the first packet).
func (r *Reader) LinkType() uint16 {
	if r.format == formatPcap {
		return r.linkType
	}
	return r.firstLink
}

// Format is "pcap" or "pcapng".
func (r *Reader) Format() string {
	if r.format == formatPcap {
		return "pcap"
	}
	return "pcapng"
}

// Frames is the number of packets returned so far.
func (r *Reader) Frames() uint64 {
	if r.havePend {
		return r.frame - 1
	}
	return r.frame
}

// Next fills p with the next packet. p.Data stays valid until the next call.
func (r *Reader) Next(p *Packet) error {
	if r.havePend {
		*p = r.pend
		r.havePend = false
		return nil
	}
	if r.err != nil {
		return r.err
	}
	var err error
	if r.format == formatPcap {
		err = r.nextPcap(p)
	} else {
		err = r.nextPcapng(p)
	}
	if err != nil {
		r.err = err
	}
	return err
}

// Close releases the file (not standard input). Next fails afterwards.
func (r *Reader) Close() error {
	var err error
	if r.gz != nil {
		err = r.gz.Close()
	}
	if r.closer != nil {
		if cerr := r.closer.Close(); cerr != nil {
			err = cerr
		}
		r.closer = nil
	}
	r.havePend = false
	if r.err == nil || r.err == io.EOF {
		r.err = &Error{File: r.name, Frame: r.frame + 1, Offset: r.off, Msg: "read after Close"}
	}
	return err
}

// fail builds an *Error for the frame being read (frame 0 in the file header).
func (r *Reader) fail(off int64, format string, args ...any) error {
	e := &Error{File: r.name, Offset: off, Msg: fmt.Sprintf(format, args...)}
	if !r.header {
		e.Frame = r.frame + 1
	}
	return e
}

// ioErr reports a failure of the stream below the parser.
func (r *Reader) ioErr(off int64) error {
	if r.gz != nil {
		return r.fail(off, "bad gzip stream: %v", r.src.err)
	}
	return r.fail(off, "read error: %v", r.src.err)
}

// errSource says the stream below the parser failed (r.src.err says how); a
// gzip stream cut short must not pass for a truncated capture.
var errSource = errors.New("capture: source failed")

// read fills b completely. It returns io.EOF only when nothing at all was
// left, io.ErrUnexpectedEOF when the stream ended inside b, and errSource
// when the stream itself failed.
func (r *Reader) read(b []byte) error {
	n, err := io.ReadFull(r.br, b)
	r.off += int64(n)
	if err == nil {
		return nil
	}
	if r.src.err != nil {
		return errSource
	}
	if n == 0 && err == io.EOF {
		return io.EOF
	}
	return io.ErrUnexpectedEOF
}

// skip discards n bytes.
func (r *Reader) skip(n int64) error {
	for n > 0 {
		// Discard takes an int; step in chunks so 32-bit builds are safe.
		step := min(n, 1<<30)
		d, err := r.br.Discard(int(step))
		r.off += int64(d)
		n -= int64(d)
		if err != nil {
			if r.src.err != nil {
				return errSource
			}
			return io.ErrUnexpectedEOF
		}
	}
	return nil
}

// knownLen is the length of an in-memory reader or a regular file.
func knownLen(rd io.Reader) (int, bool) {
	switch r := rd.(type) {
	case interface{ Len() int }:
		return r.Len(), true
	case *os.File:
		if fi, err := r.Stat(); err == nil && fi.Mode().IsRegular() {
			return int(min(fi.Size(), 1<<30)), true
		}
	}
	return 0, false
}

// grow returns the record buffer resized to n bytes (n <= MaxRecord+3).
func (r *Reader) grow(n int) []byte {
	if cap(r.buf) < n {
		c := max(n, 2*cap(r.buf), 64<<10)
		c = min(c, MaxRecord+8)
		c = max(c, n)
		r.buf = make([]byte, c)
	}
	return r.buf[:n]
}

// u16 and u32 decode in the current byte order.
func (r *Reader) u16(b []byte) uint16 {
	if r.be {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func (r *Reader) u32(b []byte) uint32 {
	if r.be {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *Reader) u64(b []byte) uint64 {
	if r.be {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

// recordLimit is the largest caplen allowed with the given snapshot length,
// and how to describe that limit.
func recordLimit(snaplen uint32) (uint32, string) {
	if snaplen > 0 && snaplen < MaxRecord {
		return snaplen, "the snapshot length"
	}
	return MaxRecord, "the maximum record size"
}

// linkTypeERF is LINKTYPE_ERF: each record starts with an ERF header.
const linkTypeERF = 197

// TimeDigits is the decimals the file's timestamps carry: 9 for a
// nanosecond pcap or one of ERF records, the first interface's if_tsresol (at most 9) for
// pcapng, else 6. The summary's Time column shows that many, as tshark's
// automatic precision does.
func (r *Reader) TimeDigits() int {
	if r.format == formatPcap {
		if r.nanos || r.linkType == linkTypeERF { // ERF records carry their own nanosecond times
			return 9
		}
		return 6
	}
	if len(r.ifaces) == 0 || r.ifaces[0].units == 0 {
		return 6
	}
	d := 0
	for u := uint64(1); u < r.ifaces[0].units && d < 9; u *= 10 {
		d++
	}
	return d
}
