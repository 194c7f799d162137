// Package render turns dissected frames into text: tshark-style summary lines,
// the verbose tree, hex dumps, JSON and field columns. It never parses packet
// bytes; it only formats what the dissectors found.
package render

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/rdx-project/rdx/dissect"
)

// Style holds the escape sequences of a Theme in one terminal profile
// (NewStyle); a nil *Style styles nothing. An empty sequence leaves its
// class plain.
type Style struct {
	Error, Warn, Note string // the Info of a frame (or a tree's expert line) by its worst finding
	Retrans, Dup      string // ... whose notes are about a retransmission or a duplicate
	Proto             string // the Protocol column (a protos entry wins)
	Failed            string // a failing check's row in rdx check's table
	Header            string // a table's header row (TableStyled)
	Bad               string // a table cell reporting failures (TableStyled)
	Reset             string
	protos            []protoSeq // the theme's proto.NAME rules
}

type protoSeq struct{ name, seq string }

// Summary appends a tshark-like one-line summary of f: number, time since the
// first frame, source, destination, protocol, length, info.
func Summary(dst []byte, f *dissect.Frame, first int64, st *Style) []byte {
	c := Clock{First: first}
	return SummaryClock(dst, f, &c, st, nil)
}

// SummaryCache holds what a summary line's columns repeat from the lines
// before, for SummaryClock: the address columns of recent IPv4 endpoints
// (a capture's frames mostly repeat a few, and writing one costs some 300
// instructions), the last frame number (the next is mostly one more: its
// text counts up in place), and the last few Length and Protocol columns.
// Not safe for concurrent use: one per goroutine that
// renders.
type SummaryCache struct {
	slots [addrCacheSets][2]addrSlot // first (NewSummaryCache); way 0 the set's newest pair, way 1 the one before
	cols  [colCacheSets][2]colSlot   // Protocol and Length columns together, way 0 the newer; a line each, after slots

	misses    int // address pairs written anew (tests)
	colMisses int // (Protocol, Length) pairs written anew (tests)
	protos    [protoCacheSize]protoSlot
	wires     [wireCacheSize]wireSlot
	wnext     int // the slot the next new Length column takes

	num     uint64 // the last frame number, its column and a space in numText[:numLen] (0: none)
	numLen  int
	numText [16]byte
}

// protoCacheSize and wireCacheSize are the number of Protocol and Length
// columns SummaryCache holds (a RoCE NFS capture alternates three
// protocols and eight lengths).
const protoCacheSize, wireCacheSize = 4, 8

// colCacheSets is the number of sets of two (Protocol, Length) column
// pairs SummaryCache holds (a power of two, 1<<colCacheBits): a protocol
// mostly comes in a few lengths (a RoCE NFS capture has nine pairs, Rx two),
// and one lookup of the pair costs less than one of each column.
const colCacheSets, colCacheBits = 32, 5

// colSlot is the Protocol column, a space and the Length column with its
// space, and what they depend on (appendProto's key and the length): 64
// octets, one cache line (NewSummaryCache), so that a hit reads one line.
type colSlot struct {
	proto string
	wire  int
	l4    bool
	eth   uint16
	n     int32 // the text's length (0: empty slot)
	text  [32]byte
}

// wireSlot is a Length column and the space after it.
type wireSlot struct {
	v, n int // the length, the text's length (0: empty slot)
	text [16]byte
}

// protoSlot is a Protocol column (appendProtoColumn, padded) and what it
// depends on: f.Proto, and for InfiniBand the encapsulation.
type protoSlot struct {
	proto string
	l4    bool
	eth   uint16
	n     int // the column's length (0: empty slot)
	text  [16]byte
}

// addrCacheSets is the number of address-pair sets SummaryCache holds, two
// pairs each (a power of two): 512 pairs, and two ways so that the 128
// pairs of 64 clients interleaved (both directions) do not evict each
// other by sharing a slot, as a direct-mapped 256 did on one frame in 9.
const addrCacheSets, addrCacheBits = 256, 8

