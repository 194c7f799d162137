package dissect_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// BenchmarkNumberStreams: what the -j reader adds per frame when the
// output shows tcp.stream or udp.stream (Engine.NumberStreams), on RDS
// over TCP and Rx over UDP; allocations per frame reported (0 once warm).
func BenchmarkNumberStreams(b *testing.B) {
	benchFrames(b, (*dissect.Engine).NumberStreams)
}
