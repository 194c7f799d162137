package dissect_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// BenchmarkBuildTree: the tree of real frames (RDS over TCP, then Rx over
// UDP), the -V, -T json and -T fields path; allocations per frame reported.
func BenchmarkBuildTree(b *testing.B) {
	var t dissect.Tree
	benchFrames(b, func(eng *dissect.Engine, p *dissect.Packet) { eng.BuildTree(&t, eng.Decode(*p)) })
}

// benchFrames runs fn on b.N frames of an RDS/TCP and an Rx/UDP capture, one
// sub-benchmark each, going round the capture with the engine rewound at
// every lap; allocations per frame reported.
func benchFrames(b *testing.B, fn func(eng *dissect.Engine, p *dissect.Packet)) {
	for _, c := range []string{"../pcaps/kernel/rds_tcp.pcap", "../pcaps/rx/vos-dump-bulk.pcap"} {
		var pkts []dissect.Packet
		if err := testpkt.Each(c, func(p dissect.Packet) error {
			p.Data = append([]byte(nil), p.Data...)
			pkts = append(pkts, p)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		b.Run(c[len("../pcaps/"):], func(b *testing.B) {
			eng := dissect.NewEngine(dissect.Options{})
			var p dissect.Packet // one copy, reused: fn may keep &p
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				p = pkts[i%len(pkts)]
				if i%len(pkts) == 0 && i > 0 {
					eng.Rewind()
				}
				fn(eng, &p)
			}
		})
	}
}
