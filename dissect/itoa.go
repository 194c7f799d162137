package dissect

import (
	"math/bits"
	"slices"
)

// AppendUint appends v in decimal, exactly as strconv.AppendUint(dst, v,
// 10) does, for the numbers every summary line prints: the digits written
// in place, two at a time, without strconv's copy through a buffer.
func AppendUint(dst []byte, v uint64) []byte {
	if v < 10 {
		return append(dst, byte('0'+v))
	}
	if v < 100 {
		return append(dst, Digits2[2*v], Digits2[2*v+1])
	}
	return AppendUintWidth(dst, v, 0, ' ')
}

// AppendUintWidth appends v in decimal right-aligned in width octets, the
// lead filled with pad: ' ' as %*d, '0' as %0*d (render's columns and
// the Time column's decimals). One digit writer for dissect, dissect/ib
// and render.
func AppendUintWidth(dst []byte, v uint64, width int, pad byte) []byte {
	n := DecDigits(v)
	w := max(n, width)
	l := len(dst)
	dst = slices.Grow(dst, w)[:l+w]
	b := dst[l:]
	i := w
	for j := range w - n {
		b[j] = pad
	}
	for v >= 100 {
		q := v / 100
		d := (v - q*100) * 2
		b[i-2], b[i-1] = Digits2[d], Digits2[d+1]
		i -= 2
		v = q
	}
	if v >= 10 {
		b[i-2], b[i-1] = Digits2[2*v], Digits2[2*v+1]
	} else {
		b[i-1] = byte('0' + v)
	}
	return dst
}

// Pow10 holds 10^i (DecDigits; render cuts decimals with it). Read only.
var Pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19}

// DecDigits is the number of decimal digits of v without a loop:
// bits.Len64*1233>>12 is floor(log10) of v's power of two, one too many
// below the next power of ten (|1: 0 has one digit).
func DecDigits(v uint64) int {
	t := bits.Len64(v|1) * 1233 >> 12
	if v|1 < Pow10[t] {
		return t
	}
	return t + 1
}

// Digits2 holds "00" to "99", two decimal digits at a time.
const Digits2 = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"
