package frag

import (
	"bytes"
	"testing"

	"github.com/rdx-project/rdx/reassembly/budget"
)

var octets = Config{MaxPieces: 8, MaxBytes: 1 << 10, Dup: DupExact, Records: true, MaxFrames: 4}

func unit(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + 1)
	}
	return b
}

func TestOutOfOrderComplete(t *testing.T) {
	d := unit(48)
	var a Assembly
	a.Reset(&octets)
	for i, r := range [][2]int{{32, 48}, {0, 16}, {16, 32}} {
		v, _ := a.Add(int64(r[0]), int64(r[1]), d[r[0]:r[1]], r[1] == 48, uint64(i+1))
		if v != Added {
			t.Fatalf("piece %v: verdict %d", r, v)
		}
		a.NoteFrame(uint64(i + 1))
		if done := a.Complete(); done != (i == 2) {
			t.Fatalf("after piece %d complete=%v", i, done)
		}
	}
	if !bytes.Equal(a.Data(), d) || a.Truncated() || a.N() != 3 || a.Held() != 48 {
		t.Fatalf("data %x held %d n %d", a.Data(), a.Held(), a.N())
	}
	if fr := a.Frames(); len(fr) != 3 || fr[0] != 1 || fr[2] != 3 {
		t.Fatalf("frames %v", fr)
	}
}

func TestVerdicts(t *testing.T) {
	d := unit(48)
	other := bytes.Repeat([]byte{0xee}, 48)
	for _, tc := range []struct {
		name      string
		off, end  int64
		data      []byte
		last      bool
		want      Verdict
		otherFrom uint64 // the Frame of the piece named, 0 for none
	}{
		{"exact duplicate", 0, 16, d[:16], false, Duplicate, 1},
		{"same place other bytes", 0, 16, other[:16], false, Overlap, 1},
		{"overlap into held", 8, 24, d[8:24], false, Overlap, 1},
		{"overlap from below", 28, 36, d[28:36], false, Overlap, 2},
		{"past the end", 40, 56, unit(16), false, PastEnd, 0},
		{"second end", 16, 32, d[16:32], true, EndConflict, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a Assembly
			a.Reset(&octets)
			a.Add(0, 16, d[:16], false, 1)
			a.Add(32, 48, d[32:48], true, 2)
			v, o := a.Add(tc.off, tc.end, tc.data, tc.last, 3)
			if v != tc.want || o.Frame != tc.otherFrom {
				t.Fatalf("verdict %d naming frame %d, want %d naming %d", v, o.Frame, tc.want, tc.otherFrom)
			}
			if a.N() != 2 || a.Held() != 32 {
				t.Fatalf("a refused piece changed the assembly: n %d held %d", a.N(), a.Held())
			}
		})
	}
	var a Assembly
	a.Reset(&octets)
	a.Add(0, 24, d[:24], false, 1)
	if v, o := a.Add(8, 16, d[8:16], true, 2); v != EndBeforeData || o.Off != 0 || o.End != 24 {
		t.Fatalf("last piece inside held data: %d %+v", v, o)
	}
}

func TestPieceLimit(t *testing.T) {
	var a Assembly
	a.Reset(&octets)
	for i := 0; i < 8; i++ {
		if v, _ := a.Add(int64(i*8), int64(i*8+8), unit(8), false, 1); v != Added {
			t.Fatalf("piece %d: %d", i, v)
		}
	}
	if v, _ := a.Add(64, 72, unit(8), false, 1); v != TooMany {
		t.Fatalf("ninth piece: %d", v)
	}
}

// Rx's policy: units are seqs, a resend of a held seq is a duplicate
// whatever its bytes, out-of-order data shares MaxBytes with in-order data
// and in-order data wins.
var seqs = Config{Start: 1, MaxPieces: 4, MaxBytes: 10, Dup: DupPosition, MaxFrames: 2, MergeFrames: true}

func TestSeqUnits(t *testing.T) {
	var a Assembly
	a.Reset(&seqs)
	add := func(s int64, b string) Verdict {
		v, _ := a.Add(s, s+1, []byte(b), false, uint64(s))
		return v
	}
	if add(3, "cccc") != Added || add(2, "bbbb") != Added || !a.Seen(3) || a.Seen(1) || a.Next() != 1 {
		t.Fatal("held out of order")
	}
	if add(3, "xxxx") != Duplicate {
		t.Fatal("a resend of a held seq is a duplicate")
	}
	// 4+4 held; seq 1 needs room: seq 3's data goes, so the kept data stops
	// after seq 2.
	if add(1, "aaaa") != Added || a.Next() != 4 || string(a.Data()) != "aaaabbbb" || !a.Truncated() {
		t.Fatalf("next %d data %q truncated %v", a.Next(), a.Data(), a.Truncated())
	}
	if add(2, "bbbb") != Duplicate || !a.Seen(2) {
		t.Fatal("a resend below next is a duplicate")
	}
	a.NoteFrame(7)
	a.NoteFrame(7)
	a.NoteFrame(8)
	a.NoteFrame(9)
	if a.NFrames() != 3 || len(a.Frames()) != 2 {
		t.Fatalf("frames %v of %d", a.Frames(), a.NFrames())
	}
}

