package inet

import "testing"

// RFC 1071 §3's example: the words 0001 f203 f4f5 f6f7 sum to 0x2ddf0,
// which folds to 0xddf2.
func TestRFC1071(t *testing.T) {
	b := []byte{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7}
	if s := Sum(0, b); s != 0x2ddf0 {
		t.Errorf("sum %#x", s)
	}
	if f := Fold(Sum(0, b)); f != 0xddf2 {
		t.Errorf("fold %#x", f)
	}
	// An IPv4 header with its checksum filled in sums to 0xffff.
	h := []byte{0x45, 0, 0, 0x1c, 0, 1, 0, 0, 64, 17, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2}
	c := Checksum(h)
	h[10], h[11] = byte(c>>8), byte(c)
	if Fold(Sum(0, h)) != 0xffff {
		t.Errorf("header with checksum %#04x does not verify", c)
	}
	if Sum(0, []byte{0xab}) != 0xab00 {
		t.Error("odd octet not padded")
	}
}
