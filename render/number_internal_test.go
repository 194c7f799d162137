package render

import (
	"math"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

// The summary's own number and address formatting must write exactly what
// strconv and netip write (the goldens depend on every column).
func TestSummaryNumbersAsStrconv(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	vals := []uint64{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535, 1e6 - 1, 1e6, math.MaxUint32, math.MaxUint64}
	for i := 0; i < 20000; i++ {
		vals = append(vals, rnd.Uint64()>>rnd.IntN(64))
	}
	for _, v := range vals {
		for _, w := range []int{0, 5, 6} {
			s := strconv.FormatUint(v, 10)
			if len(s) < w {
				s = strings.Repeat(" ", w-len(s)) + s
			}
			if got := string(appendUintPad([]byte("x"), v, w)); got != "x"+s {
				t.Fatalf("appendUintPad(%d, %d) = %q, want %q", v, w, got, "x"+s)
			}
		}
	}
	// The Time column (-t r, e, d): seconds with 6 or 9 decimals,
	// truncated as tshark's columns are.
	slow := func(ns int64, digits int) string {
		b := []byte{}
		u := uint64(ns)
		if ns < 0 {
			b = append(b, '-')
			u = uint64(-ns)
		}
		b = strconv.AppendUint(b, u/1e9, 10)
		frac := strconv.FormatUint(u%1e9+1e9, 10)[1:] // 9 digits with leading zeros
		return string(append(append(b, '.'), frac[:digits]...))
	}
	check := func(ns int64) {
		for _, d := range []int{6, 9} {
			c := Clock{Format: TimeEpoch, Digits: d}
			if got, want := string(c.Append(nil, ns)), slow(ns, d); got != want {
				t.Fatalf("Clock.Append(%d, %d digits) = %q, want %q", ns, d, got, want)
			}
		}
	}
	for _, ns := range []int64{0, 499, 500, 999_999_499, 999_999_500, 1e9, -1, -500, -501, math.MaxInt64 - 1000, 1_700_000_000_123_456_789} {
		check(ns)
	}
	for i := 0; i < 20000; i++ {
		ns := int64(rnd.Uint64() >> rnd.IntN(64))
		if i%2 == 1 {
			ns = -ns
		}
		check(ns)
	}
	addrs := []netip.Addr{{}, netip.MustParseAddr("0.0.0.0"), netip.MustParseAddr("255.255.255.255"),
		netip.MustParseAddr("192.0.2.10"), netip.MustParseAddr("::ffff:192.0.2.1"), netip.MustParseAddr("2001:db8::1")}
	for i := 0; i < 2000; i++ {
		addrs = append(addrs, netip.AddrFrom4([4]byte{byte(rnd.Uint32()), byte(rnd.Uint32()), byte(rnd.Uint32()), byte(rnd.Uint32())}))
	}
	for _, a := range addrs {
		if got, want := string(appendAddr(nil, a)), string(a.AppendTo(nil)); got != want {
			t.Fatalf("appendAddr(%v) = %q, want %q", a, got, want)
		}
	}
	for _, w := range []int{0, 3, 21, 40} {
		for n := 0; n < 45; n++ {
			b := []byte(strings.Repeat("a", n))
			want := string(b)
			if n < w {
				want += strings.Repeat(" ", w-n)
			}
			if got := string(pad(b, 0, w)); got != want {
				t.Fatalf("pad(%d, %d) = %q", n, w, got)
			}
		}
	}
}

// TestAppendNumSteps: the No. column of frame numbers that go up by 1 to
// 12 (a -j worker's frames: the cached text counted up by the step, up to
// numStep), jump, go back and cross a power of ten is strconv's, padded to
// 6, and a space.
func TestAppendNumSteps(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	var c SummaryCache
	v := uint64(0)
	for i := 0; i < 200000; i++ {
		switch r := rnd.IntN(1000); {
		case r == 0:
			v = rnd.Uint64N(1e8 + 10) // a jump, past 1e8 too
		case r == 1 && v > 20:
			v -= rnd.Uint64N(20) // back (a second pass)
		case r < 5:
			v = []uint64{95, 999_990, 9_999_991, 99_999_995}[rnd.IntN(4)] // about to need another digit
		default:
			v += 1 + rnd.Uint64N(12)
		}
		s := strconv.FormatUint(v, 10)
		if len(s) < 6 {
			s = strings.Repeat(" ", 6-len(s)) + s
		}
		last := c.num
		if got := string(c.appendNum([]byte("x"), v)); got != "x"+s+" " {
			t.Fatalf("frame %d after %d: %q, want %q", v, last, got, "x"+s+" ")
		}
	}
}