// A piece refused for MaxPieces leaves a hole the unit's kept data cannot
// pass: from then on data is counted, not kept (Rx's rule since issue 10).
func TestSeqLimits(t *testing.T) {
	var a Assembly
	a.Reset(&seqs)
	for s := int64(2); s <= 5; s++ {
		if v, _ := a.Add(s, s+1, []byte("x"), false, 1); v != Added {
			t.Fatalf("seq %d: %d", s, v)
		}
	}
	if v, _ := a.Add(6, 7, []byte("y"), false, 1); v != TooMany || !a.Truncated() || a.Seen(6) {
		t.Fatalf("fifth held seq: %d", v)
	}
	a.Add(1, 2, []byte("a"), false, 1)
	if a.Next() != 6 || len(a.Data()) != 0 || !a.Truncated() {
		t.Fatalf("next %d data %q", a.Next(), a.Data())
	}
}

// Pass takes in-order pieces without data (RDS counts octets) and a unit
// whose end is known beforehand completes when they reach it.
func TestPassAndSetEnd(t *testing.T) {
	cfg := Config{MaxPieces: 1, MaxBytes: 0, MaxFrames: 8}
	var a Assembly
	a.Reset(&cfg)
	a.SetEnd(5000)
	a.Pass(4096, 1)
	if a.Complete() {
		t.Fatal("complete after one fragment")
	}
	a.Pass(5000, 2)
	if !a.Complete() || a.N() != 2 || len(a.Data()) != 0 {
		t.Fatalf("complete %v n %d", a.Complete(), a.N())
	}
	a.Reset(&cfg)
	a.SetEnd(0)
	a.Pass(0, 3)
	if !a.Complete() || a.N() != 1 {
		t.Fatal("an empty unit completes with its one empty piece")
	}
}

type key struct{ id int }

func TestTableLimitAndBudget(t *testing.T) {
	b := budget.New(1 << 20)
	var tab Table[key]
	tab.Init(2, 100, &octets, b.Register("t", &tab), func(dst []byte, e *Entry[key]) []byte {
		return append(dst, byte('0'+e.Key.id))
	})
	e1, _ := tab.Add(key{1})
	e1.Add(0, 8, unit(8), false, 1)
	tab.Touch(e1)
	if b.Used() < 100+8 {
		t.Fatalf("charged %d", b.Used())
	}
	tab.Add(key{2})
	tab.Touch(e1) // 2 is now the oldest
	if _, what := tab.Add(key{3}); what != "2" || tab.Get(key{2}) != nil || tab.Len() != 2 {
		t.Fatalf("dropped %q", what)
	}
	tab.Done(e1)
	if st, ok := tab.Oldest(); !ok || st != 0 {
		t.Fatal("entry 3 left")
	}
	if tab.DropOldest() != "3" || b.Used() != 0 || tab.Len() != 0 {
		t.Fatalf("still charged %d", b.Used())
	}
}

// A reordering that never lets the held list empty (2, 4, 1, 6, 3, 8, 5,
// ...) keeps reusing the arena: merged data is reclaimed, so the arena
// stays the size of what is held, not of the whole unit.
func TestArenaReclaimed(t *testing.T) {
	cfg := Config{Start: 1, MaxPieces: 4, MaxBytes: 4 << 20, Dup: DupPosition}
	var a Assembly
	a.Reset(&cfg)
	piece := unit(100)
	add := func(s int64) {
		if v, _ := a.Add(s, s+1, piece, false, 1); v != Added {
			t.Fatalf("seq %d: %d", s, v)
		}
	}
	add(2)
	for s := int64(4); s <= 20000; s += 2 {
		add(s)
		add(s - 3)
	}
	if a.Next() != 19999 || a.Waiting() != 1 || a.Truncated() {
		t.Fatalf("next %d waiting %d", a.Next(), a.Waiting())
	}
	if c := cap(a.h.arena); c > 4096 {
		t.Fatalf("arena grew to %d octets for one held piece of 100", c)
	}
	if len(a.Data()) != 19998*100 {
		t.Fatalf("kept %d octets", len(a.Data()))
	}
}

// Reused for unit after unit, an assembly allocates nothing.
func TestNoAllocsWhenReused(t *testing.T) {
	var a Assembly
	d := unit(48)
	run := func() {
		a.Reset(&octets)
		a.Add(32, 48, d[32:], true, 1)
		a.Add(0, 16, d[:16], false, 2)
		a.Add(16, 32, d[16:32], false, 3)
		a.NoteFrame(3)
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 || !a.Complete() {
		t.Fatalf("%v allocations per unit", n)
	}
}

// TestNoteFrameAllocs: the frame list of a unit of up to eight frames (an Rx
// call of eight packets) is made once, not grown at 1, 2, 4 and 8; and it
// never grows past MaxFrames.
func TestNoteFrameAllocs(t *testing.T) {
	cfg := Config{Start: 1, MaxPieces: 8, MaxBytes: 1 << 10, Dup: DupPosition, MaxFrames: 64, MergeFrames: true}
	allocs := testing.AllocsPerRun(100, func() {
		var a Assembly
		a.Reset(&cfg)
		for i := range 8 {
			a.NoteFrame(uint64(i + 1))
		}
		if len(a.Frames()) != 8 {
			t.Fatalf("frames %v", a.Frames())
		}
	})
	if allocs != 1 {
		t.Fatalf("%v allocations for 8 frames, want 1", allocs)
	}
	small := Config{Start: 1, MaxPieces: 8, MaxBytes: 1 << 10, MaxFrames: 3}
	var a Assembly
	a.Reset(&small)
	for i := range 5 {
		a.NoteFrame(uint64(i + 1))
	}
	if a.NFrames() != 5 || len(a.Frames()) != 3 || cap(a.Frames()) != 3 {
		t.Fatalf("MaxFrames 3: frames %v (cap %d) of %d", a.Frames(), cap(a.Frames()), a.NFrames())
	}
}