type addrSlot struct {
	src, dst uint64   // each end's key (appendEndpoints); 0: empty
	text     [48]byte // "src → dst " as Summary writes it: 21 + 5 + 21 + 1 octets
}

// NewSummaryCache allocates a SummaryCache whose address slots each fill
// one cache line: SummaryCache is larger than 32 KiB, so Go allocates it
// on a page of its own, and slots comes first. A cache held in another
// struct lies wherever its field does (the printer's, 48 octets into a
// line, put each slot's text on the line after its keys: two D1 read
// misses a frame instead of one, reading 64 Rx flows under cachegrind,
// as the decoder's tables evict the slots between two frames of a pair).
func NewSummaryCache() *SummaryCache { return new(SummaryCache) }

// addrPairLen is the length of an address pair's text in addrSlot.
const addrPairLen = 21 + len(" → ") + 21 + 1

// SummaryClock is Summary with the Time column written by c (-t, -u) and
// the columns sc holds taken from it (sc may be nil).
func SummaryClock(dst []byte, f *dissect.Frame, c *Clock, st *Style, sc *SummaryCache) []byte {
	if st == nil && sc != nil && c.Format == TimeRelative && !c.HMS && f.Net.HasIP && f.WireLen >= 0 {
		// the common line: its columns in one call, not four (which make
		// their own room)
		return append(appendInfo(sc.appendColumns(dst, f, c), f), '\n')
	}
	// One line is rarely longer than this: room for it once, not per append.
	dst = slices.Grow(dst, 192)
	// The cached columns come with the space after them.
	dst = sc.appendNum(dst, f.Num)
	if c.Format == TimeRelative && !c.HMS { // Append's default, without its call (too big to inline)
		dst = c.appendRel(dst, f.TimeNS-c.First)
	} else {
		dst = c.append(dst, f.TimeNS)
	}
	dst = append(dst, ' ')
	n := &f.Net
	switch {
	case n.HasIP:
		dst = sc.appendEndpoints(dst, n)
	case f.Link.Kind != dissect.LinkNone:
		start := len(dst)
		dst = pad(f.Link.AppendLinkAddr(dst, true), start, 21)
		dst = append(dst, " → "...)
		start = len(dst)
		dst = append(pad(f.Link.AppendLinkAddr(dst, false), start, 21), ' ')
	default:
		dst = append(dst, "-                     → -                     "...)
	}
	var proto, info string
	if st != nil {
		proto, info = st.proto(f.Proto), st.info(f)
	}
	if proto == "" && f.WireLen >= 0 && sc != nil {
		dst = sc.appendProtoLen(dst, f)
	} else {
		if proto != "" {
			dst = append(dst, proto...)
		}
		dst = sc.appendProto(dst, f)
		if proto != "" {
			dst = append(dst, st.Reset...)
		}
		dst = append(dst, ' ')
		if f.WireLen >= 0 {
			dst = sc.appendWireLen(dst, f.WireLen)
		} else {
			dst = append(padLeft(dst, strconv.AppendInt(nil0(), int64(f.WireLen), 10), 5), ' ')
		}
	}
	if info != "" {
		dst = append(dst, info...)
	}
	dst = appendInfo(dst, f)
	if info != "" {
		dst = append(dst, st.Reset...)
	}
	return append(dst, '\n')
}

