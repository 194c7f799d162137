package dissect

import (
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestHex8 holds Hex8 and AppendHex8 to strconv's %08x on the edges of
// every digit (9/a, f/0 carries) and on random values.
func TestHex8(t *testing.T) {
	vals := []uint32{0, 1, 9, 10, 15, 16, 0x99999999, 0xaaaaaaaa, 0xffffffff, 0x5e000001, 0x3f21cd2a, 0x0a0b0c0d, 0x12345678, 0x9abcdef0}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		vals = append(vals, r.Uint32())
	}
	for _, v := range vals {
		s := strconv.FormatUint(uint64(v), 16)
		want := "00000000"[len(s):] + s
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], Hex8(v))
		if string(b[:]) != want {
			t.Fatalf("Hex8(%#x) = %q, want %q", v, b[:], want)
		}
		if got := string(AppendHex8([]byte("x"), v)); got != "x"+want {
			t.Fatalf("AppendHex8(%#x) = %q, want %q", v, got, "x"+want)
		}
		if got := string(AppendHexDigits(nil, uint64(v)|0xabc<<32, 8)); got != want {
			t.Fatalf("AppendHexDigits(%#x, 8) = %q, want %q", v, got, want)
		}
	}
}

// TestAppendHex holds AppendHex to strconv.AppendUint(dst, v, 16) on zero,
// every power of 16 and its neighbours, and random values of every length.
func TestAppendHex(t *testing.T) {
	vals := []uint64{0, 1, 15, 0x7f0000100000, ^uint64(0)}
	for i := range 16 {
		p := uint64(1) << (4 * i)
		vals = append(vals, p-1, p, p+1, p*0xa)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		vals = append(vals, r.Uint64()>>r.UintN(64))
	}
	for _, v := range vals {
		want := strconv.AppendUint([]byte("x"), v, 16)
		if got := AppendHex([]byte("x"), v); string(got) != string(want) {
			t.Fatalf("AppendHex(%#x) = %q, want %q", v, got, want)
		}
	}
}
