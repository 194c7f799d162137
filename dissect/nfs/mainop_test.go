package nfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// mainOpPairs is tshark 4.0.17's nfs.opcode and nfs.main_opcode for the
// capture writeMainOpPcap makes: one COMPOUND reply for every operation
// alone and for every pair of operations (each failing with NFS4ERR_PERM,
// so that no result body follows), then calls naming GET_DIR_DELEGATION,
// SET_SSV and WANT_DELEGATION, whose error replies tshark 4.0.17 decodes as
// if they had a body (RFC 8881 §18.39.2, §18.47.2, §18.49.2: they have
// none). To remake it: `NFSWRITE=1 go test -run MainOpcodeAgainstTshark`,
// then `tshark -r mainop.pcap -T fields -E header=y -E occurrence=a
// -E aggregator=';' -e frame.number -e nfs.opcode -e nfs.main_opcode`.
const mainOpPairs = "testdata/main_opcode_pairs.tsv"

func writeMainOpPcap(t *testing.T, path string) {
	w, fh := synthWriter(t, path)
	defer fh.Close()
	cli, srv, ts := synthCli, synthSrv, synthTime
	write := func(reply bool, m []byte) {
		d := udpFrame(cli, srv, 800, 2049, m)
		if reply {
			d = udpFrame(srv, cli, 2049, 800, m)
		}
		ts += 1e6
		if err := w.WritePacket(&capture.Packet{TimeNS: ts, CapLen: len(d), WireLen: len(d), LinkType: 1, Data: d}); err != nil {
			t.Fatal(err)
		}
	}
	var ops []int
	for op := 3; op <= 75; op++ {
		if op != 46 && op != 54 && op != 56 {
			ops = append(ops, op)
		}
	}
	ops = append(ops, 10044)
	var sets [][]int
	for i, a := range ops {
		sets = append(sets, []int{a})
		for _, b := range ops[i+1:] {
			sets = append(sets, []int{a, b})
		}
	}
	xid := 0x10000
	for _, set := range sets {
		xid++
		write(false, xdrMsg(append(callHdr(xid, 100003, 4, 1), "", 2, 0)...))
		r := append(replyHdr(xid), 1, "", len(set))
		for _, op := range set {
			r = append(r, op, 1)
			if op == 34 { // SETATTR: attrsset follows whatever the status
				r = append(r, 0)
			}
		}
		write(true, xdrMsg(r...))
	}
	sess := fixed(make([]byte, 16))
	args := map[int][]any{
		46: {0, 0, uint64(0), 0, uint64(0), 0, 0, 0}, // GET_DIR_DELEGATION
		54: {[]byte("ssv1"), []byte("dgst")},         // SET_SSV
		56: {0, 4},                                   // WANT_DELEGATION, CLAIM_FH
		53: {sess, 1, 0, 0, 0},                       // SEQUENCE
		3:  {0x1f},                                   // ACCESS
		10: {},                                       // GETFH
	}
	for _, set := range [][]int{{46}, {54}, {56}, {53, 46}, {53, 54}, {53, 56}, {3, 46}, {10, 56}} {
		xid++
		c := append(callHdr(xid, 100003, 4, 1), "", 2, len(set))
		for _, op := range set {
			c = append(append(c, op), args[op]...)
		}
		write(false, xdrMsg(c...))
	}
}

// TestMainOpcodeAgainstTshark checks nfs.main_opcode on every pair of
// operations against tshark.
func TestMainOpcodeAgainstTshark(t *testing.T) {
	pcap := filepath.Join(t.TempDir(), "mainop.pcap")
	if os.Getenv("NFSWRITE") != "" {
		pcap = "mainop.pcap"
	}
	writeMainOpPcap(t, pcap)
	res := tsharktest.Compare(t, pcap, mainOpPairs, []string{"nfs.opcode", "nfs.main_opcode"}, nil, dissect.Options{})
	t.Logf("%d values compared, %d equal", res.Compared, res.Equal)
	if res.Compared < 5000 {
		t.Errorf("only %d values compared", res.Compared)
	}
}