// appendColumns appends the columns before Info as SummaryClock does for a
// frame with an IP header, the default Time column and no style. When the
// newest slot of each column holds its text (a Time prefix made anew if
// not), the four are copied into room made once, without a call or a
// growth check per column (those cost as much as the copies); else each
// column's own writer writes it, and fills its slot.
func (c *SummaryCache) appendColumns(dst []byte, f *dissect.Frame, clk *Clock) []byte {
	ns, digits, r := f.TimeNS-clk.First, clk.digits(), &clk.rel
	n := &f.Net
	if ns < 0 || ns >= 1e17 || digits < 4 || !n.Src.Is4() || !n.Dst.Is4() {
		return c.appendEach(dst, f, clk)
	}
	sa, da := n.Src.As4(), n.Dst.As4()
	ks, kd := addrKeys(sa, da, n)
	a := &c.slots[addrSet(ks, kd)][0]
	cs := &c.cols[colSet(f)][0]
	if a.src != ks || a.dst != kd || !cs.hit(f) {
		return c.appendEach(dst, f, clk)
	}
	// nextNum last: it changes the slot. A number it cannot count up to
	// is written into the slot anew.
	if !c.nextNum(f.Num) {
		if f.Num >= 1e8 {
			c.numLen = 0 // more than the slot holds
			return c.appendEach(dst, f, clk)
		}
		c.newNum(f.Num)
	}
	c.num = f.Num
	v := relValue(ns, digits)
	if key := v/1e4 + 1; key != r.key || digits != r.digits {
		r.fill(ns, digits, key)
	}
	// at most 16 + 28 + 5 + 48 + 32 octets from where the line's columns start
	l := len(dst)
	dst = slices.Grow(dst, columnsRoom)
	b := (*[columnsRoom]byte)(dst[l : l+columnsRoom]) // fixed-length slices of it: no pointer masking
	// by words: the first as nextNum stored it (see there)
	*(*[8]byte)(b[:8]) = *(*[8]byte)(c.numText[:8])
	*(*[8]byte)(b[8:16]) = *(*[8]byte)(c.numText[8:16])
	o := c.numLen
	*(*[len(r.text)]byte)(b[o : o+len(r.text)]) = r.text
	o += r.n
	binary.LittleEndian.PutUint32(b[o:o+4], digits4(v%1e4))
	b[o+4] = ' '
	o += 5
	*(*[len(a.text)]byte)(b[o : o+len(a.text)]) = a.text
	o += addrPairLen
	*(*[len(cs.text)]byte)(b[o : o+len(cs.text)]) = cs.text
	return dst[:l+o+int(cs.n)]
}

// columnsRoom is the room appendColumns copies its slots into.
const columnsRoom = 160

// appendEach is appendColumns by each column's writer.
func (c *SummaryCache) appendEach(dst []byte, f *dissect.Frame, clk *Clock) []byte {
	dst = c.appendNum(dst, f.Num)
	dst = append(clk.appendRel(dst, f.TimeNS-clk.First), ' ')
	dst = c.appendEndpoints(dst, &f.Net)
	return c.appendProtoLen(dst, f)
}

// appendNum appends the No. column, frame number v right-aligned in 6,
// and a space.
func (c *SummaryCache) appendNum(dst []byte, v uint64) []byte {
	if c == nil || v >= 1e8 {
		return append(appendUintPad(dst, v, 6), ' ')
	}
	if !c.nextNum(v) {
		c.newNum(v)
	}
	c.num = v
	return appendText(dst, &c.numText, c.numLen)
}

// nextNum counts the slot's number up to v from c.num, by one or, for a
// -j worker's frames (a few apart), by up to numStep; false when v is to
// be written anew. It changes the slot.
func (c *SummaryCache) nextNum(v uint64) bool {
	if d := v - c.num; c.numLen > 0 && d-1 < numStep {
		// Without a carry (nine numbers in ten), the last digit (at
		// numLen-2 <= 7) is counted up in the first word and stored
		// whole: appendColumns's copy reads that word right back, which a
		// CPU forwards from one store but stalls on after byte stores.
		sh := uint(c.numLen-2) * 8
		w := binary.LittleEndian.Uint64(c.numText[:8])
		if byte(w>>sh)+byte(d) <= '9' {
			binary.LittleEndian.PutUint64(c.numText[:8], w+d<<sh)
			return true
		}
		return countUpBy(c.numText[:c.numLen-1], byte(d))
	}
	return false
}

// newNum writes the No. column of v (< 1e8) and its space into c's slot.
func (c *SummaryCache) newNum(v uint64) {
	var b [16]byte
	c.numLen = copy(c.numText[:], append(appendUintPad(b[:0], v, 6), ' ')) // v < 1e8: 9 octets at most
}

// numStep bounds how far appendNum counts its cached frame number up
// (countUpBy adds to the last digit, a single decimal digit).
const numStep = 9

