package startup

import "testing"

func TestWantsMemProfile(t *testing.T) {
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
		if got := WantsMemProfile(c.args); got != c.want {
			t.Errorf("WantsMemProfile(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
