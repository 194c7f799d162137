package rpcrdma

import (
	"strings"
	"testing"
)

// The summary names each procedure as the field's value names do, and
// shows any other number as "proc N".
func TestSummaryProcName(t *testing.T) {
	for proc := range uint32(8) {
		h := &Hdr{}
		h.hdr.Proc = proc
		got := string(h.Summary(nil))
		want := "proc " + string(rune('0'+proc))
		if n, ok := procNames[uint64(proc)]; ok {
			want = n
		}
		if !strings.HasPrefix(got, want+" XID") {
			t.Errorf("proc %d: summary %q, want it to start %q", proc, got, want+" XID")
		}
	}
}
