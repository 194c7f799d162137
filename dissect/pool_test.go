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

	// Limit bounds the values handed out under one frame number.
	q := Pool[int]{Limit: 3}
	f.Num = 5
	for i := range 10 {
		_, fresh := q.Get(f)
		if want := i%3 == 0; fresh != want {
			t.Fatalf("Get %d: fresh=%v, want %v", i, fresh, want)
		}
	}
	if len(q.items) != 3 {
		t.Fatalf("pool grew to %d values past its limit 3", len(q.items))
	}
}
