package main

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// Shell completion: the scripts exist for bash, zsh and fish, and the
// completions offer rdx's words: -T formats, field names for -e, -z tables,
// protocols for -O (after a comma too), synth scenarios.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, []string{"completion", sh}); code != 0 || !strings.Contains(out.String(), "rdx") {
			t.Errorf("completion %s: exit %d, %d octets, %s", sh, code, out.Len(), errOut)
		}
	}
	for _, c := range []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"read", "-T", "j"}, []string{"json", "jsonl"}, "fields"},
		{[]string{"read", "-e", "tcp.analysis.by"}, []string{"tcp.analysis.bytes_in_flight"}, "tcp.srcport"},
		{[]string{"read", "-z", "endpoints,"}, []string{"endpoints,eth", "endpoints,TYPE,FILTER"}, "conv,ip"},
		{[]string{"read", "-O", "rx,af"}, []string{"rx,afs"}, "rx,rx"},
		{[]string{"synth", "rd"}, []string{"rds-tcp", "rdp"}, "roce-nfs"},
	} {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, append([]string{"__complete"}, c.args...)); code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
			continue
		}
		got := "\n" + out.String()
		for _, w := range c.want {
			if !strings.Contains(got, "\n"+w+"\n") {
				t.Errorf("%v: no %q in %q", c.args, w, out)
			}
		}
		if strings.Contains(got, "\n"+c.not+"\n") {
			t.Errorf("%v: %q offered: %q", c.args, c.not, out)
		}
	}
}
