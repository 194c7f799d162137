package dissect_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// BenchmarkNumberStreams: what the -j reader adds per frame when the
// output shows tcp.stream or udp.stream (Engine.NumberStreams), on RDS
// over TCP and Rx over UDP; allocations per frame reported (0 once warm).
func BenchmarkNumberStreams(b *testing.B) {
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
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				p := pkts[i%len(pkts)]
				if i%len(pkts) == 0 && i > 0 {
					eng.Rewind()
				}
				eng.NumberStreams(&p)
			}
		})
	}
}
