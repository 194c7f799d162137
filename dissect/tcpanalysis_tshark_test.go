package dissect_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// TestTCPAnalysisTshark compares tcp.analysis.* on real captures with loss
// (made with netem by the lossy-capture work) with tshark 4.0's, frame by
// frame: retransmissions, fast and spurious ones, out-of-order segments,
// lost segments, duplicate ACKs with their number and frame, keep-alives.
// The *.tcp-analysis.tsv files are `tshark -T fields -E header=y -E
// aggregator=';'` of those fields. No difference is accepted.
func TestTCPAnalysisTshark(t *testing.T) {
	for _, name := range []string{"lossy_rds_tcp.pcap", "lossy_nfs3_rdma_iwarp.pcap"} {
		t.Run(name, func(t *testing.T) {
			pcap := tsharktest.Capture(t, "../pcaps/kernel/"+name)
			res := tsharktest.Compare(t, pcap, pcap+".tcp-analysis.tsv", []string{"tcp.analysis."}, nil, dissect.Options{})
			if res.Compared < 50 || len(res.Fields) < 6 {
				t.Errorf("only %d values in %d fields compared: the test proves little", res.Compared, len(res.Fields))
			}
			t.Logf("%d of %d tcp.analysis values equal, fields %v", res.Equal, res.Compared, res.Fields)
		})
	}
}