// countUpBy adds d (1 to 9) to the decimal number right-aligned in b,
// false when it has no room for another digit (b is then to be written
// anew).
func countUpBy(b []byte, d byte) bool {
	for i := len(b) - 1; i >= 0; i-- {
		switch c := b[i]; {
		case c == ' ':
			b[i] = '0' + d
			return true
		case c+d > '9':
			b[i], d = c+d-10, 1
		default:
			b[i] = c + d
			return true
		}
	}
	return false
}

// appendWireLen appends the Length column, n (not negative) right-aligned
// in 5, and a space.
func (c *SummaryCache) appendWireLen(dst []byte, n int) []byte {
	if c == nil || n >= 1e8 {
		return append(appendUintPad(dst, uint64(n), 5), ' ')
	}
	for i := range c.wires { // ints: a scan costs less than writing the number
		if s := &c.wires[i]; s.v == n && s.n > 0 {
			return appendText(dst, &s.text, s.n)
		}
	}
	s := &c.wires[c.wnext%wireCacheSize]
	c.wnext++
	var b [16]byte
	s.v, s.n = n, copy(s.text[:], append(appendUintPad(b[:0], uint64(n), 5), ' ')) // 9 octets at most
	return appendText(dst, &s.text, s.n)
}

// appendProto appends the Protocol column, padded to protoWidth.
func (c *SummaryCache) appendProto(dst []byte, f *dissect.Frame) []byte {
	var s *protoSlot
	if c != nil {
		// a slot by the name's length: one comparison, and a RoCE NFS
		// capture's three (nfs, infiniband, rpcordma) each have their own
		s = &c.protos[len(f.Proto)%protoCacheSize]
		if s.n > 0 && f.Net.HasL4 == s.l4 && f.Net.EtherType == s.eth && sameString(f.Proto, s.proto) {
			return appendText(dst, &s.text, s.n)
		}
	}
	start := len(dst)
	dst = pad(appendProtoColumn(dst, f), start, protoWidth)
	if n := len(dst) - start; s != nil && n <= len(s.text) {
		s.proto, s.l4, s.eth, s.n = f.Proto, f.Net.HasL4, f.Net.EtherType, n
		copy(s.text[:], dst[start:])
	}
	return dst
}

// appendProtoLen appends the Protocol column, a space and the Length
// column (f.WireLen, not negative) with its space, as appendProto and
// appendWireLen write them, from the pair's slot when it has one.
func (c *SummaryCache) appendProtoLen(dst []byte, f *dissect.Frame) []byte {
	set := &c.cols[colSet(f)]
	for i := range set {
		if s := &set[i]; s.hit(f) {
			return s.appendTo(dst)
		}
	}
	c.colMisses++
	start := len(dst)
	dst = c.appendWireLen(append(c.appendProto(dst, f), ' '), f.WireLen)
	if n := len(dst) - start; n <= len(set[0].text) { // not a protocol name longer than the column
		set[1] = set[0]
		s := &set[0]
		s.proto, s.wire, s.l4, s.eth, s.n = f.Proto, f.WireLen, f.Net.HasL4, f.Net.EtherType, int32(n)
		copy(s.text[:], dst[start:])
	}
	return dst
}

// colSet is the set of c.cols that holds f's Protocol and Length columns.
func colSet(f *dissect.Frame) uint64 {
	return (uint64(f.WireLen) ^ uint64(len(f.Proto))<<16) * 0x9e3779b97f4a7c15 >> (64 - colCacheBits)
}

// hit tells whether s holds f's Protocol and Length columns.
func (s *colSlot) hit(f *dissect.Frame) bool {
	return s.n > 0 && s.wire == f.WireLen && s.l4 == f.Net.HasL4 && s.eth == f.Net.EtherType && sameString(f.Proto, s.proto)
}

// appendTo appends s's text by one fixed-size copy.
func (s *colSlot) appendTo(dst []byte) []byte {
	l := len(dst)
	dst = slices.Grow(dst, len(s.text))
	*(*[len(s.text)]byte)(dst[l : l+len(s.text)]) = s.text
	return dst[:l+int(s.n)]
}

