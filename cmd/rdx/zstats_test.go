package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// -z help needs no capture file, as tshark's; it lists the whole-capture
// tables and the forms with a parameter.
func TestZHelpWithoutFile(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-z", "help"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"expert", "io,phs", "io,stat,INTERVAL", "endpoints,ip", "endpoints,tcp", "conv,ip", "rpc,srt"} {
		if !strings.Contains("\n"+out.String(), "\n"+name+"\n") {
			t.Errorf("-z help lacks %s:\n%s", name, out)
		}
	}
}

// The whole-capture tables on a capture: io,stat and the io,phs levels up
// to rx as tshark prints them (tshark -q -z io,phs -z io,stat,10; tshark's
// afs has 56 frames: its frame.protocols leaves afs out of continuation
// packets), a bad interval and io,stat's FILTER columns refused.
func TestZWholeCaptureTables(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"read", "-q", "-z", "io,phs", "-z", "io,stat,10", "-z", "expert", "-z", "endpoints,udp",
		"../../pcaps/rx/cell-bringup.pcap"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// numbers are right-aligned (render.Table), so spaces may lead them
	for _, want := range []string{`\| · · · rx +\| +94 \| +9214 \|`, `\| · · · · afs +\| +68 \| +6372 \|`,
		`\| 30 <> Dur +\| +62 \| +5872 \|`, `\| 10 <> 20 +\| +0 \| +0 \|`, "Expert information", `UDP endpoints`} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, bad := range []string{"io,stat,x", "io,stat,-1", "io,stat,1,rx", "endpoints,nope"} {
		io, _, _, errOut := iostreams.Test()
		if code := run(io, []string{"read", "-q", "-z", bad, "../../pcaps/rx/cell-bringup.pcap"}); code != 2 || !strings.Contains(errOut.String(), bad) {
			t.Errorf("-z %s: exit %d %q", bad, code, errOut)
		}
	}
}
