package mpa

import (
	"net/netip"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// BenchmarkStreams feeds four connections, round robin, FPDUs with CRC cut
// into 1448-octet chunks, so FPDUs straddle chunks and each direction's
// buffer is charged and moved in the budget's LRU list on every chunk.
// ns/op and allocs/op are per chunk.
func BenchmarkStreams(b *testing.B) {
	sizes := []int{18, 46, 1038, 2000, 700, 30, 5000, 4000}
	withStartup, _ := synth(true, false, true, sizes, 1000)
	period, _ := synth(false, false, true, sizes, 1000)
	startup := withStartup[:len(withStartup)-len(period)]
	d := New(nil)
	d.SetUpper(nil)
	var keys [4]tcp.FlowKey
	var offs [4]uint64
	var f dissect.Frame
	spans := make([]tcp.FrameSpan, 1)
	num := uint64(0)
	feed := func(i int, p []byte) {
		num++
		f.Reset()
		f.Num = num
		spans[0] = tcp.FrameSpan{Frame: num, Len: len(p)}
		d.StreamData(&f, &tcp.Chunk{Key: keys[i], Bytes: p, Offset: offs[i], Seq: 1000 + uint32(offs[i]), Frames: spans})
		offs[i] += uint64(len(p))
	}
	for i := range keys {
		keys[i], _ = tcp.NewFlowKey(netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), uint16(1000+i)), netip.MustParseAddrPort("10.0.0.2:2"))
		feed(i, startup)
	}
	var chunks [][]byte
	for i := 0; i < len(period); i += 1448 {
		chunks = append(chunks, period[i:min(i+1448, len(period))])
	}
	for i := range keys { // warm
		for _, c := range chunks {
			feed(i, c)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		feed(n%len(keys), chunks[(n/len(keys))%len(chunks)])
	}
}
