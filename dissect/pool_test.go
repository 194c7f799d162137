package dissect

import "testing"

func TestPool(t *testing.T) {
	var p Pool[int]
	f := &Frame{Num: 1}
	a, fresh := p.Get(f)
	if !fresh {
		t.Fatal("first Get in frame 1 is not fresh")
	}
	*a = 7
	b, fresh := p.Get(f)
	if fresh || b == a {
		t.Fatalf("second Get in the same frame: fresh=%v, same value=%v", fresh, b == a)
	}
	p.Unget()
	if c, _ := p.Get(f); c != b {
		t.Fatal("Get after Unget does not hand out the returned value")
	}
	f.Num = 2
	c, fresh := p.Get(f)
	if !fresh || *c != 7 {
		t.Fatalf("new frame: fresh=%v, value %d (want the reused 7)", fresh, *c)
	}

	// The end-of-input flush's calls all have number 0: each is a frame of
	// its own (Frame.seq), so the pool starts over on each, and only then.
	f.Num = 0
	p.Reset()
	p.Get(f)
	if _, fresh := p.Get(f); fresh {
		t.Fatal("a second Get in the same flush call started over")
	}
	f.seq++
	if _, fresh := p.Get(f); !fresh {
		t.Fatal("the next flush call did not start over")
	}

	// Frame.Reset (dissectors run without an engine) starts a new scope
	// even under the same number.
	f.Reset()
	if _, fresh := p.Get(f); !fresh {
		t.Fatal("Get after Frame.Reset did not start over")
	}

	// No cap: one frame gets a distinct value for every Get (a pool that
	// wrapped would hand out the frame's first PDUs again).
	var q Pool[int]
	f.Num, f.seq = 5, 0
	seen := map[*int]bool{}
	for i := range 300 {
		v, fresh := q.Get(f)
		if fresh != (i == 0) || seen[v] {
			t.Fatalf("Get %d in one frame: fresh=%v, handed out before=%v", i, fresh, seen[v])
		}
		*v = i
		seen[v] = true
	}
}

// TestArena: copies the frame keeps stay intact while the arena grows (it
// grows by new blocks, never by moving old ones), the engine's reset starts
// it over, and a warm arena allocates nothing.
func TestArena(t *testing.T) {
	f := &Frame{Num: 1}
	var kept [][]byte
	for i := range 200 {
		b := make([]byte, 1+i*97%5000)
		for j := range b {
			b[j] = byte(i)
		}
		kept = append(kept, f.Keep(b))
	}
	if len(f.arena.blocks) < 2 {
		t.Fatalf("the test did not make the arena grow (%d blocks)", len(f.arena.blocks))
	}
	for i, k := range kept {
		if len(k) != 1+i*97%5000 || cap(k) != len(k) {
			t.Fatalf("copy %d: len %d cap %d", i, len(k), cap(k))
		}
		for _, c := range k {
			if c != byte(i) {
				t.Fatalf("copy %d overwritten (octet %d) after the arena grew", i, c)
			}
		}
	}
	m := f.Alloc(10)
	if len(m) != 0 || cap(m) != 10 {
		t.Fatalf("Alloc(10): len %d cap %d", len(m), cap(m))
	}
	next := f.Keep([]byte{0xEE})
	m = append(m, make([]byte, 10)...)
	if next[0] != 0xEE || cap(m) != 10 {
		t.Fatalf("filling an Alloc'd slice overwrote the next copy (%#x) or moved it (cap %d)", next[0], cap(m))
	}

	blocks := len(f.arena.blocks)
	payload := make([]byte, 3000)
	allocs := testing.AllocsPerRun(50, func() {
		f.reset()
		for range 200 {
			f.Keep(payload)
		}
	})
	if allocs != 0 || len(f.arena.blocks) != blocks {
		t.Fatalf("warm arena: %v allocs per frame, %d blocks (was %d)", allocs, len(f.arena.blocks), blocks)
	}
	f.reset()
	if f.arena.cur != 0 || len(f.arena.blocks[0]) != 0 {
		t.Fatal("reset did not start the arena over")
	}
}

// FrameState: one value per Frame (engine), the same on every call and
// after the frame is reset for the next packet; another frame has its own.
func TestFrameState(t *testing.T) {
	type st struct{ n int }
	a, b := NewFrameState[st](), NewFrameState[st]()
	var f, g Frame
	a.Get(&f).n = 1
	b.Get(&f).n = 2
	f.Reset()
	if a.Get(&f).n != 1 || b.Get(&f).n != 2 || a.Get(&f) == b.Get(&f) {
		t.Errorf("slots: %d %d", a.Get(&f).n, b.Get(&f).n)
	}
	if a.Get(&g).n != 0 || a.Get(&g) == a.Get(&f) {
		t.Error("another frame shares the value")
	}
}
