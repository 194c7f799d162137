package rpcrdma_test

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// The real lossy kernel captures (pcaps/kernel/lossy_README.md): NFSv3 over
// RPC-over-RDMA with netem loss on RoCE (go-back-N after NAKs and timeouts)
// and on iWARP (TCP loss and reordering). The captures are committed; a
// missing one fails the tests.
const lossyDir = "../../pcaps/kernel/"

// ibCompared are the InfiniBand fields dissect/ib's TestTsharkAgreement
// compares on the clean RoCE captures.
var ibCompared = []string{"infiniband.bth", "infiniband.reth", "infiniband.aeth", "infiniband.deth", "infiniband.invariant.crc"}

func lossyCapture(t *testing.T, name string) string {
	t.Helper()
	return tsharktest.Capture(t, lossyDir+name)
}

// tsharkFrames returns the frames whose tshark value of field satisfies ok.
func tsharkFrames(t *testing.T, tsv, field string, ok func(string) bool) map[uint64]bool {
	t.Helper()
	tab, err := tsharktest.ReadTSV(tsv)
	if err != nil {
		t.Fatal(err)
	}
	c := -1
	for i, h := range tab.Header {
		if h == field {
			c = i
		}
	}
	out := map[uint64]bool{}
	if c < 0 {
		return out
	}
	for n, row := range tab.Rows {
		if c < len(row) && ok(row[c]) {
			out[n] = true
		}
	}
	return out
}

func logResult(t *testing.T, res tsharktest.Result) {
	t.Helper()
	var ks []string
	for k, n := range res.Known {
		ks = append(ks, strconv.Itoa(n)+" x "+k)
	}
	sort.Strings(ks)
	t.Logf("%d values compared, %d equal, %d fields; accepted:\n%s", res.Compared, res.Equal, len(res.Fields), strings.Join(ks, "\n"))
}

// roceHeld maps, per capture, the frame of a SEND tshark decodes at once to
// the frame in which rdx decodes it. The SEND came after a PSN gap: the
// responder drops it (IBA 9.7.5.1.2, out-of-sequence request) and the
// go-back-N resend brings it again. rdx holds it until the missing PSNs
// arrive and decodes it in the frame that fills the hole, once; tshark
// decodes every copy where it is (the later copies as rpc.dup).
var roceHeld = map[string]map[uint64]uint64{
	// RDMA WRITE PSN 13932700 lost (gap at 1740); the READ replies
	// 0x7ed83144 and 0x7dd83144 (1766, 1767) wait for its resend in 1777.
	"lossy_nfs3_rdma_roce.pcap":     {1766: 1777, 1767: 1777},
	"lossy_nfs3_rdma_roce_dup.pcap": {1246: 1291, 2390: 2463, 4102: 4122, 4219: 4261},
}

// TestLossyRoCEAgainstTshark compares the InfiniBand and the RPC-over-RDMA,
// RPC and NFS fields of the lossy RoCE captures with tshark 4.0.17's.
func TestLossyRoCEAgainstTshark(t *testing.T) {
	for _, name := range []string{"lossy_nfs3_rdma_roce.pcap", "lossy_nfs3_rdma_roce_dup.pcap"} {
		t.Run(name, func(t *testing.T) {
			pcap := lossyCapture(t, name)
			tsv := pcap + ".tshark-fields.tsv"
			dup := tsharkFrames(t, tsv, "rpc.dup", func(v string) bool { return v != "" })
			malformed := tsharkFrames(t, tsv, "_ws.malformed.expert", func(v string) bool { return v != "" })
			held := roceHeld[name]
			heldIn := map[uint64]bool{}
			for _, m := range held {
				heldIn[m] = true
			}
			known := []tsharktest.Known{
				// As in dissect/ib's TestTsharkAgreement.
				{Field: "infiniband.deth.q_key", Reason: "tshark prints the 32-bit Q_Key with 16 hex digits"},
				{Field: "infiniband.deth.srcqp", Reason: "tshark prints the 24-bit source QP with 8 hex digits"},
				// tshark expects an NFS READ reply's data inline, throws
				// (malformed) and never shows the ICRC after it; rdx checks
				// it (good).
				{Field: "infiniband.invariant.crc", Reason: "tshark stops at its malformed READ reply and shows no ICRC",
					Match: func(n uint64, rdx, ts string) bool { return ts == "" && malformed[n] }},
				{Field: "*", Reason: "tshark decodes a retransmitted SEND again (rpc.dup); rdx delivers each PSN once",
					Match: func(n uint64, rdx, ts string) bool { return rdx == "" && dup[n] }},
				{Field: "*", Reason: "SEND after a PSN gap: tshark decodes it where it is, rdx in the frame that fills the gap",
					Match: func(n uint64, rdx, ts string) bool {
						return rdx == "" && held[n] != 0 || ts == "" && heldIn[n]
					}},
			}
			known = append(known, nfsKnown...)
			prefixes := append(append([]string{}, ibCompared...), compared...)
			res := tsharktest.Compare(t, pcap, tsv, prefixes, known, dissect.Options{})
			if res.Compared < 40000 || len(dup) == 0 {
				t.Errorf("%d values compared, %d rpc.dup frames: the test proves little", res.Compared, len(dup))
			}
			logResult(t, res)
		})
	}
}

