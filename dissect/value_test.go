package dissect

import (
	"net/netip"
	"testing"
)

func TestAppendHexDigits(t *testing.T) {
	for _, c := range []struct {
		v      uint64
		digits int
		want   string
	}{{0, 2, "00"}, {0xab, 2, "ab"}, {0x1abc, 2, "bc"}, {0x1a, 8, "0000001a"}, {^uint64(0), 16, "ffffffffffffffff"}, {5, 0, ""}, {5, -1, ""}, {0x123, 20, "00000000000000000123"}} {
		if got := string(AppendHexDigits([]byte("x"), c.v, c.digits)); got != "x"+c.want {
			t.Errorf("AppendHexDigits(%#x, %d) = %q, want %q", c.v, c.digits, got, "x"+c.want)
		}
	}
}

// TestAppendIPv4: the table writer spells every octet value in every
// position as netip does, after a prefix and at a slice's capacity.
func TestAppendIPv4(t *testing.T) {
	var a [4]byte
	for pos := range 4 {
		for v := range 256 {
			a = [4]byte{1, 22, 133, 4}
			a[pos] = byte(v)
			want := "x=" + netip.AddrFrom4(a).String()
			if got := string(AppendIPv4([]byte("x="), a)); got != want {
				t.Fatalf("%v: %q, want %q", a, got, want)
			}
			dst := make([]byte, 2) // no spare capacity
			copy(dst, "x=")
			if got := string(AppendIPv4(dst, a)); got != want {
				t.Fatalf("%v at capacity: %q, want %q", a, got, want)
			}
		}
	}
	// every mix of one-, two- and three-digit octets: the words of two
	// octets are joined by their lengths
	vals := []byte{0, 7, 10, 99, 100, 255}
	for _, a0 := range vals {
		for _, a1 := range vals {
			for _, a2 := range vals {
				for _, a3 := range vals {
					a := [4]byte{a0, a1, a2, a3}
					if got, want := string(AppendIPv4([]byte("x="), a)), "x="+netip.AddrFrom4(a).String(); got != want {
						t.Fatalf("%v: %q, want %q", a, got, want)
					}
				}
			}
		}
	}
	if got := string(AppendIPv4(nil, [4]byte{255, 255, 255, 255})); got != "255.255.255.255" {
		t.Fatalf("broadcast: %q", got)
	}
}