// sameString is a == b, without memequal's call when both are the same
// string (f.Proto is mostly a ProtoInfo's Abbrev, the same each time).
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// appendText appends the first n octets of b by one fixed-size copy.
func appendText(dst []byte, b *[16]byte, n int) []byte {
	l := len(dst)
	dst = slices.Grow(dst, len(b))
	*(*[16]byte)(dst[l : l+len(b)]) = *b
	return dst[:l+n]
}

// appendEndpoints appends the Source and Destination columns, the arrow
// between them and a space after. Two IPv4 columns are exactly 21 octets each
// ("255.255.255.255:65535" is the longest, appendEndpoint pads to 21),
// which c keeps by the pair: a frame's two ends mostly repeat together.
func (c *SummaryCache) appendEndpoints(dst []byte, n *dissect.Net) []byte {
	if c == nil || !n.Src.Is4() || !n.Dst.Is4() {
		return appendEndpointPair(dst, n)
	}
	ks, kd := addrKeys(n.Src.As4(), n.Dst.As4(), n)
	set := &c.slots[addrSet(ks, kd)]
	s := &set[0]
	if s.src != ks || s.dst != kd {
		if s = &set[1]; s.src != ks || s.dst != kd {
			// the newest goes to way 0, the one it displaces to way 1
			c.misses++
			set[1] = set[0]
			s = &set[0]
			// written where it has room (the digit writer stores 8 octets
			// at a time), then kept
			var b [len(s.text) + 16]byte
			col := appendEndpointPair(b[:0], n)
			if len(col) != addrPairLen {
				s.src, s.dst = 0, 0
				return append(dst, col...) // cannot happen (see above); not cached then
			}
			s.src, s.dst = ks, kd
			copy(s.text[:], col)
		}
	}
	// one fixed-size copy, not append's general memmove
	l := len(dst)
	dst = slices.Grow(dst, len(s.text))
	*(*[len(s.text)]byte)(dst[l : l+len(s.text)]) = s.text
	return dst[:l+addrPairLen]
}

// addrKeys is the keys of an IPv4 frame's two ends (sa, da and n's
// ports) in SummaryCache.slots: 1<<63 | IPv4 address<<17 | port<<1 | has a
// port.
func addrKeys(sa, da [4]byte, n *dissect.Net) (ks, kd uint64) {
	ks = 1<<63 | uint64(binary.BigEndian.Uint32(sa[:]))<<17 | uint64(n.SrcPort)<<1
	kd = 1<<63 | uint64(binary.BigEndian.Uint32(da[:]))<<17 | uint64(n.DstPort)<<1
	if n.HasL4 {
		ks, kd = ks|1, kd|1
	}
	return ks, kd
}

// addrSet is the set of SummaryCache.slots that holds the pair (ks, kd).
func addrSet(ks, kd uint64) uint64 {
	return (ks*0x9e3779b97f4a7c15 + kd*0xc2b2ae3d27d4eb4f) >> (64 - addrCacheBits)
}

// appendEndpointPair appends "src → dst ", each padded to 21 columns.
func appendEndpointPair(dst []byte, n *dissect.Net) []byte {
	dst = appendEndpoint(dst, n.Src, n.SrcPort, n.HasL4)
	dst = append(dst, " → "...)
	return append(appendEndpoint(dst, n.Dst, n.DstPort, n.HasL4), ' ')
}

// appendEndpoint appends an address column: the address, ":port" with a
// transport header, padded to 21 columns.
func appendEndpoint(dst []byte, a netip.Addr, port uint16, l4 bool) []byte {
	start := len(dst)
	dst = appendAddr(dst, a)
	if l4 {
		dst = append(dst, ':')
		dst = appendUintPad(dst, uint64(port), 0)
	}
	return pad(dst, start, 21)
}

// appendUintPad appends v in decimal, right-aligned in width columns: the
// summary's numbers written in place, two digits at a time, without
// strconv's general path.
func appendUintPad(dst []byte, v uint64, width int) []byte {
	return dissect.AppendUintWidth(dst, v, width, ' ')
}

// spaces pads columns (the widest is 21).
const spaces = "                                "

