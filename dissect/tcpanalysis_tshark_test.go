package dissect_test

import (
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// TestTCPAnalysisTshark compares tcp.analysis.* with tshark 4.0's, frame by
// frame: retransmissions, fast and spurious ones, out-of-order segments,
// lost segments, ACKs of segments not captured, duplicate ACKs with their
// number and frame, keep-alives, port reuse. The captures are the real ones
// with loss (made with netem by the lossy-capture work) and every other one
// where tshark flags something: the crafted base-layer capture (an ACK of
// unseen data on an RST, a SYN reusing ports), a capture starting
// mid-handshake and losing a segment (SMB Direct), and two with a single
// flag. The *.tcp-analysis.tsv files are scripts/tcp-analysis-truth.sh's;
// every column is kept, so a flag rdx sets where tshark does not counts. No
// difference is accepted.
func TestTCPAnalysisTshark(t *testing.T) {
	for _, c := range []struct {
		name           string
		values, fields int // at least this many compared, in this many fields
	}{
		{"kernel/lossy_rds_tcp.pcap", 50, 6}, {"kernel/lossy_nfs3_rdma_iwarp.pcap", 50, 6},
		{"crafted/base_fields.pcap", 3, 3}, {"iwarp/wiki_smb-direct.pcap.gz", 3, 3},
		{"ib/roce_atomic_bw.pcap", 1, 1}, {"kernel/nfs42_acl_rdma_iwarp.pcap", 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			pcap := tsharktest.Capture(t, "../pcaps/"+c.name)
			res := tsharktest.Compare(t, pcap, pcap+".tcp-analysis.tsv", []string{"tcp.analysis."}, nil, dissect.Options{})
			if res.Compared < c.values || len(res.Fields) < c.fields {
				t.Errorf("only %d values in %d fields compared: the test proves little", res.Compared, len(res.Fields))
			}
			t.Logf("%d of %d tcp.analysis values equal, fields %v", res.Equal, res.Compared, res.Fields)
		})
	}
}

// TestTCPBytesInFlightTshark compares tcp.analysis.bytes_in_flight with
// tshark 4.0's (scripts/bif-truth.sh: *.tcp-bif.tsv) frame by frame: the
// span of the segments the peer has not acknowledged, less the peer's
// latest SACK blocks, none after a lost segment until the peer ACKs again.
// On the two lossy captures rdx keeps only where the unacknowledged
// segments start and end, not tshark's list of them: after a segment the
// capture lost, an ACK inside that gap makes rdx count from the ACK where
// tshark counts from the next segment it saw (those frames are listed).
func TestTCPBytesInFlightTshark(t *testing.T) {
	gap := []tsharktest.Known{{Field: "tcp.analysis.bytes_in_flight",
		Reason: "an ACK inside a segment the capture lost: rdx counts from the ACK, tshark from its next segment seen"}}
	for _, c := range []struct {
		name  string
		known []tsharktest.Known
		max   int // differences accepted
	}{
		{"iwarp/iwarp_rping.pcap", nil, 0}, {"iwarp/iwarp_write_bw.pcap", nil, 0}, {"iwarp/nfs3_rdma_iwarp.pcap", nil, 0},
		{"kernel/rds_tcp.pcap", nil, 0}, {"crafted/base_fields.pcap", nil, 0},
		{"kernel/lossy_rds_tcp.pcap", gap, 5}, {"kernel/lossy_nfs3_rdma_iwarp.pcap", gap, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			pcap := tsharktest.Capture(t, "../pcaps/"+c.name)
			res := tsharktest.Compare(t, pcap, pcap+".tcp-bif.tsv", []string{"tcp.analysis.bytes_in_flight"}, c.known, dissect.Options{})
			n := 0
			for _, k := range res.Known {
				n += k
			}
			if n > c.max || res.Equal < 2 {
				t.Errorf("%d of %d values equal, %d accepted differences (at most %d)", res.Equal, res.Compared, n, c.max)
			}
			t.Logf("%d of %d bytes_in_flight values equal", res.Equal, res.Compared)
		})
	}
}
