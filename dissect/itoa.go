package dissect

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// AppendUint appends v in decimal, the digits strconv.AppendUint(dst, v,
// 10) gives, for the numbers every summary line prints: written in place
// without strconv's copy through a buffer. Unlike append, it may also
// write up to 8 octets of dst's spare capacity past the result (one
// 8-octet store): never append into a slice whose capacity overlaps data
// still wanted (a slot of a shared array: copy from the result instead).
func AppendUint(dst []byte, v uint64) []byte {
	if v < 10 { // small enough to inline: a one-digit number costs no call
		return append(dst, byte('0'+v))
	}
	return appendUint(dst, v)
}

// appendUint is AppendUint from two digits on.
func appendUint(dst []byte, v uint64) []byte {
	if v < 100 {
		return append(dst, Digits2[2*v], Digits2[2*v+1])
	}
	if v < 10000 { // most protocol numbers: without AppendUintWidth's call
		q, r := v/100, v%100*2
		if q < 10 {
			return append(dst, byte('0'+q), Digits2[r], Digits2[r+1])
		}
		return append(dst, Digits2[2*q], Digits2[2*q+1], Digits2[r], Digits2[r+1])
	}
	if v < 1e8 { // AppendUintWidth's store without its column
		// the digits' leading zeros are the low octets that are '0'
		// (v > 0): a count of trailing zero bits, not DecDigits's
		// logarithm and table
		x := digits8(v)
		z := bits.TrailingZeros64(x^0x3030303030303030) &^ 7
		return appendOctets(dst, x>>z, 8-z/8)
	}
	return AppendUintWidth(dst, v, 0, ' ')
}

// AppendUintWidth appends v in decimal right-aligned in width octets, the
// lead filled with pad: ' ' as %*d, '0' as %0*d (render's columns and
// the Time column's decimals). One digit writer for dissect, dissect/ib
// and render: up to eight digits (digits8) and their lead in one 8-octet
// store, no loop over digits; more go through appendUintWide.
func AppendUintWidth(dst []byte, v uint64, width int, pad byte) []byte {
	l := len(dst)
	if v >= 1e8 || uint(width) > 8 || cap(dst)-l < 8 {
		return appendUintWide(dst, v, width, pad)
	}
	n := DecDigits(v)
	w := max(n, width)
	x := digits8(v) >> ((64 - 8*w) & 63) // the last w digits: n, after w-n zeros
	if lead := w - n; lead > 0 && pad != '0' {
		m := uint64(1)<<(8*lead&63) - 1
		x = x&^m | uint64(pad)*0x0101010101010101&m
	}
	// the octets past the column are capacity, written over by what follows
	binary.LittleEndian.PutUint64(dst[l:l+8], x)
	return dst[:l+w]
}

// appendUintWide is AppendUintWidth for more than eight digits or a column
// wider than eight, or without room for the 8-octet store: the lead, then
// the first 1-8 digits, then eight at a time. (No recursion: it would make
// every dst escape to the heap.)
func appendUintWide(dst []byte, v uint64, width int, pad byte) []byte {
	n := DecDigits(v)
	dst = slices.Grow(dst, max(n, width)+8)
	for ; width > n; width-- {
		dst = append(dst, pad)
	}
	g := (n - 1) / 8 // groups of eight after the first
	m := n - 8*g     // the first group's digits
	dst = appendOctets(dst, digits8(v/Pow10[8*g]%1e8)>>(64-8*m), m)
	for g--; g >= 0; g-- {
		dst = appendOctets(dst, digits8(v/Pow10[8*g]%1e8), 8)
	}
	return dst
}

// appendOctets appends the first n (at most 8) octets of x as a
// little-endian store writes them.
func appendOctets(dst []byte, x uint64, n int) []byte {
	l := len(dst)
	dst = slices.Grow(dst, 8)
	binary.LittleEndian.PutUint64(dst[l:l+8], x)
	return dst[:l+n]
}

// digits8 is v (< 1e8) as eight ASCII digits with leading zeros, the first
// in the low octet (the order a little-endian store writes). Each step
// splits every lane of the word in two by a multiply-shift division
// (exact in these ranges; TestDigits8 checks every v): 4+4 digits in
// 32-bit lanes, then 2+2+2+2 in 16-bit lanes, then one per octet.
func digits8(v uint64) uint64 {
	x := v/10000 | v%10000<<32
	q := x * 10486 >> 20 & 0x0000007f0000007f // lane/100
	x = q | (x-q*100)<<16
	q = x * 103 >> 10 & 0x000f000f000f000f // lane/10
	x = q | (x-q*10)<<8
	return x | 0x3030303030303030
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
