// Package render turns dissected frames into text: tshark-style summary lines,
// the verbose tree, hex dumps, JSON and field columns. It never parses packet
// bytes; it only formats what the dissectors found.
package render

import (
	"math/bits"
	"net/netip"
	"slices"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// Style holds the escape sequences for colour output (all empty without colour).
type Style struct {
	Error, Warn, Note, Proto, Reset string
}

// Colors is the style used when colour is on.
var Colors = Style{Error: "\x1b[31m", Warn: "\x1b[33m", Note: "\x1b[36m", Proto: "\x1b[1m", Reset: "\x1b[0m"}

// Summary appends a tshark-like one-line summary of f: number, time since the
// first frame, source, destination, protocol, length, info.
func Summary(dst []byte, f *dissect.Frame, first int64, st *Style) []byte {
	c := Clock{First: first}
	return SummaryClock(dst, f, &c, st, nil)
}

// AddrCache holds the formatted address columns of recent IPv4 endpoints
// for SummaryCached: a capture's frames mostly repeat a few, and writing one
// costs a summary line some 300 instructions. Not safe for concurrent use:
// one per goroutine that renders.
type AddrCache struct {
	slots [addrCacheSize]addrSlot
}

// addrCacheSize is the number of endpoints AddrCache holds (a power of two).
const addrCacheSize = 256

type addrSlot struct {
	key  uint64   // 1<<63 | IPv4 address<<17 | port<<1 | has a port; 0: empty
	text [21]byte // the column as Summary writes it, padded to 21
}

// SummaryClock is Summary with the Time column written by c (-t, -u) and
// the address columns taken from ac when it holds them (ac may be nil).
func SummaryClock(dst []byte, f *dissect.Frame, c *Clock, st *Style, ac *AddrCache) []byte {
	// One line is rarely longer than this: room for it once, not per append.
	dst = slices.Grow(dst, 192)
	dst = appendUintPad(dst, f.Num, 6)
	dst = append(dst, ' ')
	dst = c.Append(dst, f.TimeNS)
	dst = append(dst, ' ')
	n := &f.Net
	if n.HasIP {
		dst = ac.appendEndpoint(dst, n.Src, n.SrcPort, n.HasL4)
		dst = append(dst, " → "...)
		dst = ac.appendEndpoint(dst, n.Dst, n.DstPort, n.HasL4)
	} else {
		dst = append(dst, "-                     → -                    "...)
	}
	dst = append(dst, ' ')
	sev := worst(f)
	if st != nil && st.Proto != "" {
		dst = append(dst, st.Proto...)
	}
	start := len(dst)
	dst = appendUpper(dst, f.Proto)
	dst = pad(dst, start, 5)
	if st != nil && st.Proto != "" {
		dst = append(dst, st.Reset...)
	}
	dst = append(dst, ' ')
	if f.WireLen >= 0 {
		dst = appendUintPad(dst, uint64(f.WireLen), 5)
	} else {
		dst = padLeft(dst, strconv.AppendInt(nil0(), int64(f.WireLen), 10), 5)
	}
	dst = append(dst, ' ')
	if st != nil && sev != 0 {
		dst = append(dst, st.color(sev)...)
	}
	dst = appendInfo(dst, f)
	if st != nil && sev != 0 {
		dst = append(dst, st.Reset...)
	}
	return append(dst, '\n')
}

// appendEndpoint appends an address column: the address, ":port" with a
// transport header, padded to 21 columns. An IPv4 column is then exactly 21
// octets ("255.255.255.255:65535" is the longest), which c keeps.
func (c *AddrCache) appendEndpoint(dst []byte, a netip.Addr, port uint16, l4 bool) []byte {
	if c == nil || !a.Is4() {
		return appendEndpoint(dst, a, port, l4)
	}
	b := a.As4()
	k := 1<<63 | uint64(b[0])<<41 | uint64(b[1])<<33 | uint64(b[2])<<25 | uint64(b[3])<<17 | uint64(port)<<1
	if l4 {
		k |= 1
	}
	s := &c.slots[(k*0x9e3779b97f4a7c15)>>(64-8)] // 8 bits: addrCacheSize
	if s.key != k {
		if col := appendEndpoint(s.text[:0], a, port, l4); len(col) != len(s.text) {
			s.key = 0
			return append(dst, col...) // cannot happen (see above); not cached then
		}
		s.key = k
	}
	return append(dst, s.text[:]...)
}

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
	n := decDigits(v)
	w := max(n, width)
	l := len(dst)
	dst = slices.Grow(dst, w)[:l+w]
	b := dst[l:]
	for i := range w - n {
		b[i] = ' '
	}
	i := w
	for v >= 100 {
		q := v / 100
		d := (v - q*100) * 2
		b[i-2], b[i-1] = digits2[d], digits2[d+1]
		i -= 2
		v = q
	}
	if v >= 10 {
		b[i-2], b[i-1] = digits2[2*v], digits2[2*v+1]
	} else {
		b[i-1] = byte('0' + v)
	}
	return dst
}

// pow10 holds 10^i for decDigits.
var pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19}

// decDigits is the number of decimal digits of v without a loop:
// bits.Len64*1233>>12 is floor(log10) of v's power of two, one too many
// below the next power of ten.
func decDigits(v uint64) int {
	t := bits.Len64(v|1) * 1233 >> 12
	if v|1 < pow10[t] { // |1: 0 has one digit
		return t
	}
	return t + 1
}

const digits2 = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

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
			b[n], b[n+1], b[n+2] = '0'+o/100, digits2[d], digits2[d+1]
			n += 3
		case o >= 10:
			b[n], b[n+1] = digits2[d], digits2[d+1]
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

func (s *Style) color(sev dissect.Severity) string {
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

func worst(f *dissect.Frame) dissect.Severity {
	var w dissect.Severity
	for i := range f.Findings {
		if s := f.Findings[i].Sev; s > w && s != dissect.Note {
			w = s
		}
	}
	return w
}

// appendInfo appends the PDUs' summaries, separated by "; ", then the
// first error or warning, if any.
func appendInfo(dst []byte, f *dissect.Frame) []byte {
	start := len(dst)
	var last string
	for i, p := range f.PDUs {
		if f.IsQuoted(i) {
			continue // a packet quoted in an ICMP error: tshark's Info shows only the error
		}
		mark := len(dst)
		if mark > start {
			dst = append(dst, "; "...)
		}
		// name the protocol when it changes after something was printed
		// ("...; AFS FS FetchData request")
		pi := p.Proto()
		a := pi.Abbrev
		if a != last && last != "" {
			if pi.Upper != "" {
				dst = append(dst, pi.Upper...)
			} else { // a ProtoInfo not made by RegisterProto
				dst = appendUpper(dst, a)
			}
			dst = append(dst, ' ')
		}
		before := len(dst)
		dst = p.Summary(dst)
		if len(dst) == before {
			dst = dst[:mark] // an empty summary (a jumbogram's later sub-packets, an FPDU that only carries DDP)
			continue
		}
		last = a
	}
	for i := range f.Findings {
		fd := &f.Findings[i]
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
