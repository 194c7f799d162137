package rx_test

import (
	"encoding/binary"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rx"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// BenchmarkTree builds the tree of an Rx DATA frame (genrx's traffic)
// whole, as -V does, and sparse with the 4 fields of the -T fields
// benchmark: what a wanted set saves per frame.
func BenchmarkTree(b *testing.B) {
	eth := make([]byte, 14)
	binary.BigEndian.PutUint16(eth[12:], 0x0800)
	frame := testpkt.UDP4(eth, testpkt.Client, testpkt.Server, 7001, 7000, make([]byte, 28+64))
	h := rx.HeaderFields{Epoch: 0x5f3a1b2c, CID: 0x8a2b0000, Type: rx.TypeData, ServiceID: 1, CallNumber: 1, Seq: 2, Serial: 2,
		Flags: rx.FlagClientInitiated}
	h.Encode(frame[14+20+8 : 14+20+8])
	eng := dissect.NewEngine(dissect.Options{})
	f := eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeEthernet, Data: frame, CapLen: len(frame), WireLen: len(frame)})
	var four dissect.FieldSet
	for _, n := range []string{"rx.seq", "rx.callnumber", "rx.type", "ip.src"} {
		four.Add(dissect.Lookup(n))
	}
	for _, c := range []struct {
		name string
		set  *dissect.FieldSet
	}{{"whole", nil}, {"sparse4", &four}} {
		b.Run(c.name, func(b *testing.B) {
			var t dissect.Tree
			t.SetWant(c.set)
			b.ReportAllocs()
			for range b.N {
				eng.BuildTree(&t, f)
			}
			if c.set != nil && len(t.Nodes) != 4 {
				b.Fatalf("%d nodes", len(t.Nodes))
			}
		})
	}
}
