package tcp

import (
	"fmt"
	"testing"
)

func TestBuffer(t *testing.T) {
	var b Buffer
	chunk := func(off uint64, s string, frame uint64) *Chunk {
		return &Chunk{Offset: off, Seq: 0xfffffffe + uint32(off), Bytes: []byte(s),
			Frames: []FrameSpan{{Frame: frame, Len: len(s)}}}
	}
	for _, c := range []*Chunk{chunk(10, "abc", 4), chunk(13, "de", 5), chunk(15, "f", 5), chunk(16, "ghij", 7)} {
		if !b.Append(c) {
			t.Fatalf("append %d refused", c.Offset)
		}
	}
	if b.Append(chunk(30, "x", 9)) {
		t.Fatal("discontinuous append accepted")
	}
	if string(b.Bytes()) != "abcdefghij" || b.Offset() != 10 || b.Seq() != 8 {
		t.Fatalf("%q %d %#x", b.Bytes(), b.Offset(), b.Seq())
	}
	tests := []struct {
		i, n int
		want string
	}{
		{0, 10, "[{4 0 3} {5 3 3} {7 6 4}]"},
		{2, 2, "[{4 0 1} {5 1 1}]"},
		{4, 1, "[{5 0 1}]"},
		{6, 4, "[{7 0 4}]"},
	}
	for _, tc := range tests {
		if got := fmt.Sprint(b.Frames(nil, tc.i, tc.n)); got != tc.want {
			t.Errorf("Frames(%d,%d)=%s want %s", tc.i, tc.n, got, tc.want)
		}
	}
	b.Consume(4)
	if string(b.Bytes()) != "efghij" || b.Offset() != 14 || b.Seq() != 12 {
		t.Fatalf("after consume %q %d", b.Bytes(), b.Offset())
	}
	if got := fmt.Sprint(b.Frames(nil, 0, 3)); got != "[{5 0 2} {7 2 1}]" {
		t.Errorf("frames after consume: %s", got)
	}
	b.Consume(100)
	if b.Len() != 0 || !b.Append(chunk(50, "z", 9)) || b.Offset() != 50 {
		t.Errorf("after drain: %d %d", b.Len(), b.Offset())
	}
}
