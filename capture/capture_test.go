package capture

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pkt is what a test expects of one packet; CapLen must equal len(data).
type pkt struct {
	data  string
	ts    int64
	wire  int
	link  uint16
	iface int
}

// readAll reads r to its end and returns copies of the packets and the final
// error (nil at a clean EOF).
func readAll(t testing.TB, r *Reader) ([]pkt, error) {
	t.Helper()
	var out []pkt
	var p Packet
	for {
		err := r.Next(&p)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if p.CapLen != len(p.Data) {
			t.Fatalf("frame %d: CapLen %d but len(Data) %d", len(out)+1, p.CapLen, len(p.Data))
		}
		out = append(out, pkt{string(p.Data), p.TimeNS, p.WireLen, p.LinkType, p.Iface})
	}
}

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ---- hand-written fixtures ----

// pcapUsLE: little-endian, microsecond pcap with two records, the second of
// zero length.
var pcapUsLE = []byte{
	0xd4, 0xc3, 0xb2, 0xa1, // magic a1b2c3d4 written little-endian
	0x02, 0x00, 0x04, 0x00, // version 2.4
	0x00, 0x00, 0x00, 0x00, // thiszone
	0x00, 0x00, 0x00, 0x00, // sigfigs
	0xff, 0xff, 0x00, 0x00, // snaplen 65535
	0x01, 0x00, 0x00, 0x00, // link type 1 (Ethernet)
	// record 1
	0x00, 0x10, 0x5e, 0x5f, // ts_sec 1600000000
	0x40, 0xe2, 0x01, 0x00, // ts_usec 123456
	0x04, 0x00, 0x00, 0x00, // caplen 4
	0x3c, 0x00, 0x00, 0x00, // len 60
	0xde, 0xad, 0xbe, 0xef,
	// record 2: empty, which pcap allows
	0x01, 0x10, 0x5e, 0x5f, // ts_sec 1600000001
	0x00, 0x00, 0x00, 0x00, // ts_usec 0
	0x00, 0x00, 0x00, 0x00, // caplen 0
	0x00, 0x00, 0x00, 0x00, // len 0
}

// pcapNsBE: big-endian, nanosecond pcap, raw IP, snaplen 0 (unknown).
var pcapNsBE = []byte{
	0xa1, 0xb2, 0x3c, 0x4d, // magic a1b23c4d written big-endian
	0x00, 0x02, 0x00, 0x04, // version 2.4
	0, 0, 0, 0, 0, 0, 0, 0, // thiszone, sigfigs
	0x00, 0x00, 0x00, 0x00, // snaplen 0
	0x00, 0x00, 0x00, 0x65, // link type 101 (raw)
	0x5f, 0x5e, 0x10, 0x00, // ts_sec 1600000000
	0x07, 0x5b, 0xcd, 0x15, // ts_nsec 123456789
	0x00, 0x00, 0x00, 0x03, // caplen 3
	0x00, 0x00, 0x00, 0x02, // len 2: smaller than caplen, accepted as is
	0x45, 0x00, 0x01,
}

// pcapUsBE: the microsecond magic in the other byte order, with FCS bits set
// above the link type.
var pcapUsBE = []byte{
	0xa1, 0xb2, 0xc3, 0xd4, // magic, big-endian
	0x00, 0x02, 0x00, 0x04, // version 2.4
	0, 0, 0, 0, 0, 0, 0, 0, // thiszone, sigfigs
	0x00, 0x00, 0x01, 0x00, // snaplen 256
	0x24, 0x00, 0x00, 0x01, // FCS flag and length bits | Ethernet
	0x00, 0x00, 0x00, 0x01, // ts_sec 1
	0x00, 0x0f, 0x42, 0x3f, // ts_usec 999999
	0x00, 0x00, 0x00, 0x01, // caplen 1
	0x00, 0x00, 0x00, 0x01, // len 1
	0xaa,
}

// pcapNsLE: the nanosecond magic little-endian.
var pcapNsLE = []byte{
	0x4d, 0x3c, 0xb2, 0xa1, // magic a1b23c4d written little-endian
	0x02, 0x00, 0x04, 0x00, // version 2.4
	0, 0, 0, 0, 0, 0, 0, 0, // thiszone, sigfigs
	0x00, 0x00, 0x04, 0x00, // snaplen 262144
	0x71, 0x00, 0x00, 0x00, // link type 113 (Linux SLL)
	0x02, 0x00, 0x00, 0x00, // ts_sec 2
	0x05, 0x00, 0x00, 0x00, // ts_nsec 5
	0x02, 0x00, 0x00, 0x00, // caplen 2
	0x10, 0x00, 0x00, 0x00, // len 16
	0x01, 0x02,
}

