package rpcrdma_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/internal/tsharktest"
	"github.com/rdx-project/rdx/pipeline"
)

// epochNS reads tshark's frame.time_epoch ("1795628402.883624000").
func epochNS(t *testing.T, s string) int64 {
	sec, frac, _ := strings.Cut(s, ".")
	a, err1 := strconv.ParseInt(sec, 10, 64)
	frac = (frac + "000000000")[:9]
	b, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("frame.time_epoch %q", s)
	}
	return a*1e9 + b
}

// tsharkReads is -z infiniband,srt's row as tshark's decode gives it: every
// RC RDMA READ Request of a PSN not seen before from its sender, answered
// by the first READ Response Last or Only from the responder at that PSN
// or after (a READ's responses take the PSNs from its request's on), timed
// from the request's first copy to that response's first copy.
func tsharkReads(t *testing.T, tsv string) []string {
	tab, err := tsharktest.ReadTSV(tsv)
	if err != nil {
		t.Fatal(err)
	}
	type req struct {
		src, dst string
		psn      uint32
		at       int64
		n        uint64
	}
	var reqs []req
	seen := map[string]bool{}
	type last struct {
		psn uint32
		at  int64
	}
	lasts := map[string][]last{} // by "responder>requester"
	for n := uint64(1); n <= uint64(len(tab.Rows)); n++ {
		row := tab.Rows[n]
		op := tab.Get(row, "infiniband.bth.opcode")
		if op == "" || strings.Contains(op, ";") {
			continue
		}
		psn, _ := strconv.ParseUint(tab.Get(row, "infiniband.bth.psn"), 10, 32)
		src, dst := tab.Get(row, "ip.src"), tab.Get(row, "ip.dst")
		at := epochNS(t, tab.Get(row, "frame.time_epoch"))
		switch op {
		case "12": // RC RDMA READ Request
			k := src + ">" + dst + " " + strconv.FormatUint(psn, 10)
			if seen[k] {
				continue
			}
			seen[k] = true
			l, _ := strconv.ParseUint(tab.Get(row, "infiniband.reth.dmalen"), 10, 32)
			reqs = append(reqs, req{src, dst, uint32(psn), at, l})
		case "15", "16": // RC RDMA READ Response Last, Only
			k := src + ">" + dst
			dup := false
			for _, x := range lasts[k] {
				dup = dup || x.psn == uint32(psn)
			}
			if !dup {
				lasts[k] = append(lasts[k], last{uint32(psn), at})
			}
		}
	}
	var answered, octets uint64
	var lo, hi, sum int64
	for _, r := range reqs {
		best, ok := last{}, false
		for _, x := range lasts[r.dst+">"+r.src] {
			if d := (x.psn - r.psn) & (1<<24 - 1); d < 1<<23 && (!ok || d < (best.psn-r.psn)&(1<<24-1)) {
				best, ok = x, true
			}
		}
		if !ok {
			continue
		}
		rt := best.at - r.at
		if answered == 0 || rt < lo {
			lo = rt
		}
		hi = max(hi, rt)
		sum += rt
		answered++
		octets += r.n
	}
	if len(reqs) == 0 {
		return nil
	}
	row := []string{"RDMA Read", strconv.Itoa(len(reqs)), strconv.FormatUint(answered, 10), strconv.FormatUint(octets, 10), "", "", ""}
	if answered > 0 {
		d := func(ns int64) string { return time.Duration(ns).Round(time.Microsecond).String() }
		row[4], row[5], row[6] = d(lo), d(sum/int64(answered)), d(hi)
	}
	return row
}

// TestReadSRTMatchesTshark: -z infiniband,srt on the RoCE captures with
// RDMA READs (perftest ib_read_bw, rping, NFS over RPC-over-RDMA) equals
// the row made from tshark's stored decode. It is dissect/ib's table,
// tested here: READ messages are assembled only in an engine with a
// protocol above InfiniBand, such as this package.
func TestReadSRTMatchesTshark(t *testing.T) {
	for _, path := range []string{
		"../../pcaps/ib/roce_read_bw.pcap",
		"../../pcaps/ib/roce_rping.pcap",
		"../../pcaps/kernel/nfs3_rdma_roce.pcap",
	} {
		want := tsharkReads(t, path+".tshark-fields.tsv")
		if want == nil {
			t.Errorf("%s: tshark's decode has no READ", path)
			continue
		}
		eng := dissect.NewEngine(dissect.Options{})
		if err := testpkt.Each(path, func(p dissect.Packet) error { eng.Decode(p); return nil }); err != nil {
			t.Fatal(err)
		}
		tb := eng.Stat("infiniband,srt")
		if len(tb.Rows) != 1 || strings.Join(tb.Rows[0], " | ") != strings.Join(want, " | ") {
			t.Errorf("%s: infiniband,srt %q, tshark's decode gives %q", path, tb.Rows, want)
		}
	}
}

// TestReadSRTLossy: on the lossy NFS-over-RoCE captures every READ the
// server issued for the 1 MiB NFS WRITE (the lab's write1M finished) is
// counted once and answered, though requests were sent again after NAKs
// (frames 962-1008 of lossy_nfs3_rdma_roce, whose first copy of PSN
// 13932075 the capture lost) and responses lost; -2 and -j 2 give the same
// row as one pass on one core.
func TestReadSRTLossy(t *testing.T) {
	for _, path := range []string{"../../pcaps/kernel/lossy_nfs3_rdma_roce.pcap", "../../pcaps/kernel/lossy_nfs3_rdma_roce_dup.pcap"} {
		run := func(two bool, jobs int) string {
			var out strings.Builder
			if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: path}, Out: &out, Quiet: true, TwoPass: two,
				Workers: jobs, Stats: []string{"infiniband,srt"}}); err != nil {
				t.Fatal(err)
			}
			return out.String()
		}
		one := run(false, 1)
		if !strings.Contains(one, "| RDMA Read |       56 |       56 |    1048576 |") {
			t.Errorf("%s: want 56 READs answered, 1 MiB:\n%s", path, one)
		}
		if two, j2 := run(true, 1), run(false, 2); two != one || j2 != one {
			t.Errorf("%s: one pass\n%s\ntwo passes\n%s\n-j 2\n%s", path, one, two, j2)
		}
	}
}
