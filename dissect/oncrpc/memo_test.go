package oncrpc

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestChecksumIEEEMemo: Msg.ChecksumIEEE is crc32.ChecksumIEEE whatever the
// sequence of inputs: repeats (the memo's hit), same length but other
// octets, other lengths, empty, longer than the memo holds, and a caller
// changing its slice after the call.
func TestChecksumIEEEMemo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := &Msg{d: newState()}
	bare := &Msg{} // no State: no memo
	var inputs [][]byte
	for _, n := range []int{0, 1, 4, 28, 32, 32, 32, 64, 127, 128, 129, 200} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		inputs = append(inputs, b)
	}
	for range 2000 {
		b := inputs[rng.IntN(len(inputs))]
		if len(b) > 0 && rng.IntN(4) == 0 {
			b[rng.IntN(len(b))]++ // same handle length, one octet changed
		}
		want := crc32.ChecksumIEEE(b)
		if got := m.ChecksumIEEE(b); got != want {
			t.Fatalf("ChecksumIEEE(%x) = %#x, want %#x", b, got, want)
		}
		if got := m.ChecksumIEEE(b); got != want {
			t.Fatalf("repeated ChecksumIEEE(%x) = %#x, want %#x", b, got, want)
		}
		if got := bare.ChecksumIEEE(b); got != want {
			t.Fatalf("ChecksumIEEE without State (%x) = %#x, want %#x", b, got, want)
		}
	}
}
