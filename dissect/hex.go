package dissect

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// Hex8 is v's eight lower-case hex digits in ASCII, the first digit in the
// top octet (binary.BigEndian.PutUint64 writes them in order). The
// nibbles are spread one per octet and '0' (or 'a'-10 for 10-15) added to
// all eight at once: a summary line carries several XIDs, QPs and keys,
// and a loop per digit cost about four times as much.
func Hex8(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	// n+6 carries into bit 4 exactly when the digit n is 10-15
	letters := (x + 0x0606060606060606) >> 4 & 0x0101010101010101
	return x + 0x3030303030303030 + letters*('a'-'0'-10)
}

// AppendHex8 appends v as eight hex digits (AppendHexDigits(dst, v, 8)).
func AppendHex8(dst []byte, v uint32) []byte {
	l := len(dst)
	dst = slices.Grow(dst, 8)[:l+8]
	binary.BigEndian.PutUint64(dst[l:l+8], Hex8(v))
	return dst
}

// AppendHex appends v in hex without leading zeros, exactly as
// strconv.AppendUint(dst, v, 16) (addresses on summary lines).
func AppendHex(dst []byte, v uint64) []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], Hex8(uint32(v>>32)))
	binary.BigEndian.PutUint64(b[8:], Hex8(uint32(v)))
	n := max(1, (bits.Len64(v)+3)/4)
	return append(dst, b[16-n:]...)
}
