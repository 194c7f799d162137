package main

import (
	"runtime"
	"testing"
)

// Heap-profile sampling is off unless --memprofile asks for it.
func TestMemProfileRate(t *testing.T) {
	if runtime.MemProfileRate != 0 {
		t.Errorf("MemProfileRate %d without --memprofile, want 0", runtime.MemProfileRate)
	}
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"read", "-r", "x.pcap"}, false},
		{[]string{"read", "-r", "x.pcap", "--memprofile", "m"}, true},
		{[]string{"read", "--memprofile=m", "-r", "x.pcap"}, true},
		{[]string{"read", "--memprofiles"}, false},
		{[]string{"read", "-r", "x", "--", "--memprofile"}, false},
	} {
		if got := wantsMemProfile(c.args); got != c.want {
			t.Errorf("wantsMemProfile(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
