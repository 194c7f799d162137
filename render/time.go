package render

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/rdx-project/rdx/dissect"
)

// TimeFormat is the summary's Time column as tshark's -t names it.
type TimeFormat uint8

const (
	TimeRelative       TimeFormat = iota // r: since the first frame (the default)
	TimeAbsolute                         // a: local time of day
	TimeAbsoluteDate                     // ad: local date and time
	TimeAbsoluteDOY                      // adoy: local year/day-of-year and time
	TimeDelta                            // d: since the previous captured frame
	TimeDeltaDisplayed                   // dd: since the previous displayed frame
	TimeEpoch                            // e: seconds since 1970
	TimeUTC                              // u: UTC time of day
	TimeUTCDate                          // ud: UTC date and time
	TimeUTCDOY                           // udoy: UTC year/day-of-year and time
)

var timeFormatNames = [...]string{"r", "a", "ad", "adoy", "d", "dd", "e", "u", "ud", "udoy"}

// ParseTimeFormat reads -t's value; "" is the default, r.
func ParseTimeFormat(s string) (TimeFormat, error) {
	if s == "" {
		return TimeRelative, nil
	}
	for i, n := range timeFormatNames {
		if n == s {
			return TimeFormat(i), nil
		}
	}
	return 0, fmt.Errorf("-t %s: want a, ad, adoy, d, dd, e, r, u, ud or udoy", s)
}

// Clock writes the Time column: the format (-t), seconds as h/m/s (-u hms),
// the decimals, and the times the relative formats count from.
type Clock struct {
	Format TimeFormat
	HMS    bool // -u hms: relative and delta times as 1h 2m 3.000000s
	// Digits is the decimals: the capture's timestamp precision, as
	// tshark's automatic precision (6 for microsecond files, 9 for
	// nanosecond ones); 0 is 6.
	Digits int
	// First is the first frame's time, Prev the previous captured frame's,
	// Shown the previous displayed frame's (the frame's own for the first).
	First, Prev, Shown int64

	rel relText // the default column's text but its last four digits
}

// relText is a relative Time column's text less its last four digits (its
// prefix: the seconds and the decimals before them), for the frames after
// it: a capture's times mostly differ only there (frames closer than
// 10 µs apart at nanoseconds, 10 ms at microseconds), and writing the
// prefix costs as much as the rest of the line's numbers.
type relText struct {
	key    uint64 // the column's value (in its last decimal) / 1e4, plus 1 (0: none)
	digits int    // the decimals the text has
	n      int    // the prefix's length
	text   [32]byte
}

// Append appends the column for a frame captured at ns (Unix nanoseconds).
func (c *Clock) Append(dst []byte, ns int64) []byte {
	if c.Format == TimeRelative && !c.HMS { // the default: small enough to inline, straight to the digits
		return c.appendRel(dst, ns-c.First)
	}
	return c.append(dst, ns)
}

// appendRel appends the default column, ns seconds with c's decimals,
// from the prefix of the frame before when it is the same.
func (c *Clock) appendRel(dst []byte, ns int64) []byte {
	digits := c.digits()
	if ns < 0 || ns >= 1e17 || digits < 4 { // out of order, or a text relText may not hold
		return appendFixed(dst, ns, digits)
	}
	v := relValue(ns, digits)
	r := &c.rel
	if key := v/1e4 + 1; key != r.key || digits != r.digits {
		r.fill(ns, digits, key)
	}
	return r.append(dst, v)
}

// fill makes r the prefix of ns's column (0 <= ns < 1e17, digits 4 to 9),
// whose key is key.
func (r *relText) fill(ns int64, digits int, key uint64) {
	// at most 8+1+9 octets, and the digit writer's 8 of room after
	t := appendFixed(r.text[:0], ns, digits)
	r.key, r.digits, r.n = key, digits, len(t)-4
}

// digits4 is v (< 1e4) as four ASCII digits, the first in the low octet
// (the order a little-endian store writes).
func digits4(v uint64) uint32 {
	hi, lo := v/100%100*2, v%100*2
	return uint32(dissect.Digits2[hi]) | uint32(dissect.Digits2[hi+1])<<8 | uint32(dissect.Digits2[lo])<<16 | uint32(dissect.Digits2[lo+1])<<24
}

// relValue is ns (not negative) in the relative column's last decimal,
// with digits (1 to 9) decimals.
func relValue(ns int64, digits int) uint64 {
	switch digits {
	case 9:
		return uint64(ns)
	case 6: // a constant divisor: no division instruction
		return uint64(ns) / 1e3
	}
	return uint64(ns) / dissect.Pow10[(9-digits)&15]
}

