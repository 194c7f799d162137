package main

import (
	"bytes"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
)

// BenchmarkDecode decodes the generated traffic in memory (engine only, no
// file reading or output): ns/op is per packet.
func BenchmarkDecode(b *testing.B) {
	var buf bytes.Buffer
	if _, err := Write(&buf, 20000, 1024, 4096); err != nil {
		b.Fatal(err)
	}
	r, err := capture.NewReader(bytes.NewReader(buf.Bytes()), "gen")
	if err != nil {
		b.Fatal(err)
	}
	pkts, err := capture.ReadAll(r)
	if err != nil {
		b.Fatal(err)
	}
	eng := dissect.NewEngine(dissect.Options{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(pkts)
		if k == 0 && i > 0 {
			eng.Rewind()
		}
		p := &pkts[k]
		eng.Decode(dissect.Packet{Num: uint64(k + 1), TimeNS: p.TimeNS, CapLen: p.CapLen, WireLen: p.WireLen, LinkType: p.LinkType, Iface: p.Iface, Data: p.Data})
	}
}
