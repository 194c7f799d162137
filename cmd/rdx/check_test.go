package main

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

func TestCheckUsage(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	if code := run(io, []string{"check"}); code != 2 {
		t.Errorf("no file: exit %d", code)
	}
	io, _, _, _ = iostreams.Test()
	if code := run(io, []string{"check", "-T", "xml", "x.pcap"}); code != 2 {
		t.Errorf("bad format: exit %d", code)
	}
	// Every registered check appears in JSON, even with no PDU checked; the
	// table shows the ones that ran and says how many did not apply.
	io, _, out, _ := iostreams.Test()
	if code := run(io, []string{"check", "-T", "json", "../../pcaps/iwarp/iwarp_rping.pcap"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, c := range []string{"mpa.crc", "mpa.marker", "infiniband.icrc"} {
		if !strings.Contains(out.String(), c) {
			t.Errorf("missing %s:\n%s", c, out)
		}
	}
	io, _, out, _ = iostreams.Test()
	if code := run(io, []string{"check", "../../pcaps/iwarp/iwarp_rping.pcap"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "0 of ") || strings.Contains(out.String(), "mpa.crc") {
		t.Errorf("table of a capture without CRC:\n%s", out)
	}
}
