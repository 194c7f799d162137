package dissect

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/bits"
	"net/netip"
	"slices"
	"strconv"
	"time"
)

// raw is the node's integer value with the field's mask applied.
func (n *Node) raw() uint64 {
	v := n.U
	if n.F != nil && n.F.Mask != 0 {
		v = (v & n.F.Mask) >> bits.TrailingZeros64(n.F.Mask)
	}
	return v
}

// Value returns the node's integer value (masked for bit fields).
func (n *Node) Value() uint64 { return n.raw() }

// AppendField appends the node's value as `tshark -T fields` prints it: integers
// in the field's base (hex zero-padded to the field's width), booleans as 1/0,
// bytes as plain hex, times as tshark spells them. Like AppendUint (which
// writes its decimal integers) and AppendIPv4, it may write spare capacity
// past the result.
func AppendField(dst []byte, n *Node) []byte {
	f := n.F
	if f == nil {
		return append(dst, n.Label...)
	}
	switch f.Type {
	case TBool:
		if n.raw() != 0 {
			return append(dst, '1')
		}
		return append(dst, '0')
	case TUint8, TUint16, TUint24, TUint32, TUint64:
		if f.Base == BaseHex || f.Base == BaseHexDec {
			return appendHex(dst, n.raw(), f.Type.width())
		}
		return AppendUint(dst, n.raw())
	case TInt16:
		return strconv.AppendInt(dst, int64(int16(n.U)), 10)
	case TInt32:
		return strconv.AppendInt(dst, int64(int32(n.U)), 10)
	case TInt64:
		return strconv.AppendInt(dst, int64(n.U), 10)
	case TFrameNum:
		return AppendUint(dst, n.U)
	case TString:
		return append(dst, n.S...)
	case TBytes:
		return hex.AppendEncode(dst, n.B)
	case TIPv4, TIPv6:
		return appendAddr(dst, n.B)
	case TEther:
		return appendMAC(dst, n.B)
	case TAbsTime:
		return AppendAbsTime(dst, int64(n.U))
	case TRelTime:
		return AppendRelTime(dst, int64(n.U))
	case TFloat:
		return strconv.AppendFloat(dst, math.Float64frombits(n.U), 'g', -1, 64)
	case TProtocol, TNone:
		return dst
	}
	return dst
}

// AppendDisplay appends the node's line as the verbose tree shows it
// ("Name: value"), without indentation or the trailing annotation.
func AppendDisplay(dst []byte, n *Node) []byte {
	f := n.F
	if f == nil {
		return append(dst, n.Label...)
	}
	if n.IsExpert() {
		sev, g, _, msg := n.ExpertParts()
		dst = append(dst, "Expert Info ("...)
		dst = append(dst, sev.String()...)
		dst = append(dst, '/')
		dst = append(dst, g.String()...)
		dst = append(dst, "): "...)
		return append(dst, msg...)
	}
	if f.Type == TProtocol {
		dst = append(dst, f.Name...)
		if n.Label != "" {
			if f.Abbrev == "frame" {
				return append(dst[:len(dst)-len(f.Name)], append([]byte("Frame "), n.Label...)...)
			}
			dst = append(dst, ", "...)
			dst = append(dst, n.Label...)
		}
		return dst
	}
	if f.Mask != 0 && f.Bits > 0 {
		dst = appendBitPattern(dst, n.U, f.Mask, f.Bits)
		dst = append(dst, " = "...)
	}
	dst = append(dst, f.Name...)
	if f.Type == TNone {
		if n.Label != "" {
			dst = append(dst, ": "...)
			dst = append(dst, n.Label...)
		}
		return dst
	}
	dst = append(dst, ": "...)
	if n.Label != "" {
		return append(dst, n.Label...)
	}
	switch f.Type {
	case TBool:
		if n.raw() != 0 {
			return append(dst, "True"...)
		}
		return append(dst, "False"...)
	case TUint8, TUint16, TUint24, TUint32, TUint64, TInt16, TInt32, TInt64:
		v := n.raw()
		if f.Names != nil {
			if name, ok := f.Names[v]; ok {
				dst = append(dst, name...)
			} else {
				dst = append(dst, "Unknown"...)
			}
			dst = append(dst, " ("...)
			dst = appendNum(dst, n, v)
			return append(dst, ')')
		}
		return appendNum(dst, n, v)
	case TBytes:
		if len(n.B) == 0 {
			return append(dst, "<MISSING>"...)
		}
		return hex.AppendEncode(dst, n.B)
	case TAbsTime:
		return AppendAbsTime(dst, int64(n.U))
	case TRelTime:
		dst = AppendRelTime(dst, int64(n.U))
		return append(dst, " seconds"...)
	}
	return AppendField(dst, n)
}

func appendNum(dst []byte, n *Node, v uint64) []byte {
	f := n.F
	switch {
	case f.Type == TInt16:
		return strconv.AppendInt(dst, int64(int16(n.U)), 10)
	case f.Type == TInt32:
		return strconv.AppendInt(dst, int64(int32(n.U)), 10)
	case f.Type == TInt64:
		return strconv.AppendInt(dst, int64(n.U), 10)
	case f.Base == BaseHex:
		return appendHex(dst, v, f.Type.width())
	case f.Base == BaseHexDec:
		dst = appendHex(dst, v, f.Type.width())
		dst = append(dst, " ("...)
		dst = strconv.AppendUint(dst, v, 10)
		return append(dst, ')')
	case f.Base == BaseOct && v != 0:
		return strconv.AppendUint(append(dst, '0'), v, 8)
	case f.Base == BaseDecHex:
		dst = strconv.AppendUint(dst, v, 10)
		dst = append(dst, " ("...)
		dst = appendHex(dst, v, f.Type.width())
		return append(dst, ')')
	}
	return strconv.AppendUint(dst, v, 10)
}