// appendAddr appends an address as netip.Addr.AppendTo does, IPv4 without
// its general path.
func appendAddr(dst []byte, a netip.Addr) []byte {
	if !a.Is4() {
		return a.AppendTo(dst)
	}
	l := len(dst)
	dst = slices.Grow(dst, 15)
	b := dst[l : l+15]
	n := 0
	for i, o := range a.As4() {
		if i > 0 {
			b[n] = '.'
			n++
		}
		d := int(o%100) * 2
		switch {
		case o >= 100:
			b[n], b[n+1], b[n+2] = '0'+o/100, dissect.Digits2[d], dissect.Digits2[d+1]
			n += 3
		case o >= 10:
			b[n], b[n+1] = dissect.Digits2[d], dissect.Digits2[d+1]
			n += 2
		default:
			b[n] = '0' + o
			n++
		}
	}
	dst = dst[:l+n]
	return dst
}

// nil0 gives a small stack buffer for number formatting.
func nil0() []byte {
	var b [24]byte
	return b[:0]
}

// proto is the Protocol column's sequence for protocol name.
func (s *Style) proto(name string) string {
	for i := range s.protos {
		if s.protos[i].name == name {
			return s.protos[i].seq
		}
	}
	return s.Proto
}

// info is the sequence of a frame's Info, by its findings as Wireshark's
// default rules go by expert severity: an error, else a warning, else a
// note about a retransmission or duplicate (dim), else any note.
func (s *Style) info(f *dissect.Frame) string {
	var sev dissect.Severity
	repeat, isRepeat := "", false
	for i := range f.Findings {
		fd := &f.Findings[i]
		sev = max(sev, fd.Sev)
		if fd.Sev == dissect.Note && !isRepeat {
			abbrev := ""
			if fd.Field != nil {
				abbrev = fd.Field.Abbrev
			}
			repeat, isRepeat = s.repeat(fd.Group, abbrev, fd.Msg)
		}
	}
	if sev >= dissect.Warn || !isRepeat {
		return s.expert(sev)
	}
	return repeat
}

// expert is the sequence of a finding's severity.
func (s *Style) expert(sev dissect.Severity) string {
	switch sev {
	case dissect.Error:
		return s.Error
	case dissect.Warn:
		return s.Warn
	case dissect.Note:
		return s.Note
	}
	return ""
}

// repeat tells whether a finding (its group, field and message) is about
// a retransmission or a duplicate, and that class's sequence.
func (s *Style) repeat(g dissect.Group, field, msg string) (string, bool) {
	if g != dissect.GroupSequence {
		return "", false
	}
	switch {
	case strings.Contains(field, "dup") || strings.Contains(msg, "uplicate"):
		return s.Dup, true
	case strings.Contains(field, "retrans") || strings.Contains(msg, "etransmi"):
		return s.Retrans, true
	}
	return "", false
}

// treeLine is the sequence of a tree's expert line.
func (s *Style) treeLine(sev dissect.Severity, g dissect.Group, field, msg string) string {
	if sev == dissect.Note {
		if seq, ok := s.repeat(g, field, msg); ok {
			return seq
		}
	}
	return s.expert(sev)
}

