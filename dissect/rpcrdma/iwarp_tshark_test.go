package rpcrdma_test

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// NFSv3 over RPC-over-RDMA over iWARP: long replies in reply chunks and READ
// data in write chunks placed by RDMA Write, WRITE data pulled from read
// chunks by RDMA Read Request/Response. The reassembled messages (rpcordma.
// fragment*, rpcordma.reassembled.*) and the RPC/NFS decoded from them must
// match tshark's.
const nfsIWARP = "../../pcaps/iwarp/nfs3_rdma_iwarp.pcap"

var comparedIWARP = []string{"rpcordma.", "rpc.", "nfs.procedure_v3"}

func TestNFSIWARPAgainstTshark(t *testing.T) {
	res := tsharktest.Compare(t, tsharktest.Capture(t, nfsIWARP), nfsIWARP+".tshark-fields.tsv", comparedIWARP, iwarpKnown, dissect.Options{})
	t.Logf("%d values compared, %d equal, fields %d", res.Compared, res.Equal, len(res.Fields))
	for k, n := range res.Known {
		t.Logf("accepted: %d x %s", n, k)
	}
}

// iwarpKnown lists the accepted differences with tshark 4.0.17, with reasons.
var iwarpKnown = []tsharktest.Known{
	// As over RoCE (nfsKnown): tshark decodes an NFS READ reply whose data
	// went into a write chunk twice and marks it malformed: it expects the
	// data inline, but READ data is DDP-eligible (RFC 8267 §4) and a
	// DDP-eligible item moved in a chunk is removed from the payload stream
	// (RFC 8166 §3.3). rdx decodes it once, with the data from the chunk.
	{Field: "*", Reason: "READ reply with write chunk decoded twice by tshark", Match: readReplyTwice},
	{Field: "rpc.programversion", Reason: "READ reply with write chunk decoded twice by tshark",
		Match: func(n uint64, rdx, ts string) bool { return rdx+";"+rdx == ts && iwarpReadReplies[n] }},
}

func readReplyTwice(n uint64, rdx, ts string) bool {
	return iwarpReadReplies[n] && tsharktest.TsharkFirst(n, rdx, ts)
}

// iwarpReadReplies are the frames of the NFS READ replies with a write list.
var iwarpReadReplies = map[uint64]bool{1514: true, 1805: true, 2097: true, 2387: true, 2775: true,
	3210: true, 3215: true, 3503: true, 3786: true, 3857: true}

// -d infiniband.destqp==N,rpcordma: on the NFS capture the forced decode
// finds the same RPC-over-RDMA messages the heuristic does; on the RDS
// capture every SEND to the forced QP is reported as not RPC-over-RDMA
// instead of being left to RDS.
func TestDecodeAsQP(t *testing.T) {
	count := func(path string, rules ...string) (xids, bad int) {
		got, err := tsharktest.DecodeWithFindings(path, tsharktest.DecodeAs(t, rules...))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range got {
			xids += len(m["rpcordma.xid"])
			for _, msg := range m["_ws.expert.message"] {
				if strings.HasPrefix(msg, "decode-as rpcordma: not an RPC-over-RDMA v1 header") {
					bad++
				}
			}
		}
		return
	}
	const nfs = "../../pcaps/kernel/nfs3_rdma_roce.pcap"
	base, _ := count(nfs)
	forced, bad := count(nfs, "infiniband.destqp==0x1d,rpcordma", "infiniband.destqp==0x1e,rpcordma")
	if base == 0 || forced != base || bad != 0 {
		t.Errorf("nfs: heuristic %d xids, forced %d (%d refused)", base, forced, bad)
	}
	_, bad = count("../../pcaps/kernel/rds_rdma_roce.pcap", "infiniband.destqp==0x21,rpcordma")
	if bad == 0 {
		t.Error("rds: forcing rpcordma on the RDS QP reported nothing")
	}
	if _, err := dissect.ParseDecodeAs("infiniband.destqp==0x1000000,rpcordma"); err == nil {
		t.Error("a 25-bit QP was accepted")
	}
}
