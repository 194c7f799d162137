package rdp_test

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rdp"
)

// Connections beyond the table's limit (8192) drop the least recently
// active, with a finding naming it; all of it is charged to the budget.
func TestConnTableFull(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	var full []string
	const n = 8192 + 1
	for i := 0; i < n; i++ {
		hf := rdp.HeaderFields{Flags: rdp.FlagSYN, Version: 2, SrcPort: srcPort(i), DstPort: uint16(1 + i/250), Seq: 100,
			MaxOutstanding: 8, MaxSegment: 1000}
		b := packet(ipA, ipB, hf, nil)
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), LinkType: dissect.LinkTypeIPv4, Data: b})
		for _, fd := range f.Findings {
			if strings.Contains(fd.Msg, "table full") {
				full = append(full, fd.Msg)
			}
		}
	}
	if len(full) != 1 || !strings.Contains(full[0], "connection table full (8192 connections): dropped the least recently active, "+
		"RDP connection 10.0.0.1:1 <-> 10.0.0.2:1 (1 segments)") {
		t.Fatalf("findings %q", full)
	}
	if u := eng.Budget().Used(); u < 8192*1536 {
		t.Errorf("%d octets charged for 8192 connections", u)
	}
}

// srcPort: RDP ports are one octet on the wire.
func srcPort(i int) uint16 { return uint16(1 + i%250) }