// appendInfo appends the PDUs' summaries, separated by "; ", then the
// first error or warning, if any.
func appendInfo(dst []byte, f *dissect.Frame) []byte {
	start := len(dst)
	if len(f.PDUs) == 1 && len(f.Findings) == 0 && !f.IsQuoted(0) && !f.TransportLast() {
		// most frames: one PDU's summary is the Info (the loop below
		// would add nothing to it but the cost of its bookkeeping and a
		// Proto call); an empty one takes the loop's way
		if dst = f.PDUs[0].Summary(dst); len(dst) > start {
			return dst
		}
		dst = dst[:start]
	}
	// The loop keeps few values live across its two interface calls (each
	// one spilled and reloaded around both): the index, not a range's
	// pointer and length, and the last PDU printed as one word. Something
	// was printed before (len(dst) > start) exactly when last is set.
	var last *dissect.ProtoInfo
	for i := 0; i < len(f.PDUs); i++ {
		if f.IsQuoted(i) {
			continue // a packet quoted in an ICMP error: tshark's Info shows only the error
		}
		p := f.PDUs[i]
		mark := len(dst)
		pi := p.Proto()
		if last != nil {
			dst = append(dst, "; "...)
			// name the protocol when it changes after something was
			// printed ("...; AFS FS FetchData request")
			if pi != last && last.Abbrev != "" && pi.Abbrev != last.Abbrev {
				if pi.Upper != "" {
					dst = append(dst, pi.Upper...)
				} else { // a ProtoInfo not made by RegisterProto
					dst = appendUpper(dst, pi.Abbrev)
				}
				dst = append(dst, ' ')
			}
		}
		before := len(dst)
		if dst = p.Summary(dst); len(dst) == before {
			dst = dst[:mark] // an empty summary (a jumbogram's later sub-packets, an FPDU that only carries DDP)
			continue
		}
		last = pi
	}
	// A TCP segment nothing above decoded: tshark's Info, whose "[TCP ...]"
	// prefixes already say what the analysis found.
	tcpInfo := (len(dst) == start || f.TransportLast()) && f.Net.HasL4 && f.Net.IPProto == dissect.IPProtoTCP
	if len(dst) > start && f.TransportLast() { // after the InfiniBand packet that carried it (IPoIB)
		dst = append(dst, "; "...)
		dst = appendUpper(dst, f.Proto)
		dst = append(dst, ' ')
		dst = f.AppendTransportInfo(dst)
	} else if tcpInfo {
		dst = f.AppendTransportInfo(dst)
	}
	for i := range f.Findings {
		fd := &f.Findings[i]
		if tcpInfo && dissect.IsTCPAnalysis(fd) {
			continue
		}
		if fd.Sev >= dissect.Warn {
			dst = append(dst, " ["...)
			dst = append(dst, fd.Msg...)
			dst = append(dst, ']')
			break
		}
	}
	if len(dst) == start {
		// nothing above the transport: say what it says (tshark-style),
		// or the first finding (e.g. a fragment held for reassembly)
		dst = f.AppendTransportInfo(dst)
		if len(dst) == start && len(f.Findings) > 0 {
			dst = append(dst, f.Findings[0].Msg...)
		}
	}
	return dst
}

// protoWidth is the Protocol column's width: the longest name
// appendProtoColumn writes ("InfiniBand"); a longer one pushes the line on.
const protoWidth = 10

// appendProtoColumn appends the Protocol column: tshark's name for the
// protocol where rdx's upper-case abbreviation differs from it, and for
// InfiniBand (and its CM) the encapsulation's, as tshark's: "RRoCE" over
// UDP, "RoCE" over Ethernet, "InfiniBand" native.
func appendProtoColumn(dst []byte, f *dissect.Frame) []byte {
	switch f.Proto {
	case "infiniband", "ibcm":
		switch {
		case f.Net.HasL4:
			return append(dst, "RRoCE"...)
		case f.Net.EtherType == 0x8915:
			return append(dst, "RoCE"...)
		}
		return append(dst, "InfiniBand"...)
	case "iwarp_ddp_rdmap":
		return append(dst, "DDP/RDMA"...)
	case "iwarp_mpa":
		return append(dst, "MPA"...)
	case "rpcordma":
		return append(dst, "RPCoRDMA"...)
	case "afs":
		return append(dst, "AFS (RX)"...)
	case "ip":
		return append(dst, "IPv4"...)
	case "ipv6":
		return append(dst, "IPv6"...)
	case "icmpv6":
		return append(dst, "ICMPv6"...)
	case "portmap":
		return append(dst, "Portmap"...)
	}
	return appendUpper(dst, f.Proto)
}

func appendUpper(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func pad(dst []byte, start, width int) []byte {
	if n := len(dst) - start; n < width {
		if width-n <= len(spaces) {
			return append(dst, spaces[:width-n]...)
		}
		for ; n < width; n++ {
			dst = append(dst, ' ')
		}
	}
	return dst
}

func padLeft(dst, s []byte, width int) []byte {
	for n := len(s); n < width; n++ {
		dst = append(dst, ' ')
	}
	return append(dst, s...)
}
