package xdr

import (
	"encoding/binary"
	"testing"
)

// A negative length is refused like a short one: Fixed used to slice
// B[Off:Off-n] and panic, since pad(-1..-3) is 0 and passed the bounds check.
func TestFixedNegative(t *testing.T) {
	for _, n := range []int{-1, -3, -4, -1 << 40} {
		r := NewReader(make([]byte, 8))
		if b := r.Fixed(n); b != nil || r.Err() == nil || r.Off != 0 {
			t.Errorf("Fixed(%d) = %v, err %v, off %d", n, b, r.Err(), r.Off)
		}
	}
}

func TestReads(t *testing.T) {
	b := []byte{0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}
	r := NewReader(b)
	if s := r.String(8); s != "abc" || r.Off != 8 {
		t.Fatalf("String = %q, off %d", s, r.Off)
	}
	if !r.Bool() || r.I32() != -1 || r.Remaining() != 0 || r.Err() != nil {
		t.Fatalf("after: off %d err %v", r.Off, r.Err())
	}
	if r.U32() != 0 || r.Err() == nil {
		t.Fatal("read past the end")
	}
	r = NewReader(b)
	if r.Opaque(2) != nil || r.Err() == nil {
		t.Fatal("opaque over its limit")
	}
	r = NewReader([]byte{0, 0, 0, 5, 0})
	if r.Count(1) != 0 || r.Err() == nil {
		t.Fatal("5 elements in 1 octet")
	}
}

// FuzzXDR runs a fuzzer-chosen sequence of reads over fuzzer-chosen bytes
// and checks each against a model: values are the big-endian octets at the
// offset, the offset moves by the padded size, a read that does not fit
// sets a sticky error and moves nothing, and the offset never leaves B.
func FuzzXDR(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 0, 1}, []byte{5, 8, 3})
	f.Add([]byte{0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2}, []byte{7, 4, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8}, []byte{2, 4, 0xfd, 5, 0, 6, 0x80})
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		r := NewReader(data)
		var failed error
		arg := func(i int) int { // a small signed argument from the next op octet
			if i+1 < len(ops) {
				return int(int8(ops[i+1]))
			}
			return 0
		}
		for i := 0; i < len(ops); i++ {
			op, off, rem := ops[i]%8, r.Off, len(data)-r.Off
			fits := func(n int) bool { return failed == nil && n >= 0 && n <= rem }
			var moved int
			lenRead := false
			switch op {
			case 0:
				v := r.U32()
				if fits(4) {
					moved = 4
					if v != binary.BigEndian.Uint32(data[off:]) {
						t.Fatalf("U32 at %d = %#x", off, v)
					}
				} else if v != 0 {
					t.Fatalf("U32 past the end = %#x", v)
				}
			case 1:
				v := r.U64()
				if fits(8) {
					moved = 8
					if v != binary.BigEndian.Uint64(data[off:]) {
						t.Fatalf("U64 at %d = %#x", off, v)
					}
				} else if v != 0 {
					t.Fatalf("U64 past the end = %#x", v)
				}
			case 2:
				n := arg(i)
				i++
				b := r.Fixed(n)
				if n >= 0 && fits((n+3)&^3) {
					moved = (n + 3) &^ 3
					if len(b) != n || n > 0 && &b[0] != &data[off] {
						t.Fatalf("Fixed(%d) at %d gave %d octets", n, off, len(b))
					}
				} else if b != nil {
					t.Fatalf("Fixed(%d) past the end gave %d octets", n, len(b))
				}
			case 3:
				n := arg(i)
				i++
				r.Skip(n)
				if fits(n) {
					moved = n
				}
			case 4, 5:
				max := arg(i) & 0x7f
				i++
				b := r.Opaque(max)
				if failed == nil && rem >= 4 {
					l := int(binary.BigEndian.Uint32(data[off:]))
					if (max == 0 || l <= max) && 4+((l+3)&^3) <= rem {
						moved = 4 + (l+3)&^3
						if len(b) != l {
							t.Fatalf("Opaque at %d gave %d octets of %d", off, len(b), l)
						}
					}
				}
				if moved == 0 && b != nil {
					t.Fatalf("Opaque(%d) at %d gave %d octets and failed", max, off, len(b))
				}
				if moved == 0 && failed == nil && rem >= 4 {
					moved, lenRead = 4, true // a length that does not fit fails after it was read
				}
			case 6:
				es := arg(i)
				i++
				n := r.Count(es)
				if failed == nil && rem >= 4 {
					c := int64(binary.BigEndian.Uint32(data[off:]))
					if c*int64(max(es, 1)) <= int64(rem-4) {
						moved = 4
						if int64(n) != c {
							t.Fatalf("Count at %d = %d, want %d", off, n, c)
						}
					}
				}
				if moved == 0 && n != 0 {
					t.Fatalf("Count(%d) failed with %d", es, n)
				}
				if moved == 0 && failed == nil && rem >= 4 {
					moved, lenRead = 4, true
				}
			case 7:
				if r.Bool() != (fits(4) && binary.BigEndian.Uint32(data[off:]) != 0) {
					t.Fatalf("Bool at %d", off)
				}
				if fits(4) {
					moved = 4
				}
			}
			if r.Off != off+moved {
				t.Fatalf("op %d at %d: offset %d, want %d", op, off, r.Off, off+moved)
			}
			if r.Off < 0 || r.Off > len(data) || r.Remaining() != len(data)-r.Off {
				t.Fatalf("offset %d, remaining %d of %d", r.Off, r.Remaining(), len(data))
			}
			switch {
			case failed != nil && r.Err() != failed:
				t.Fatalf("error %v replaced by %v", failed, r.Err())
			case failed == nil && r.Err() != nil:
				failed = r.Err()
				if moved != 0 && !lenRead {
					t.Fatalf("a failed read moved %d octets", moved)
				}
			case failed == nil && lenRead:
				t.Fatalf("op %d at %d: a length that does not fit did not fail", op, off)
			case failed == nil && moved == 0 && op != 3 && op != 2:
				t.Fatalf("op %d at %d neither moved nor failed", op, off)
			}
		}
	})
}

