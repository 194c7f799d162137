package flows

import "testing"

// Response times per call type: count, min, max, mean; a new type is
// reported once (to be named), and the table stops at MaxSRT types.
func TestSRT(t *testing.T) {
	var s SRT[int]
	if tm, fresh := s.Add(1, 30, 1); !fresh || tm == nil {
		t.Fatal("first add not fresh")
	}
	s.Add(1, 10, 1)
	tm, fresh := s.Add(1, 20, 1)
	if fresh || tm.Count != 3 || tm.MinNS != 10 || tm.MaxNS != 30 || tm.AvgNS() != 20 {
		t.Errorf("times %+v fresh %v", tm, fresh)
	}
	for i := 2; i <= MaxSRT+10; i++ {
		s.Add(i, 1, 1)
	}
	if s.Len() != MaxSRT {
		t.Errorf("Len %d, want the limit %d", s.Len(), MaxSRT)
	}
	if tm, _ := s.Add(MaxSRT+20, 1, 1); tm != nil {
		t.Error("a new type was counted past the limit")
	}
	if tm, _ := s.Add(1, 1, 1); tm == nil || tm.Count != 4 {
		t.Error("a known type stopped counting at the limit")
	}
	s.Reset()
	if s.Len() != 0 || s.Get(1) != nil {
		t.Error("Reset kept types")
	}
}
