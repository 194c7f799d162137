package frag

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestFastPathSame: the in-order fast path of Add, Append and keep leaves an
// assembly exactly as the general path does, under Rx's policy (positions,
// no records) and the octet policy without records, through holes, drops
// for MaxBytes, truncation, ends and resets.
func TestFastPathSame(t *testing.T) {
	cfgs := []Config{
		{Start: 1, MaxPieces: 8, MaxBytes: 300, Dup: DupPosition, MaxFrames: 8, MergeFrames: true},
		{MaxPieces: 8, MaxBytes: 400, Dup: DupExact, MaxFrames: 8},
	}
	whole := unit(2000)
	for ci := range cfgs {
		cfg := &cfgs[ci]
		rng := rand.New(rand.NewPCG(1, uint64(ci)))
		var fast, slow Assembly
		slow.slow = true
		fast.Reset(cfg)
		slow.Reset(cfg)
		fastHits, appended := 0, 0
		for i := range 20000 {
			if rng.IntN(40) == 0 {
				fast.Reset(cfg)
				slow.Reset(cfg)
			}
			var off, end int64
			if cfg.Dup == DupPosition {
				off = fast.Next() + int64(rng.IntN(4)) - 1 // mostly in order, some ahead, some resent
				if rng.IntN(3) > 0 {
					off = fast.Next()
				}
				off = max(off, 1)
				end = off + 1
			} else {
				off = fast.Next()
				if rng.IntN(4) == 0 {
					off += int64(rng.IntN(60))
				}
				end = off + int64(rng.IntN(50))
			}
			n := int(rng.IntN(70))
			if cfg.Dup == DupExact {
				n = int(end - off)
			}
			data := whole[off%1000 : off%1000+int64(n)]
			last := rng.IntN(30) == 0
			if off == fast.Next() && fast.Waiting() == 0 {
				fastHits++
			}
			var vf Verdict
			var pf Piece
			if last || !fast.Append(off, end, data) { // Append, then Add for what it leaves
				vf, pf = fast.Add(off, end, data, last, uint64(i))
			} else {
				appended++
			}
			checkRoom(t, &fast)
			vs, ps := slow.Add(off, end, data, last, uint64(i))
			if vf != vs || pf != ps {
				t.Fatalf("cfg %d op %d: fast path %v %+v, general path %v %+v", ci, i, vf, pf, vs, ps)
			}
			if !bytes.Equal(fast.Data(), slow.Data()) || fast.Next() != slow.Next() || fast.End() != slow.End() ||
				fast.N() != slow.N() || fast.Truncated() != slow.Truncated() || fast.Waiting() != slow.Waiting() ||
				fast.Held() != slow.Held() || fast.Complete() != slow.Complete() || cap(fast.Data()) != cap(slow.Data()) {
				t.Fatalf("cfg %d op %d: the paths disagree: next %d/%d n %d/%d trunc %v/%v waiting %d/%d len %d/%d cap %d/%d",
					ci, i, fast.Next(), slow.Next(), fast.N(), slow.N(), fast.Truncated(), slow.Truncated(),
					fast.Waiting(), slow.Waiting(), len(fast.Data()), len(slow.Data()), cap(fast.Data()), cap(slow.Data()))
			}
		}
		if fastHits < 1000 || appended < 500 {
			t.Fatalf("cfg %d: only %d in-order pieces with nothing held, %d taken by Append: the fast path was hardly compared",
				ci, fastHits, appended)
		}
	}
}

// TestAppendDefers: Append leaves to Add every piece Add must judge or that
// changes more than out, and takes a piece again once that has passed.
func TestAppendDefers(t *testing.T) {
	cfg := Config{Start: 1, MaxPieces: 8, MaxBytes: 64, Dup: DupPosition, MaxFrames: 8}
	d := unit(64)
	var a Assembly
	a.Reset(&cfg)
	if a.Append(1, 2, d[:8]) {
		t.Fatal("Append took a piece with no room in out (out must grow)")
	}
	a.Add(1, 2, d[:8], false, 1) // out grows to its first size
	if !a.Append(2, 3, d[8:16]) {
		t.Fatal("Append refused an in-order piece with room")
	}
	a.Add(4, 5, d[24:32], false, 3) // held ahead of a hole
	checkRoom(t, &a)
	if a.Append(5, 6, d[32:40]) || a.Append(4, 5, d[24:32]) {
		t.Fatal("Append took a piece while one is held ahead")
	}
	a.Add(3, 4, d[16:24], false, 2) // fills the hole: all merged
	checkRoom(t, &a)
	if !a.Append(5, 6, d[32:40]) {
		t.Fatal("Append refused an in-order piece after the held one merged")
	}
	a.Add(6, 7, d[40:48], true, 4) // the end is known now
	checkRoom(t, &a)
	if a.Append(7, 8, d[48:56]) {
		t.Fatal("Append took a piece past the known end")
	}
	a.Reset(&cfg)
	a.Add(1, 2, d[:60], false, 1)
	if a.Append(2, 3, d[:8]) || a.Truncated() {
		t.Fatal("Append took a piece past MaxBytes")
	}
	a.Add(2, 3, d[:8], false, 2) // truncated: only a prefix is kept
	checkRoom(t, &a)
	if a.Append(3, 4, d[:0]) || !a.Truncated() {
		t.Fatal("Append took a piece into a truncated unit")
	}
	a.Reset(&cfg)
	a.Pass(2, 1)
	a.SetEnd(4)
	checkRoom(t, &a)
	if a.Append(2, 3, nil) {
		t.Fatal("Append took a piece after SetEnd")
	}
}