// append appends the column: r's prefix, then v's last four digits.
func (r *relText) append(dst []byte, v uint64) []byte {
	l := len(dst)
	dst = slices.Grow(dst, len(r.text))
	*(*[len(r.text)]byte)(dst[l : l+len(r.text)]) = r.text
	binary.LittleEndian.PutUint32(dst[l+r.n:l+r.n+4], digits4(v%1e4))
	return dst[:l+r.n+4]
}

// digits is the number of decimals: Digits, or 6 when it is not 1 to 9.
func (c *Clock) digits() int {
	if c.Digits <= 0 || c.Digits > 9 {
		return 6
	}
	return c.Digits
}

// append is Append for every format.
func (c *Clock) append(dst []byte, ns int64) []byte {
	digits := c.digits()
	switch c.Format {
	case TimeRelative:
		return c.appendSpan(dst, ns-c.First, digits)
	case TimeDelta:
		return c.appendSpan(dst, ns-c.Prev, digits)
	case TimeDeltaDisplayed:
		return c.appendSpan(dst, ns-c.Shown, digits)
	case TimeEpoch:
		return appendFixed(dst, ns, digits)
	}
	t := time.Unix(0, ns)
	if c.Format >= TimeUTC {
		t = t.UTC()
	} else {
		t = t.Local()
	}
	year, month, day := t.Date()
	switch c.Format {
	case TimeAbsoluteDate, TimeUTCDate:
		dst = appendUintPad0(dst, uint64(year), 4)
		dst = append(dst, '-')
		dst = appendUintPad0(dst, uint64(month), 2)
		dst = append(dst, '-')
		dst = appendUintPad0(dst, uint64(day), 2)
		dst = append(dst, ' ')
	case TimeAbsoluteDOY, TimeUTCDOY:
		dst = appendUintPad0(dst, uint64(year), 4)
		dst = append(dst, '/')
		dst = appendUintPad0(dst, uint64(t.YearDay()), 3)
		dst = append(dst, ' ')
	}
	h, m, s := t.Clock()
	dst = appendUintPad0(dst, uint64(h), 2)
	dst = append(dst, ':')
	dst = appendUintPad0(dst, uint64(m), 2)
	dst = append(dst, ':')
	dst = appendUintPad0(dst, uint64(s), 2)
	return appendFrac(dst, uint64(t.Nanosecond()), digits)
}

// appendSpan appends a relative or delta time: seconds, or with -u hms
// "1h  2m  3.000000s" as tshark prints it (minutes and seconds after a
// larger unit padded to two columns with spaces, leading zero units left
// out).
func (c *Clock) appendSpan(dst []byte, ns int64, digits int) []byte {
	if !c.HMS {
		return appendFixed(dst, ns, digits)
	}
	if ns < 0 {
		dst = append(dst, "- "...) // tshark's sign for h/m/s
		ns = -ns
	}
	secs := uint64(ns) / 1e9
	h, m, s := secs/3600, secs/60%60, secs%60
	switch {
	case h > 0:
		dst = appendUintPad(dst, h, 0)
		dst = append(dst, "h "...)
		dst = appendUintPad(dst, m, 2)
		dst = append(dst, "m "...)
		dst = appendUintPad(dst, s, 2)
	case m > 0:
		dst = appendUintPad(dst, m, 0)
		dst = append(dst, "m "...)
		dst = appendUintPad(dst, s, 2)
	default:
		dst = appendUintPad(dst, s, 0)
	}
	dst = appendFrac(dst, uint64(ns)%1e9, digits)
	return append(dst, 's')
}

// appendFixed appends ns as seconds with digits decimals, truncated as
// tshark truncates (it does not round the column).
func appendFixed(dst []byte, ns int64, digits int) []byte {
	u := uint64(ns)
	if ns < 0 {
		dst = append(dst, '-')
		u = uint64(-ns)
	}
	dst = dissect.AppendUint(dst, u/1e9) // mostly one digit: no call
	return appendFrac(dst, u%1e9, digits)
}

// appendFrac appends "." and the first digits decimals of frac nanoseconds.
func appendFrac(dst []byte, frac uint64, digits int) []byte {
	dst = append(dst, '.')
	if digits == 9 { // nanoseconds: the first decimal, then the eight AppendUintWidth writes at once
		return appendUintPad0(append(dst, byte('0'+frac/1e8)), frac%1e8, 8)
	}
	return appendUintPad0(dst, frac/dissect.Pow10[9-digits], digits) // dissect.Pow10[9-digits] cuts to digits decimals
}

// appendUintPad0 appends v with leading zeros to width digits.
func appendUintPad0(dst []byte, v uint64, width int) []byte {
	return dissect.AppendUintWidth(dst, v, width, '0')
}