// pcapngLE: one little-endian section, an Ethernet interface with
// microsecond timestamps and one Enhanced Packet Block.
var pcapngLE = []byte{
	// Section Header Block
	0x0a, 0x0d, 0x0d, 0x0a, // type
	0x1c, 0x00, 0x00, 0x00, // total length 28
	0x4d, 0x3c, 0x2b, 0x1a, // byte-order magic 1a2b3c4d, little-endian
	0x01, 0x00, 0x00, 0x00, // version 1.0
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // section length -1
	0x1c, 0x00, 0x00, 0x00, // total length again
	// Interface Description Block
	0x01, 0x00, 0x00, 0x00, // type 1
	0x14, 0x00, 0x00, 0x00, // total length 20
	0x01, 0x00, 0x00, 0x00, // link type 1, reserved
	0x00, 0x00, 0x00, 0x00, // snaplen 0
	0x14, 0x00, 0x00, 0x00, // total length again; no options: microseconds
	// Enhanced Packet Block
	0x06, 0x00, 0x00, 0x00, // type 6
	0x24, 0x00, 0x00, 0x00, // total length 36
	0x00, 0x00, 0x00, 0x00, // interface 0
	0x05, 0x00, 0x00, 0x00, // timestamp high
	0x39, 0x30, 0x00, 0x00, // timestamp low: (5<<32 | 12345) µs
	0x03, 0x00, 0x00, 0x00, // caplen 3
	0x40, 0x00, 0x00, 0x00, // len 64
	0x11, 0x22, 0x33, 0x00, // data and one byte of padding
	0x24, 0x00, 0x00, 0x00, // total length again
}

// pcapngBE: a big-endian section with a raw-IP interface (snaplen 4) and a
// Simple Packet Block whose packet was longer than the snaplen.
var pcapngBE = []byte{
	0x0a, 0x0d, 0x0d, 0x0a, // SHB
	0x00, 0x00, 0x00, 0x1c, // length 28
	0x1a, 0x2b, 0x3c, 0x4d, // byte-order magic, big-endian
	0x00, 0x01, 0x00, 0x00, // version 1.0
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x1c,
	0x00, 0x00, 0x00, 0x01, // IDB
	0x00, 0x00, 0x00, 0x14, // length 20
	0x00, 0x65, 0x00, 0x00, // link type 101
	0x00, 0x00, 0x00, 0x04, // snaplen 4
	0x00, 0x00, 0x00, 0x14,
	0x00, 0x00, 0x00, 0x03, // SPB
	0x00, 0x00, 0x00, 0x14, // length 20
	0x00, 0x00, 0x00, 0x09, // original length 9, so 4 bytes captured
	0x45, 0x00, 0x00, 0x09,
	0x00, 0x00, 0x00, 0x14,
}

// ---- a pcapng builder for the cases too long to write out ----

type ngb struct {
	be bool
	b  []byte
}

