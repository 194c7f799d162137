package oncrpc

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// callExtra fills in the entry match has just made for the call (no second
// lookup), its reply reads it back, and a stale entry (an earlier frame's)
// is never written: the outstanding call of this frame is looked up.
func TestCallExtraMadeEntry(t *testing.T) {
	d := newState()
	f1 := testFrame(dissect.Frame{Num: 1})
	m1 := d.DissectMessage(f1, callBytes(7), 0, nil)
	k1 := callKeyOf(f1, m1) // m1 goes back to the pool with the next frame
	if m1 == nil || d.made == nil || d.made != d.calls.Outstanding(k1) {
		t.Fatalf("made %p is not the outstanding entry of the call", d.made)
	}
	d.callExtra(f1, m1, 77)

	f2 := testFrame(dissect.Frame{Num: 2})
	m2 := d.DissectMessage(f2, callBytes(8), 0, nil)
	stale := d.made
	d.made = d.calls.Outstanding(k1) // frame 1's entry, not m2's
	d.callExtra(f2, m2, 88)
	if stale.V.Extra != 88 {
		t.Fatalf("frame 2's call has extra %d, want 88 (looked up)", stale.V.Extra)
	}
	if x := d.calls.Outstanding(k1).V.Extra; x != 77 {
		t.Fatalf("frame 1's call has extra %d after frame 2's, want 77", x)
	}

	f3 := testFrame(dissect.Frame{Num: 3, TimeNS: 5})
	r := d.DissectMessage(f3, replyBytes(7), 0, nil)
	if r == nil || !r.matched || r.CallExtra != 77 || d.made != nil {
		t.Fatalf("reply: matched %v extra %d made %p", r != nil && r.matched, r.CallExtra, d.made)
	}
}
