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
	slow := func(ns int64) string { // the formatting appendSeconds had
		b := []byte{}
		if ns < 0 {
			b = append(b, '-')
			ns = -ns
		}
		us := (ns + 500) / 1000
		b = strconv.AppendInt(b, us/1e6, 10)
		b = append(b, '.')
		frac := us % 1e6
		for d := int64(1e5); d > 0; d /= 10 {
			b = append(b, byte('0'+frac/d%10))
		}
		return string(b)
	}
	for _, ns := range []int64{0, 499, 500, 999_999_499, 999_999_500, 1e9, -1, -500, -501, math.MaxInt64 - 1000, 1_700_000_000_123_456_789} {
		if got, want := string(appendSeconds(nil, ns)), slow(ns); got != want {
			t.Fatalf("appendSeconds(%d) = %q, want %q", ns, got, want)
		}
	}
	for i := 0; i < 20000; i++ {
		ns := int64(rnd.Uint64() >> rnd.IntN(64))
		if i%2 == 1 {
			ns = -ns
		}
		if got, want := string(appendSeconds(nil, ns)), slow(ns); got != want {
			t.Fatalf("appendSeconds(%d) = %q, want %q", ns, got, want)
		}
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
