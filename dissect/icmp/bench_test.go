package icmp_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
)

// BenchmarkQuotedRx decodes and summarises an ICMP port unreachable that
// quotes an Rx packet (the summary and check paths): 0 allocs/op.
func BenchmarkQuotedRx(b *testing.B) {
	data := ipv4(ipB, ipA, 17, 64, 1, udp(7003, 1792, rxData(1, 2)))
	fr := portUnreachable(data)
	da, _ := dissect.ParseDecodeAs("udp.port==7000-7010,rx")
	eng := dissect.NewEngine(dissect.Options{DecodeAs: []dissect.DecodeAs{da}})
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		f := eng.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i), CapLen: len(fr), WireLen: len(fr), LinkType: 1, Iface: 0, Data: fr, Pass: 0})
		buf = render.Summary(buf[:0], f, 0, nil)
	}
}

// BenchmarkEcho: an echo request and its reply, matched.
func BenchmarkEcho(b *testing.B) {
	req := eth(macA, macB, 0x0800, ipv4(ipA, ipB, 1, 64, 5, icmpMsg(8, 0, []byte{0x12, 0x34, 0, 1}, make([]byte, 56))))
	rep := eth(macB, macA, 0x0800, ipv4(ipB, ipA, 1, 64, 5, icmpMsg(0, 0, []byte{0x12, 0x34, 0, 1}, make([]byte, 56))))
	eng := dissect.NewEngine(dissect.Options{})
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for j, fr := range [][]byte{req, rep} {
			f := eng.Decode(dissect.Packet{Num: uint64(2*i + j + 1), TimeNS: int64(i), CapLen: len(fr), WireLen: len(fr), LinkType: 1, Iface: 0, Data: fr, Pass: 0})
			buf = render.Summary(buf[:0], f, 0, nil)
		}
	}
}
