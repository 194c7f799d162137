package ib

import (
	"fmt"
	"strings"
	"testing"
)

// Every opcode's summary starts as the transport, the operation (or the
// opcode in hex when reserved; CNP alone), the QP in six hex digits and
// the PSN: summaryHead and appendHex6 write what five appends did.
func TestSummaryHead(t *testing.T) {
	for op := range 256 {
		for _, qp := range []uint32{0, 1, 0x11, 0xabcdef, 0xffffff} {
			bth := (&BTHFields{Opcode: uint8(op), DestQP: qp, PSN: 1048576}).Encode(nil)
			p := &Packet{data: bth, lrh: -1, grh: -1, bth: 0}
			got := string(p.Summary(nil))
			name := "CNP"
			if op != OpCNP {
				name = Ops[op].Transport.String() + " " + Ops[op].Name
				if !Ops[op].Known {
					name = fmt.Sprintf("%s opcode 0x%02x", Ops[op].Transport, op)
				}
			}
			want := fmt.Sprintf("%s QP 0x%06x PSN 1048576", name, qp)
			if !strings.HasPrefix(got, want) {
				t.Fatalf("opcode 0x%02x QP %#x: summary %q, want it to start %q", op, qp, got, want)
			}
		}
	}
}
