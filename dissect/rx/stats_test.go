package rx_test

import (
	"slices"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// TestSRTOrder: two servers answering the same call tie on count and name;
// the table orders them by port, the same on every run (map order broke
// the tie before, so rdx stats printed the rows either way round).
func TestSRTOrder(t *testing.T) {
	var first [][]string
	for run := range 20 {
		e := dissect.NewEngine(dissect.Options{})
		if err := testpkt.Each("../../pcaps/rx/udebug.pcap", func(p dissect.Packet) error { e.Decode(p); return nil }); err != nil {
			t.Fatal(err)
		}
		e.Finish()
		rows := e.Stat("rx,srt").Rows
		if len(rows) < 4 || rows[0][0] != rows[1][0] || rows[0][2] >= rows[1][2] {
			t.Fatalf("run %d: want two VOTE XDebug rows, port 7002 first: %v", run, rows)
		}
		if run == 0 {
			first = rows
		} else if !slices.EqualFunc(rows, first, slices.Equal) {
			t.Fatalf("run %d: rows %v, first run %v", run, rows, first)
		}
	}
}
