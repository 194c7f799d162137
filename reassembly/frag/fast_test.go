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
