package frag

import (
	"bytes"
	"testing"
)

// FuzzAssembly feeds pieces of a known unit (and corrupt ones) in the
// fuzzer's order under both policies and checks the invariants: held pieces
// stay sorted and disjoint, kept data is always a prefix of the unit, the
// limits hold, a complete octet unit is exactly the unit, and the fast paths
// (Append, Add's and keep's) leave the assembly as the general path does.
func FuzzAssembly(f *testing.F) {
	f.Add([]byte{0, 8, 1, 16, 8, 0, 2, 8, 1}, false)
	f.Add([]byte{3, 1, 0, 2, 1, 0, 1, 1, 1, 3, 1, 1}, true)
	f.Add([]byte{1, 1, 4, 2, 1, 4, 4, 1, 4, 3, 1, 4}, true)
	f.Add([]byte{0, 8, 4, 8, 8, 4, 24, 8, 0, 16, 8, 4}, false)
	f.Fuzz(func(t *testing.T, ops []byte, seq bool) {
		const size = 200
		whole := unit(size)
		oct := Config{MaxPieces: 16, MaxBytes: size, Dup: DupExact, Records: true, MaxFrames: 8}
		sq := Config{Start: 1, MaxPieces: 16, MaxBytes: 60, Dup: DupPosition, MaxFrames: 8, MergeFrames: true}
		cfg := &oct
		if seq {
			cfg = &sq
		}
		var a, g Assembly // g takes every piece the general way (no fast paths)
		g.slow = true
		a.Reset(cfg)
		g.Reset(cfg)
		corrupt := false
		for i := 0; i+2 < len(ops); i += 3 {
			off, n, fl := int64(ops[i]), int64(ops[i+1]%64), ops[i+2]
			if seq {
				off, n = off%40+1, 1
			}
			end := off + n
			var data []byte
			if seq {
				data = whole[(off-1)*5 : off*5] // 5 octets per seq
			} else if end <= size {
				data = whole[off:end]
			} else {
				data = make([]byte, n)
			}
			if fl&2 != 0 {
				data = bytes.Repeat([]byte{0xee}, len(data))
			}
			before := a.N()
			last := fl&1 != 0 && !seq
			v := Added
			if last || fl&4 == 0 || !a.Append(off, end, data) { // Append first when bit 2 says so
				v, _ = a.Add(off, end, data, last, uint64(i))
			}
			if v != Added && a.N() != before {
				t.Fatalf("verdict %d changed the piece count", v)
			}
			if vg, _ := g.Add(off, end, data, last, uint64(i)); vg != v || !bytes.Equal(a.Data(), g.Data()) ||
				a.Next() != g.Next() || a.N() != g.N() || a.Truncated() != g.Truncated() || a.Waiting() != g.Waiting() {
				t.Fatalf("piece %d: fast paths (verdict %d) and the general path (%d) disagree", i/3, v, vg)
			}
			corrupt = corrupt || v == Added && fl&2 != 0 && len(data) > 0
			if !corrupt && !bytes.Equal(a.Data(), whole[:len(a.Data())]) {
				t.Fatalf("kept data %x is not the unit's prefix", a.Data())
			}
			check(t, &a, whole, seq)
		}
	})
}

func check(t *testing.T, a *Assembly, whole []byte, seq bool) {
	checkRoom(t, a)
	var h held
	if a.h != nil {
		h = *a.h
	}
	ps := h.pieces
	for i := 1; i < len(ps); i++ {
		if ps[i-1].End > ps[i].Off {
			t.Fatalf("pieces %+v and %+v overlap or are out of order", ps[i-1], ps[i])
		}
	}
	if n := len(ps) - h.done; n > a.cfg.MaxPieces || a.cfg.Records && len(ps) > a.cfg.MaxPieces {
		t.Fatalf("%d pieces held, limit %d", n, a.cfg.MaxPieces)
	}
	if len(a.out) > a.cfg.MaxBytes || h.pbytes < 0 || h.pbytes > a.cfg.MaxBytes || len(h.arena) > 2*a.cfg.MaxBytes+64 {
		t.Fatalf("kept %d in order, %d held, arena %d (limit %d)", len(a.out), h.pbytes, len(h.arena), a.cfg.MaxBytes)
	}
	if seq {
		// data of corrupt resends never gets in: duplicates are refused
		return
	}
	if a.Complete() && !a.Truncated() && a.end <= int64(len(whole)) {
		// a corrupt piece (0xee) may be part of it only if nothing clashed
		// with it; the length is always the end
		if int64(len(a.out)) != a.end {
			t.Fatalf("complete unit of %d octets has %d", a.end, len(a.out))
		}
	}
	if a.Held() > a.next-a.cfg.Start && a.Complete() {
		t.Fatalf("complete with pieces held beyond the end")
	}
}

// checkRoom: Append's cached room is never more than setRoom would allow
// now (a stale larger room would let Append take a piece Add must judge).
func checkRoom(t *testing.T, a *Assembly) {
	t.Helper()
	r := a.room
	a.setRoom()
	if r > a.room {
		t.Fatalf("room %d, but only %d is right (trunc %v end %d held %v)", r, a.room, a.trunc, a.end, a.h != nil)
	}
	a.room = r
}
