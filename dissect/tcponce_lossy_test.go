package dissect_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// lossyCapture returns the path of a lossy capture; a missing one fails.
func lossyCapture(t *testing.T, name string) string {
	return tsharktest.Capture(t, "../pcaps/kernel/"+name)
}

// TestLossyRDSOnce: on a real RDS/TCP capture made with netem loss,
// reordering and duplication, every RDS message is decoded exactly once
// although TCP retransmitted, reordered and duplicated its segments: the
// echo test sent 1, 100, 1400, 5000, 20000, 60000, 100000 and 100000
// octets from port 4001 to 4000 (then 4 octets, seq 10; seq 9 went
// elsewhere) and got each echoed back from 4000.
func TestLossyRDSOnce(t *testing.T) {
	pcap := lossyCapture(t, "lossy_rds_tcp.pcap")
	got, err := tsharktest.Decode(pcap, dissect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, fields := range got {
		seqs, lens := fields["rds.seq"], fields["rds.len"]
		sps, dps := fields["rds.sport"], fields["rds.dport"]
		for i := range seqs {
			if i < len(lens) && i < len(sps) && i < len(dps) && (sps[i] == "4000" || sps[i] == "4001") && dps[i] != "0" { // data, not pings
				seen[sps[i]+"→"+dps[i]+" seq="+seqs[i]+" len="+lens[i]]++
			}
		}
	}
	var msgs []string
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s decoded %d times", k, n)
		}
		msgs = append(msgs, k)
	}
	slices.Sort(msgs)
	want := []string{}
	for i, n := range []int{1, 100, 1400, 5000, 20000, 60000, 100000, 100000} {
		want = append(want, fmt.Sprintf("4000→4001 seq=%d len=%d", i+1, n), fmt.Sprintf("4001→4000 seq=%d len=%d", i+1, n))
	}
	want = append(want, "4001→4000 seq=10 len=4")
	slices.Sort(want)
	if !slices.Equal(msgs, want) {
		t.Errorf("RDS data messages:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
}

// TestLossyMPAOnce: on a real NFS/RDMA over iWARP capture with TCP loss,
// no DDP segment (an MPA FPDU) is decoded twice: tagged ones are unique by
// (direction, STag, tagged offset), untagged ones by (direction, queue,
// MSN, message offset).
func TestLossyMPAOnce(t *testing.T) {
	pcap := lossyCapture(t, "lossy_nfs3_rdma_iwarp.pcap")
	got, err := tsharktest.Decode(pcap, dissect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string][]uint64{}
	total := 0
	for num, fields := range got {
		src := strings.Join(fields["tcp.srcport"], "")
		for i, st := range fields["iwarp_ddp.stag"] {
			if i < len(fields["iwarp_ddp.tagged_offset"]) {
				k := src + " stag=" + st + " to=" + fields["iwarp_ddp.tagged_offset"][i]
				seen[k] = append(seen[k], num)
				total++
			}
		}
		qn, msn, mo := fields["iwarp_ddp.qn"], fields["iwarp_ddp.msn"], fields["iwarp_ddp.mo"]
		for i := range qn {
			if i < len(msn) && i < len(mo) {
				k := src + " qn=" + qn[i] + " msn=" + msn[i] + " mo=" + mo[i]
				seen[k] = append(seen[k], num)
				total++
			}
		}
	}
	for k, frames := range seen {
		if len(frames) > 1 {
			t.Errorf("DDP segment %s decoded in frames %v", k, frames)
		}
	}
	if total < 500 {
		t.Errorf("only %d DDP segments decoded", total)
	}
}
