package dissect

import "testing"

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