// U32 builds its short-read error inline (so it inlines); it must be the error
// need gives (its text reaches findings), stay sticky and move nothing.
func TestU32Short(t *testing.T) {
	r := NewReader([]byte{1, 2, 3, 4, 5, 6})
	r.Off = 4
	if v := r.U32(); v != 0 || r.Off != 4 {
		t.Fatalf("short U32 = %#x, off %d", v, r.Off)
	}
	want := (&ErrShort{What: "uint32", Off: 4, Need: 4, Have: 2}).Error()
	if r.Err() == nil || r.Err().Error() != want {
		t.Fatalf("err %v, want %s", r.Err(), want)
	}
	first := r.Err()
	r.Off = 0 // fits now, but the error is sticky
	if v := r.U32(); v != 0 || r.Off != 0 || r.Err() != first {
		t.Fatalf("after error: U32 = %#x, off %d, err %v", v, r.Off, r.Err())
	}
	s := NewReader([]byte{1, 2, 3, 4, 5, 6})
	s.Off = 4
	s.need(4, "uint32")
	if s.Err().Error() != want {
		t.Fatalf("need gives %v, U32 %s", s.Err(), want)
	}
}

// U32 reads every word that fits, up to the last octet, and refuses an
// offset outside the data, a negative one too (it used to slice B[Off:] and
// panic, as uint(Off)+4 wrapped around), as need does.
func TestU32Bounds(t *testing.T) {
	b := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}
	for off := 0; off <= len(b)-4; off++ {
		r := NewReader(b)
		r.Off = off
		if v := r.U32(); v != binary.BigEndian.Uint32(b[off:]) || r.Off != off+4 || r.Err() != nil {
			t.Fatalf("U32 at %d = %#x, off %d, err %v", off, v, r.Off, r.Err())
		}
	}
	for _, off := range []int{-1, -3, -4, len(b) - 3, len(b), 1 << 62} {
		r := NewReader(b)
		r.Off = off
		if v := r.U32(); v != 0 || r.Off != off || r.Err() == nil {
			t.Errorf("U32 at %d = %#x, off %d, err %v", off, v, r.Off, r.Err())
		}
	}
}

// TestNegativeOffset: every reader taking need's check gives the short-read
// error at an offset before the data, as U32 does, instead of panicking on
// the slice (U64 at -4 passed need's end test and sliced b[-4:]).
func TestNegativeOffset(t *testing.T) {
	b := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	for _, off := range []int{-1, -4, -8} {
		r := NewReader(b)
		r.Off = off
		if v := r.U64(); v != 0 || r.Err() == nil {
			t.Errorf("U64 at %d = %#x, err %v", off, v, r.Err())
		}
		r = NewReader(b)
		r.Off = off
		if v := r.Fixed(4); v != nil || r.Err() == nil {
			t.Errorf("Fixed(4) at %d = %x, err %v", off, v, r.Err())
		}
	}
}