// TestLossyIWARPAgainstTshark compares the iWARP and the RPC-over-RDMA, RPC
// and NFS fields of the lossy iWARP capture (TCP loss and reordering) with
// tshark 4.0.17's. Each FPDU is named by its MPA CRC (iwarp_mpa.crc_check).
// rdx decodes an FPDU once, when the TCP stream is contiguous up to it
// (RFC 9293 §3.10.7.4: data is delivered in sequence); tshark decodes it in
// the segment after a hole and skips the segments it calls out of order or
// retransmissions, so the same FPDU shows in other frames, and an FPDU whose
// only copy is in such a segment (the first was lost before the tap) is
// never decoded; after some holes tshark also leaves the in-order FPDUs that
// follow undecoded (frames 1627-1673). rdx checks each of those FPDUs' CRC.
func TestLossyIWARPAgainstTshark(t *testing.T) {
	pcap := lossyCapture(t, "lossy_nfs3_rdma_iwarp.pcap")
	tsv := pcap + ".tshark-fields.tsv"
	tab, err := tsharktest.ReadTSV(tsv)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tsharktest.Decode(pcap, dissect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	crcCol := -1
	for i, h := range tab.Header {
		if h == "iwarp_mpa.crc_check" {
			crcCol = i
		}
	}
	if crcCol < 0 {
		t.Fatal("no iwarp_mpa.crc_check column")
	}
	tsCRC := map[uint64][]string{}
	tsAll, rdxAll := map[string]int{}, map[string]int{}
	for n, row := range tab.Rows {
		if crcCol < len(row) && row[crcCol] != "" {
			tsCRC[n] = strings.Split(row[crcCol], ";")
			for _, c := range tsCRC[n] {
				tsAll[c]++
			}
		}
	}
	for n, m := range got {
		for _, c := range m["iwarp_mpa.crc_check"] {
			rdxAll[c]++
		}
		// The FPDUs only rdx decodes are real: each has a good CRC-32C.
		if st := m["iwarp_mpa.crc.status"]; len(st) != len(m["iwarp_mpa.crc_check"]) || strings.Trim(strings.Join(st, ""), "1") != "" {
			t.Errorf("frame %d: MPA CRC status %v", n, st)
		}
	}
	// Every FPDU tshark decodes, rdx decodes exactly once.
	for c, k := range tsAll {
		if rdxAll[c] != 1 {
			t.Errorf("FPDU with CRC %s: tshark decodes it %d times, rdx %d", c, k, rdxAll[c])
		}
	}
	moved, missed := map[uint64]bool{}, map[uint64]bool{}
	nMissed := 0
	for n := range tab.Rows {
		r, ts := got[n]["iwarp_mpa.crc_check"], tsCRC[n]
		if strings.Join(r, ";") == strings.Join(ts, ";") {
			continue
		}
		moved[n] = true
		for _, c := range r {
			if tsAll[c] == 0 {
				missed[n] = true
				nMissed++
			}
		}
	}
	if len(moved) == 0 || nMissed == 0 {
		t.Errorf("%d frames with FPDUs elsewhere, %d FPDUs tshark misses: the capture is not what the test expects", len(moved), nMissed)
	}
	// tshark's NFS READ replies decoded twice (as on the clean capture,
	// iwarpKnown).
	readTwice := tsharkFrames(t, tsv, "nfs.procedure_v3", func(v string) bool { return v == "6;6" })
	known := []tsharktest.Known{
		{Field: "*", Reason: "FPDU (good CRC) tshark never decodes: in a retransmission or out-of-order segment that fills a hole, or after it (tshark does not resync)",
			Match: func(n uint64, _, _ string) bool { return missed[n] }},
		{Field: "*", Reason: "FPDU decoded in another frame: rdx where the TCP stream becomes contiguous, tshark after the hole",
			Match: func(n uint64, _, _ string) bool { return moved[n] }},
		{Field: "*", Reason: "READ reply with write chunk decoded twice by tshark",
			Match: func(n uint64, rdx, ts string) bool { return readTwice[n] && tsharktest.TsharkFirst(n, rdx, ts) }},
		{Field: "rpc.programversion", Reason: "READ reply with write chunk decoded twice by tshark",
			Match: func(n uint64, rdx, ts string) bool { return readTwice[n] && rdx+";"+rdx == ts }},
	}
	prefixes := append([]string{"iwarp_mpa", "iwarp_ddp", "iwarp_rdma"}, comparedIWARP...)
	res := tsharktest.Compare(t, pcap, tsv, prefixes, known, dissect.Options{})
	t.Logf("%d FPDUs (tshark %d), %d frames where they differ, %d FPDUs only rdx decodes (in %d frames)",
		len(rdxAll), len(tsAll), len(moved), nMissed, len(missed))
	logResult(t, res)
}