const hexDigits = "0123456789abcdef"

// AppendHexDigits appends v as exactly digits lowercase hex digits (no 0x),
// the low ones when v is wider.
func AppendHexDigits(dst []byte, v uint64, digits int) []byte {
	if digits <= 0 {
		return dst
	}
	if digits == 8 { // XIDs, keys, handles
		return AppendHex8(dst, uint32(v))
	}
	// Grown once and written in place, lowest digit last: an append per
	// digit checked the capacity each time (summary lines carry several
	// QPs, XIDs and handles).
	l := len(dst)
	dst = slices.Grow(dst, digits)[:l+digits]
	b := dst[l:]
	for i := digits - 1; i >= 0; i-- {
		b[i] = hexDigits[v&0xf]
		v >>= 4
	}
	return dst
}

func appendHex(dst []byte, v uint64, width int) []byte {
	dst = append(dst, '0', 'x')
	digits := width * 2
	if digits == 0 {
		digits = 1
	}
	for d := 16; d > 0; d-- {
		if d > digits && v>>(uint(d-1)*4) == 0 {
			continue
		}
		dst = append(dst, hexDigits[(v>>(uint(d-1)*4))&0xf])
	}
	return dst
}

// appendBitPattern appends Wireshark's ".... .1.." rendering of mask in a
// value of width bits.
func appendBitPattern(dst []byte, v, mask uint64, width int) []byte {
	for i := width - 1; i >= 0; i-- {
		bit := uint64(1) << uint(i)
		switch {
		case mask&bit == 0:
			dst = append(dst, '.')
		case v&bit != 0:
			dst = append(dst, '1')
		default:
			dst = append(dst, '0')
		}
		if i%4 == 0 && i > 0 {
			dst = append(dst, ' ')
		}
	}
	return dst
}

func appendAddr(dst []byte, b []byte) []byte {
	switch len(b) {
	case 4:
		return AppendIPv4(dst, [4]byte(b))
	case 16:
		return netip.AddrFrom16([16]byte(b)).AppendTo(dst)
	}
	return dst
}

// octetDot is each octet's decimal digits and a dot, little-endian in a
// word, and octetLen their count: AppendIPv4's tables.
var octetDot, octetLen = func() (t [256]uint32, n [256]uint8) {
	for v := range t {
		d := append(strconv.AppendUint(nil, uint64(v), 10), '.')
		var w [4]byte
		copy(w[:], d)
		t[v], n[v] = binary.LittleEndian.Uint32(w[:]), uint8(len(d))
	}
	return t, n
}()

// AppendIPv4 appends a as dotted decimal, as netip.Addr.AppendTo does: a
// table word an octet instead of a division a digit (-T fields ip.src),
// two octets joined in a register and stored at once. Like AppendUint, it
// may write spare capacity past the result.
func AppendIPv4(dst []byte, a [4]byte) []byte {
	l := len(dst)
	dst = slices.Grow(dst, 16)[:l+16] // "255.255.255.255." at most
	p := (*[16]byte)(dst[l:])
	n0, n1, n2, n3 := uint(octetLen[a[0]]), uint(octetLen[a[1]]), uint(octetLen[a[2]]), uint(octetLen[a[3]])
	// each word holds its octet's text in its low n octets, zeros above
	binary.LittleEndian.PutUint64(p[:8], uint64(octetDot[a[0]])|uint64(octetDot[a[1]])<<(8*n0))
	m := n0 + n1 // 4 to 8
	binary.LittleEndian.PutUint64(p[m:m+8], uint64(octetDot[a[2]])|uint64(octetDot[a[3]])<<(8*n2))
	return dst[:l+int(n0+n1+n2+n3)-1] // without the last dot
}

func appendMAC(dst []byte, b []byte) []byte { return AppendHexBytes(dst, b, ':') }

// AppendHexBytes appends b as lower-case hex, two digits an octet, with sep
// between octets (0: none): MAC addresses as "52:54:00:00:01:01".
func AppendHexBytes(dst, b []byte, sep byte) []byte {
	for i, c := range b {
		if i > 0 && sep != 0 {
			dst = append(dst, sep)
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return dst
}

// AppendAbsTime appends a Unix time in ns as tshark prints absolute times
// ("Sep  3, 2071 00:28:26.000000000 UTC"); rdx always shows UTC.
func AppendAbsTime(dst []byte, ns int64) []byte {
	return time.Unix(0, ns).UTC().AppendFormat(dst, "Jan _2, 2006 15:04:05.000000000 UTC")
}

// AppendRelTime appends a duration in ns as seconds with 9 decimals.
func AppendRelTime(dst []byte, ns int64) []byte {
	if ns < 0 {
		dst = append(dst, '-')
		ns = -ns
	}
	dst = strconv.AppendInt(dst, ns/1e9, 10)
	dst = append(dst, '.')
	frac := ns % 1e9
	for d := int64(1e8); d > 0; d /= 10 {
		dst = append(dst, byte('0'+frac/d%10))
	}
	return dst
}
