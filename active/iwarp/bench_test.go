package iwarp

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkWrite: 1 MiB RDMA Writes over loopback TCP, each followed by a
// Send so the writer waits until the peer placed it (RDMAP orders the
// Send after the Write), with CRC and markers off and on.
func BenchmarkWrite(b *testing.B) {
	for _, c := range []struct{ crc, markers bool }{{false, false}, {true, false}, {true, true}} {
		b.Run(fmt.Sprintf("crc=%v/markers=%v", c.crc, c.markers), func(b *testing.B) {
			cc, sc, cerr, serr := pair(b, Config{CRC: c.crc, Markers: c.markers}, Config{Markers: c.markers})
			if cerr != nil || serr != nil {
				b.Fatal(cerr, serr)
			}
			defer sc.Close()
			defer cc.Close()
			const n = 1 << 20
			sink := sc.Register(make([]byte, n), RemoteWrite)
			data := make([]byte, n)
			ctx := context.Background()
			b.SetBytes(n)
			b.ResetTimer()
			for range b.N {
				if err := cc.Write(sink.STag, sink.TO, data); err != nil {
					b.Fatal(err)
				}
				if err := cc.Send(nil, false); err != nil {
					b.Fatal(err)
				}
				if _, err := sc.Recv(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