func (n *ngb) ord() binary.AppendByteOrder {
	if n.be {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// block appends a block, padding body to 4 bytes.
func (n *ngb) block(typ uint32, body []byte) *ngb {
	o := n.ord()
	body = append(body, make([]byte, pad4(len(body)))...)
	l := uint32(12 + len(body))
	n.b = o.AppendUint32(n.b, typ)
	n.b = o.AppendUint32(n.b, l)
	n.b = append(n.b, body...)
	n.b = o.AppendUint32(n.b, l)
	return n
}

func (n *ngb) shb() *ngb {
	o := n.ord()
	b := o.AppendUint32(nil, byteOrderLE)
	b = o.AppendUint16(b, 1)
	b = o.AppendUint16(b, 0)
	b = o.AppendUint64(b, ^uint64(0))
	return n.block(blockSHB, b)
}

func (n *ngb) opt(code uint16, val []byte) []byte {
	o := n.ord()
	b := o.AppendUint16(nil, code)
	b = o.AppendUint16(b, uint16(len(val)))
	b = append(b, val...)
	return append(b, make([]byte, pad4(len(val)))...)
}

func (n *ngb) idb(link uint16, snap uint32, opts ...[]byte) *ngb {
	o := n.ord()
	b := o.AppendUint16(nil, link)
	b = o.AppendUint16(b, 0)
	b = o.AppendUint32(b, snap)
	for _, op := range opts {
		b = append(b, op...)
	}
	if len(opts) > 0 {
		b = append(b, 0, 0, 0, 0)
	}
	return n.block(blockIDB, b)
}

func (n *ngb) epb(id uint32, ts uint64, data string, wire uint32, opts ...[]byte) *ngb {
	o := n.ord()
	b := o.AppendUint32(nil, id)
	b = o.AppendUint32(b, uint32(ts>>32))
	b = o.AppendUint32(b, uint32(ts))
	b = o.AppendUint32(b, uint32(len(data)))
	b = o.AppendUint32(b, wire)
	b = append(b, data...)
	b = append(b, make([]byte, pad4(len(data)))...)
	for _, op := range opts {
		b = append(b, op...)
	}
	return n.block(blockEPB, b)
}

// pb appends an obsolete Packet Block.
func (n *ngb) pb(id uint16, ts uint64, data string, wire uint32) *ngb {
	o := n.ord()
	b := o.AppendUint16(nil, id)
	b = o.AppendUint16(b, 7) // drops
	b = o.AppendUint32(b, uint32(ts>>32))
	b = o.AppendUint32(b, uint32(ts))
	b = o.AppendUint32(b, uint32(len(data)))
	b = o.AppendUint32(b, wire)
	b = append(b, data...)
	return n.block(blockPB, b)
}

func (n *ngb) spb(wire uint32, data string) *ngb {
	return n.block(blockSPB, append(n.ord().AppendUint32(nil, wire), data...))
}

func u64(n *ngb, v uint64) []byte { return n.ord().AppendUint64(nil, v) }

// ---- generated files ----

// genPackets returns n packets of varied size with increasing timestamps.
func genPackets(n int, seed uint64) []Packet {
	rng := rand.New(rand.NewPCG(seed, 1))
	ps := make([]Packet, n)
	ts := int64(1_700_000_000_123_456_789)
	for i := range ps {
		d := make([]byte, 60+rng.IntN(1455))
		for j := range d {
			d[j] = byte(rng.Uint32())
		}
		ts += rng.Int64N(3e9)
		ps[i] = Packet{Data: d, TimeNS: ts, CapLen: len(d), WireLen: len(d) + rng.IntN(2), LinkType: LinkEthernet}
	}
	return ps
}

func writePcap(t testing.TB, w io.Writer, ps []Packet, nanos bool) {
	t.Helper()
	pw, err := NewPcapWriter(w, LinkEthernet, 65535, nanos)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ps {
		if err := pw.WritePacket(&ps[i]); err != nil {
			t.Fatal(err)
		}
	}
}

// writePcapng puts even packets on an Ethernet interface and odd ones on a
// raw-IP interface.
func writePcapng(t testing.TB, w io.Writer, ps []Packet) {
	t.Helper()
	pw, err := NewPcapngWriter(w)
	if err != nil {
		t.Fatal(err)
	}
	if i, err := pw.AddInterface(LinkEthernet, 0, "eth0"); err != nil || i != 0 {
		t.Fatal(i, err)
	}
	if i, err := pw.AddInterface(LinkRaw, 65535, ""); err != nil || i != 1 {
		t.Fatal(i, err)
	}
	for i := range ps {
		ps[i].Iface = i % 2
		if err := pw.WritePacket(&ps[i]); err != nil {
			t.Fatal(err)
		}
	}
}

func pcapBytes(t testing.TB, ps []Packet, nanos bool) []byte {
	var b bytes.Buffer
	writePcap(t, &b, ps, nanos)
	return b.Bytes()
}

func pcapngBytes(t testing.TB, ps []Packet) []byte {
	var b bytes.Buffer
	writePcapng(t, &b, ps)
	return b.Bytes()
}

// ---- tests ----

type okCase struct {
	name   string
	in     []byte
	format string
	link   uint16 // Reader.LinkType
	want   []pkt
}

func okCases(t testing.TB) []okCase {
	const t0 = 1_600_000_000 * 1e9
	var cs []okCase
	add := func(name string, in []byte, format string, link uint16, want ...pkt) {
		cs = append(cs, okCase{name, in, format, link, want})
	}
	add("pcap µs LE", pcapUsLE, "pcap", LinkEthernet,
		pkt{"\xde\xad\xbe\xef", t0 + 123456000, 60, 1, 0},
		pkt{"", t0 + 1e9, 0, 1, 0})
	add("pcap ns BE", pcapNsBE, "pcap", LinkRaw,
		pkt{"\x45\x00\x01", t0 + 123456789, 2, LinkRaw, 0})
	add("pcap µs BE swapped magic", pcapUsBE, "pcap", LinkEthernet,
		pkt{"\xaa", 1999999000, 1, 1, 0})
	add("pcap ns LE", pcapNsLE, "pcap", LinkLinuxSLL,
		pkt{"\x01\x02", 2e9 + 5, 16, LinkLinuxSLL, 0})
	add("pcapng LE", pcapngLE, "pcapng", LinkEthernet,
		pkt{"\x11\x22\x33", (5<<32 | 12345) * 1000, 64, 1, 0})
	add("pcapng BE SPB", pcapngBE, "pcapng", LinkRaw,
		pkt{"\x45\x00\x00\x09", 0, 9, LinkRaw, 0})

	// Two interfaces with different link types and resolutions.
	n := &ngb{}
	n.shb().
		idb(LinkEthernet, 0, n.opt(2, []byte("eth0")), n.opt(optTsresol, []byte{6})).
		idb(LinkRaw, 1500, n.opt(optTsresol, []byte{9})).
		epb(0, 1_500_000_000_000_001, "eth", 3).
		epb(1, 1_500_000_000_000_000_002, "ip", 20).
		epb(0, 7, "e2", 2, n.opt(1, []byte("a comment")))
	add("pcapng two interfaces µs and ns", n.b, "pcapng", LinkEthernet,
		pkt{"eth", 1_500_000_000_000_001_000, 3, 1, 0},
		pkt{"ip", 1_500_000_000_000_000_002, 20, LinkRaw, 1},
		pkt{"e2", 7000, 2, 1, 0})

	// Power-of-two and other resolutions, and if_tsoffset.
	n = &ngb{be: true}
	n.shb().
		idb(LinkEthernet, 0, n.opt(optTsresol, []byte{0x80 | 20}), n.opt(optTsoffset, u64(n, 1000))).
		idb(LinkEthernet, 0, n.opt(optTsresol, []byte{12})).
		idb(LinkEthernet, 0, n.opt(optTsresol, []byte{0})).
		idb(LinkEthernet, 0, n.opt(optTsresol, []byte{0x80})).
		epb(0, 3<<20|1<<19, "a", 1).       // 3.5 s + 1000 s
		epb(1, 1_234_567_890_123, "b", 1). // picoseconds, truncated
		epb(2, 42, "c", 1).                // seconds
		epb(3, 43, "d", 1).                // 2^0 ticks per second
		epb(0, 1<<20-1, "e", 1)            // just under a second
	add("pcapng tsresol 2^-20, 10^-12, 1, 2^0", n.b, "pcapng", LinkEthernet,
		pkt{"a", 1003_500_000_000, 1, 1, 0},
		pkt{"b", 1_234_567_890, 1, 1, 1},
		pkt{"c", 42e9, 1, 1, 2},
		pkt{"d", 43e9, 1, 1, 3},
		pkt{"e", 1000e9 + 999_999_046, 1, 1, 0})

	// A second section in the other byte order forgets interfaces; other
	// block types are skipped by length.
	n = &ngb{}
	n.shb().
		block(4, []byte{1, 0, 4, 0, 10, 0, 0, 1, 'h', 'o', 's', 't', 0, 0, 0, 0}). // NRB
		idb(LinkEthernet, 0).
		block(0xbad, []byte("custom block")).
		epb(0, 1, "first", 5).
		block(5, make([]byte, 12)) // ISB
	n.be = true
	n.shb().
		idb(LinkRaw, 0, n.opt(optTsresol, []byte{9})).
		block(0xa, []byte("dsb")).
		epb(0, 2, "second", 6).
		pb(0, 3, "third", 5).
		spb(4, "spb!").
		spb(2, "xy")
	add("pcapng second section BE", n.b, "pcapng", LinkEthernet,
		pkt{"first", 1000, 5, 1, 0},
		pkt{"second", 2, 6, LinkRaw, 0},
		pkt{"third", 3, 5, LinkRaw, 0},
		pkt{"spb!", 0, 4, LinkRaw, 0},
		pkt{"xy", 0, 2, LinkRaw, 0})

	// An SHB and IDB but no packets.
	n = &ngb{}
	add("pcapng without packets", n.shb().idb(LinkIPv6, 0).b, "pcapng", LinkIPv6)
	n = &ngb{}
	add("pcapng without interfaces", n.shb().b, "pcapng", 0)
	add("pcap without packets", pcapUsLE[:24], "pcap", LinkEthernet)

	// Writer round trips.
	ps := genPackets(50, 1)
	var us, ns, ng []pkt
	for i, p := range ps {
		us = append(us, pkt{string(p.Data), p.TimeNS / 1000 * 1000, p.WireLen, 1, 0})
		ns = append(ns, pkt{string(p.Data), p.TimeNS, p.WireLen, 1, 0})
		link := uint16(LinkEthernet)
		if i%2 == 1 {
			link = LinkRaw
		}
		ng = append(ng, pkt{string(p.Data), p.TimeNS, p.WireLen, link, i % 2})
	}
	add("writer pcap µs", pcapBytes(t, ps, false), "pcap", 1, us...)
	add("writer pcap ns", pcapBytes(t, ps, true), "pcap", 1, ns...)
	add("writer pcapng", pcapngBytes(t, ps), "pcapng", 1, ng...)
	return cs
}

func TestRead(t *testing.T) {
	for _, c := range okCases(t) {
		for _, zip := range []bool{false, true} {
			in, name := c.in, c.name
			if zip {
				in, name = gz(t, in), name+" gzip"
			}
			t.Run(name, func(t *testing.T) {
				r, err := NewReader(bytes.NewReader(in), "test")
				if err != nil {
					t.Fatal(err)
				}
				if r.Format() != c.format || r.LinkType() != c.link {
					t.Errorf("format %s link %d, want %s %d", r.Format(), r.LinkType(), c.format, c.link)
				}
				got, err := readAll(t, r)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(c.want) {
					t.Fatalf("%d packets, want %d", len(got), len(c.want))
				}
				for i := range got {
					if got[i] != c.want[i] {
						t.Errorf("frame %d:\n got %+v\nwant %+v", i+1, got[i], c.want[i])
					}
				}
				if r.Frames() != uint64(len(c.want)) {
					t.Errorf("Frames() = %d", r.Frames())
				}
				var p Packet
				if err := r.Next(&p); err != io.EOF {
					t.Errorf("Next after EOF: %v", err)
				}
				if err := r.Close(); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

func TestOpenFileAndStdin(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.pcapng.gz")
	if err := os.WriteFile(path, gz(t, pcapngLE), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(r *Reader, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, r)
		if err != nil || len(got) != 1 || got[0].data != "\x11\x22\x33" {
			t.Fatalf("got %+v, %v", got, err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		var p Packet
		if err := r.Next(&p); err == nil || err == io.EOF {
			t.Fatalf("Next after Close: %v", err)
		}
	}
	check(Open(path))

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	check(Open("-"))

	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	var e *Error
	if _, err := Open(dir); !errors.As(err, &e) || !strings.HasPrefix(e.Msg, "read error: ") {
		t.Fatalf("directory: %v", err)
	}
}

// errCase is a malformed input: frame is the frame named by the error (0 when
// NewReader fails), so frame-1 packets must have been read before it.
type errCase struct {
	name   string
	in     []byte
	frame  uint64
	offset int64
	msg    string
}

func errCases(t testing.TB) []errCase {
	var cs []errCase
	add := func(name string, in []byte, frame uint64, offset int64, msg string) {
		cs = append(cs, errCase{name, in, frame, offset, msg})
	}
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	le := binary.LittleEndian
	rec := func(caplen, wire uint32, data int) []byte {
		b := make([]byte, 16, 16+data)
		le.PutUint32(b[8:], caplen)
		le.PutUint32(b[12:], wire)
		return append(b, make([]byte, data)...)
	}
	hdr := func(snap uint32) []byte {
		h := bytes.Clone(pcapUsLE[:24])
		le.PutUint32(h[16:], snap)
		return h
	}
	two := pcapUsLE // 24-byte header, records of 20 and 16 bytes

	add("not a capture", []byte("hello, world\n"), 0, 0, "not a pcap or pcapng file (magic 0x68656c6c)")
	add("empty", nil, 0, 0, "empty file")
	add("empty gzip", gz(t, nil), 0, 0, "empty file")
	add("three bytes", []byte{0xd4, 0xc3, 0xb2}, 0, 0, "not a pcap or pcapng file (only 3 bytes)")
	add("truncated pcap header", pcapUsLE[:20], 0, 0, "truncated file header: only 20 of 24 bytes present")
	add("pcap version 1", cat([]byte{0xd4, 0xc3, 0xb2, 0xa1, 1, 0, 0, 0}, pcapUsLE[8:]), 0, 0, "unsupported pcap version 1.0")
	add("truncated record header", cat(two, make([]byte, 10)), 3, 60, "truncated record header: only 10 of 16 bytes present")
	add("truncated record", cat(two, rec(100, 100, 40)), 3, 60, "truncated record: header says 100 bytes, only 40 present")
	add("truncated record, no data", cat(two, rec(100, 100, 0)), 3, 60, "truncated record: header says 100 bytes, only 0 present")
	add("caplen > snaplen", cat(hdr(64), rec(64, 64, 64), rec(65, 65, 65)), 2, 104, "record of 65 bytes exceeds the snapshot length (64)")
	add("caplen > MaxRecord", cat(hdr(0), rec(MaxRecord+1, 0, 0)), 1, 24, "record of 262145 bytes exceeds the maximum record size (262144)")
	add("caplen > MaxRecord, huge snaplen", cat(hdr(1<<31), rec(1, 1, 1), rec(300000, 0, 0)), 2, 41, "record of 300000 bytes exceeds the maximum record size (262144)")
	add("truncated SHB", pcapngLE[:20], 0, 0, "truncated block: header says 28 bytes, only 20 present")
	add("truncated SHB header", pcapngLE[:6], 0, 0, "truncated block header: only 6 of 8 bytes present")
	add("truncated SHB magic", pcapngLE[:10], 0, 0, "truncated section header block: only 10 bytes present")

	ng := func(f func(n *ngb)) []byte {
		n := &ngb{}
		n.shb().idb(LinkEthernet, 0).epb(0, 1, "one", 3)
		f(n)
		return n.b
	}
	const base = 28 + 20 + 36 // SHB, IDB and the first EPB
	bad := func(typ, length uint32, body int) func(n *ngb) {
		return func(n *ngb) {
			n.b = le.AppendUint32(n.b, typ)
			n.b = le.AppendUint32(n.b, length)
			n.b = append(n.b, make([]byte, body)...)
		}
	}
	add("block length not multiple of 4", ng(bad(6, 30, 22)), 2, base, "corrupt block length 30 (block type 0x00000006): must be a multiple of 4 and at least 12")
	add("block length < 12", ng(bad(0xbad, 8, 0)), 2, base, "corrupt block length 8")
	add("EPB length < 32", ng(bad(6, 28, 20)), 2, base, "block length 28 too short for block type 0x00000006 (minimum 32)")
	add("trailing length mismatch", ng(func(n *ngb) {
		n.epb(0, 2, "two", 3)
		n.b[len(n.b)-4]++
	}), 2, base, "block trailing length 37 does not match leading length 36")
	add("EPB unknown interface", ng(func(n *ngb) { n.epb(2, 2, "two", 3) }), 2, base, "packet for interface 2, but the section defines 1 interfaces")
	add("EPB caplen beyond block", ng(func(n *ngb) {
		n.epb(0, 2, "two", 3)
		le.PutUint32(n.b[base+20:], 9)
	}), 2, base, "captured length 9 does not fit in a block of 36 bytes")
	add("EPB caplen > snaplen", ng(func(n *ngb) { n.idb(LinkRaw, 2).epb(1, 2, "two", 3) }), 2, base+20, "record of 3 bytes exceeds the snapshot length (2)")
	add("truncated EPB", ng(func(n *ngb) {
		n.epb(0, 2, "two", 3)
		n.b = n.b[:len(n.b)-6]
	}), 2, base, "truncated block: header says 36 bytes, only 30 present")
	add("truncated skipped block", ng(bad(0xbad, 400, 100)), 2, base, "truncated block: header says 400 bytes, only 108 present")
	add("truncated block header", ng(func(n *ngb) { n.b = append(n.b, 6, 0, 0, 0) }), 2, base, "truncated block header: only 4 of 8 bytes present")
	add("second SHB forgets interfaces", ng(func(n *ngb) { n.shb().epb(0, 2, "two", 3) }), 2, base+28, "packet for interface 0, but the section defines 0 interfaces")
	add("SPB without interface", func() []byte { n := &ngb{}; return n.shb().spb(1, "x").b }(), 1, 28, "simple packet block, but the section defines no interface")
	add("bad byte-order magic", ng(func(n *ngb) {
		n.shb()
		n.b[len(n.b)-28+8] = 0
	}), 2, base, "bad byte-order magic 0x1a2b3c00 in section header block")
	add("pcapng version 2", ng(func(n *ngb) {
		n.shb()
		n.b[len(n.b)-28+12] = 2
	}), 2, base, "unsupported pcapng version 2.0")
	add("if_tsresol 10^-20", ng(func(n *ngb) { n.idb(1, 0, n.opt(optTsresol, []byte{20})) }), 2, base, "if_tsresol 0x14 out of range")
	add("if_tsresol 2^-64", ng(func(n *ngb) { n.idb(1, 0, n.opt(optTsresol, []byte{0x80 | 64})) }), 2, base, "if_tsresol 0xc0 out of range")
	add("IDB option overrun", ng(func(n *ngb) {
		n.idb(1, 0, n.opt(optTsoffset, make([]byte, 8)))
		le.PutUint16(n.b[len(n.b)-20+2:], 40)
	}), 2, base, "interface description block option 14 of 40 bytes overruns the block")
	add("IDB before first packet", func() []byte { n := &ngb{}; return n.shb().idb(1, 0, n.opt(optTsresol, []byte{99})).b }(), 1, 28, "if_tsresol 0x63 out of range")

	add("bad gzip header", []byte{0x1f, 0x8b, 0, 0, 0, 0}, 0, 0, "bad gzip stream: ")
	// Flush makes the first two records decodable, then the stream stops.
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(two)
	zw.Flush()
	add("truncated gzip", bytes.Clone(zb.Bytes()), 3, 60, "bad gzip stream: unexpected EOF")
	zw.Write(rec(4, 4, 4))
	zw.Close()
	z := zb.Bytes()
	z[len(z)-8] ^= 0xff // CRC-32
	add("gzip checksum", z, 4, 80, "bad gzip stream: gzip: invalid checksum")
	return cs
}

func TestErrors(t *testing.T) {
	for _, c := range errCases(t) {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(c.in), "bad.pcap")
			var got []pkt
			if err == nil {
				got, err = readAll(t, r)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *Error", err, err)
			}
			if e.File != "bad.pcap" || e.Frame != c.frame || e.Offset != c.offset || !strings.HasPrefix(e.Msg, c.msg) {
				t.Errorf("got  %q frame %d offset %d\nwant %q frame %d offset %d", e.Msg, e.Frame, e.Offset, c.msg, c.frame, c.offset)
			}
			if c.frame == 0 {
				if r != nil {
					t.Error("NewReader returned a reader and an error")
				}
				return
			}
			if uint64(len(got)) != c.frame-1 || r.Frames() != c.frame-1 {
				t.Errorf("%d packets (Frames %d) before the error, want %d", len(got), r.Frames(), c.frame-1)
			}
			var p Packet
			for range 2 {
				if again := r.Next(&p); again != err {
					t.Errorf("Next after error: %v, want the same error", again)
				}
			}
		})
	}
}

func TestWriterErrors(t *testing.T) {
	var b bytes.Buffer
	pw, _ := NewPcapWriter(&b, 1, 10, false)
	for _, p := range []Packet{
		{Data: make([]byte, 11)},
		{TimeNS: -1},
		{TimeNS: 1 << 33 * 1e9},
		{WireLen: -1},
	} {
		if err := pw.WritePacket(&p); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
	if _, err := NewPcapWriter(&b, 1, -1, false); err == nil {
		t.Error("negative snaplen accepted")
	}
	nw, _ := NewPcapngWriter(&b)
	if err := nw.WritePacket(&Packet{Iface: 0}); err == nil {
		t.Error("packet without interface accepted")
	}
	nw.AddInterface(1, 0, "")
	if err := nw.WritePacket(&Packet{Data: make([]byte, MaxRecord+1)}); err == nil {
		t.Error("oversized packet accepted")
	}
}

// The real captures, with counts, sums and a hash of all frame bytes as
// tshark reports them.
func TestRealFiles(t *testing.T) {
	for _, c := range []struct {
		file          string
		format        string
		n             int
		capSum        int
		wireSum       int
		first, last   int64
		sha256        string
		emptyFrames   int
		secondFrameTS int64
	}{
		{"ntop+nDPI__rx.pcap", "pcapng", 132, 26475, 26475, 1460647264018403581, 1460647320158051084,
			"1e10019be2f1ad450dec37b1c5b415e51ceeb7fcd1e5345cfa01aeee7594f529", 0, 0},
		{"ajbanjara+Wireshark-wiki__afs.cap.gz", "pcap", 601, 512276, 512276, 942356776463334000, 942356905892866000,
			"cbbd164cd9034e7a5f1d93568e28031bad41f5589a7c2a420d78ca57506f44ee", 0, 0},
		// Fuzzer output from tcpdump's tests: record 2 has caplen = len = 0
		// and ts_usec 0xe4ff0030 (more than a second), kept as read.
		// tshark shows that frame at -0.207875392 s (a 32-bit overflow); rdx
		// says 3841.916976 s.
		{"the-tcpdump-group+tcpdump__rx_serviceid_oobr.pcap", "pcap", 3, 142, 524288, 117442577131350000, 2145916800000000000,
			"38ec139c4ae02424483dccd7db522e76358ef922aaf26ba90775fa7e2a103dfa", 1, 3841916976000},
	} {
		t.Run(c.file, func(t *testing.T) {
			r, err := Open(filepath.Join("..", "pcaps", c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Format() != c.format || r.LinkType() != LinkEthernet {
				t.Errorf("format %s link %d", r.Format(), r.LinkType())
			}
			got, err := readAll(t, r)
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			var capSum, wireSum, empty int
			for _, p := range got {
				h.Write([]byte(p.data))
				capSum += len(p.data)
				wireSum += p.wire
				if p.data == "" {
					empty++
				}
				if p.link != LinkEthernet || p.iface != 0 {
					t.Fatalf("link %d iface %d", p.link, p.iface)
				}
			}
			if len(got) != c.n || capSum != c.capSum || wireSum != c.wireSum || empty != c.emptyFrames {
				t.Fatalf("%d packets, %d/%d bytes, %d empty", len(got), capSum, wireSum, empty)
			}
			if got[0].ts != c.first || got[len(got)-1].ts != c.last {
				t.Errorf("first %d last %d", got[0].ts, got[len(got)-1].ts)
			}
			if c.secondFrameTS != 0 && got[1].ts != c.secondFrameTS {
				t.Errorf("frame 2 at %d", got[1].ts)
			}
			if s := hex.EncodeToString(h.Sum(nil)); s != c.sha256 {
				t.Errorf("sha256 %s", s)
			}
		})
	}
}

// fuzzRead reads everything and checks the Source contract, then reads it
// again through Prefetch (its batch path: views of a lent read buffer,
// filled a few octets at a time) and checks it gives the same.
func fuzzRead(t *testing.T, data []byte) {
	r, err := NewReader(bytes.NewReader(data), "fuzz")
	if err != nil {
		if _, ok := err.(*Error); !ok || r != nil {
			t.Fatalf("NewReader: %v, %v", r, err)
		}
		return
	}
	var p Packet
	var want []Packet
	var end error
	for n := uint64(0); ; n++ {
		err := r.Next(&p)
		if err == io.EOF {
			end = err
			break
		}
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Frame != n+1 || r.Next(&p) != err {
				t.Fatalf("after %d frames: %v (%T)", n, err, err)
			}
			end = err
			break
		}
		if p.CapLen != len(p.Data) || p.CapLen > MaxRecord || cap(r.buf) > MaxRecord+8 {
			t.Fatalf("frame %d: caplen %d, len %d", n+1, p.CapLen, len(p.Data))
		}
		p.Data = bytes.Clone(p.Data)
		want = append(want, p)
	}
	r, err = NewReader(&lenChunks{chunkReader{b: data}, len(data)}, "fuzz")
	if err != nil {
		t.Fatalf("NewReader read in chunks: %v", err)
	}
	pf := NewPrefetch(r)
	defer pf.Close()
	for i := 0; ; {
		got, err := pf.NextBatch()
		if err != nil {
			if i != len(want) || err.Error() != end.Error() {
				t.Fatalf("Prefetch: %v after %d packets; Next: %v after %d", err, i, end, len(want))
			}
			return
		}
		for _, g := range got {
			if i >= len(want) || !bytes.Equal(g.Data, want[i].Data) || g.TimeNS != want[i].TimeNS || g.CapLen != want[i].CapLen ||
				g.WireLen != want[i].WireLen || g.LinkType != want[i].LinkType || g.Iface != want[i].Iface {
				t.Fatalf("Prefetch: packet %d differs from Next's", i+1)
			}
			i++
		}
	}
}

// lenChunks is a chunkReader with a Len: the Reader's buffer is as small
// as for an in-memory capture (4 KiB), so records straddle many fills.
type lenChunks struct {
	chunkReader
	n int
}

func (l *lenChunks) Len() int { return l.n }

func FuzzPcap(f *testing.F) {
	ps := genPackets(3, 2)
	f.Add(pcapBytes(f, ps, false))
	f.Add(pcapBytes(f, ps[:1], true))
	f.Add(pcapUsLE)
	f.Add(pcapNsBE)
	f.Add(gz(f, pcapUsBE))
	f.Fuzz(fuzzRead)
}

func FuzzPcapng(f *testing.F) {
	f.Add(pcapngBytes(f, genPackets(3, 3)))
	f.Add(pcapngLE)
	f.Add(pcapngBE)
	for _, c := range okCases(f) {
		if c.format == "pcapng" && len(c.in) < 2000 {
			f.Add(c.in)
		}
	}
	f.Fuzz(fuzzRead)
}

// benchFile writes 100k generated packets to a file and returns its path and
// the average record size.
func benchFile(b *testing.B, name string, write func(w io.Writer, ps []Packet)) (string, int64) {
	b.Helper()
	ps := genPackets(1000, 4)
	all := make([]Packet, 100_000)
	var total int64
	for i := range all {
		all[i] = ps[i%len(ps)]
		all[i].TimeNS += int64(i) * 1e6
		total += int64(len(all[i].Data))
	}
	path := filepath.Join(b.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var out io.Writer = w
	var zw *gzip.Writer
	if strings.HasSuffix(name, ".gz") {
		zw = gzip.NewWriter(w)
		out = zw
	}
	write(out, all)
	if zw != nil {
		zw.Close()
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path, total / int64(len(all))
}

// benchRead reads b.N packets, reopening the file (untimed) at its end.
func benchRead(b *testing.B, path string, avg int64) {
	b.SetBytes(avg)
	b.ReportAllocs()
	r, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	var p Packet
	b.ResetTimer()
	for range b.N {
		err := r.Next(&p)
		if err == io.EOF {
			b.StopTimer()
			r.Close()
			if r, err = Open(path); err == nil {
				err = r.Next(&p)
			}
			b.StartTimer()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	r.Close()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pkts/s")
}

func BenchmarkReadPcap(b *testing.B) {
	path, avg := benchFile(b, "bench.pcap", func(w io.Writer, ps []Packet) { writePcap(b, w, ps, true) })
	benchRead(b, path, avg)
}

func BenchmarkReadPcapng(b *testing.B) {
	path, avg := benchFile(b, "bench.pcapng", func(w io.Writer, ps []Packet) { writePcapng(b, w, ps) })
	benchRead(b, path, avg)
}

func BenchmarkReadPcapGzip(b *testing.B) {
	path, avg := benchFile(b, "bench.pcap.gz", func(w io.Writer, ps []Packet) { writePcap(b, w, ps, false) })
	benchRead(b, path, avg)
}

// ReadAll keeps every packet's data: each must survive the reads after it.
func TestReadAll(t *testing.T) {
	r, err := Open("../pcaps/rx/pts-ops.pcap")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pkts, err := ReadAll(r)
	if err != nil || len(pkts) != 112 {
		t.Fatalf("%d packets, %v", len(pkts), err)
	}
	r2, _ := Open("../pcaps/rx/pts-ops.pcap")
	defer r2.Close()
	var p Packet
	for i := 0; r2.Next(&p) == nil; i++ {
		if string(p.Data) != string(pkts[i].Data) || p.TimeNS != pkts[i].TimeNS {
			t.Fatalf("packet %d differs from its copy", i+1)
		}
	}
}

// TestPcapWindow: records handed out from the read buffer's window
// (winPcap) keep the frame numbers and offsets an error names, whether the
// bad record is inside the window or cut by the end of the buffer, and a
// Prefetch mixing its batch path with Next reads the same packets.
func TestPcapWindow(t *testing.T) {
	le := binary.LittleEndian
	ps := make([]Packet, 0, 30000)
	for i := range cap(ps) {
		d := make([]byte, 40+i%97) // ~90 octets: the window holds thousands
		le.PutUint32(d, uint32(i))
		ps = append(ps, Packet{Data: d, TimeNS: int64(i) * 1000, CapLen: len(d), WireLen: len(d) + i%3, LinkType: LinkEthernet})
	}
	good := pcapBytes(t, ps, false)
	want, err := readAll(t, mustReader(t, good))
	if err != nil || len(want) != len(ps) {
		t.Fatalf("read %d of %d: %v", len(want), len(ps), err)
	}
	for i, p := range want {
		if p.data != string(ps[i].Data) || p.ts != ps[i].TimeNS || p.wire != ps[i].WireLen {
			t.Fatalf("frame %d differs", i+1)
		}
	}
	// The record after frame k (at its offset) says it is larger than the
	// snapshot length; k=5 is inside the first window, 12000 past the first
	// buffer refill.
	for _, k := range []int{0, 5, 12000, len(ps) - 1} {
		off := 24
		for _, p := range ps[:k] {
			off += 16 + len(p.Data)
		}
		bad := bytes.Clone(good)
		le.PutUint32(bad[off+8:], 70000)
		got, err := readAll(t, mustReader(t, bad))
		var e *Error
		if !errors.As(err, &e) || len(got) != k || e.Frame != uint64(k+1) || e.Offset != int64(off) {
			t.Errorf("bad record after frame %d at offset %d: read %d, error %v", k, off, len(got), err)
		}
		// Cut inside that record: a truncated record, same frame and offset.
		got, err = readAll(t, mustReader(t, good[:off+20]))
		if !errors.As(err, &e) || len(got) != k || e.Frame != uint64(k+1) || e.Offset != int64(off) || !strings.Contains(e.Msg, "truncated record") {
			t.Errorf("cut after frame %d: read %d, error %v", k, len(got), err)
		}
	}
	pf := NewPrefetch(mustReader(t, good))
	defer pf.Close()
	var p Packet
	for i := range want {
		if err := pf.Next(&p); err != nil || string(p.Data) != want[i].data || p.TimeNS != want[i].ts {
			t.Fatalf("prefetch frame %d: %v", i+1, err)
		}
	}
	if err := pf.Next(&p); err != io.EOF {
		t.Fatalf("prefetch end: %v", err)
	}
}

func mustReader(t *testing.T, b []byte) *Reader {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), "w.pcap")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSmallFileSmallBuffer: a capture file of a few KB is read through a
// buffer its size (at least 4 KiB), not 1 MiB, and still read whole; a
// big one gets readBufSize.
func TestSmallFileSmallBuffer(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{3, 40, 20000} {
		ps := genPackets(n, uint64(n))
		b := pcapBytes(t, ps, false)
		p := filepath.Join(dir, "c.pcap")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		want := min(max(len(b), 4096), readBufSize)
		if got := r.br.Size(); got != want {
			t.Errorf("%d packets, %d octets: buffer %d, want %d", n, len(b), got, want)
		}
		var pkt Packet
		got := 0
		for r.Next(&pkt) == nil {
			got++
		}
		r.Close()
		if got != n {
			t.Errorf("%d packets, %d octets: read %d", n, len(b), got)
		}
	}
}
