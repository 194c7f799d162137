package main

import (
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/internal/strict"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// TestGeneratedDecodes writes a small capture and decodes it: every ICRC
// good, every SEND RPC-over-RDMA, every call and reply NFS (WRITE data
// rebuilt from the read chunk), no error or warning findings.
// With -flows 16, the same holds, and the first 16 frames come from 16
// clients (the flows are interleaved packet by packet).
func TestGeneratedDecodes(t *testing.T) {
	for _, k := range []int{1, 16} {
		t.Run(strconv.Itoa(k), func(t *testing.T) { testGenerated(t, k) })
	}
}

func testGenerated(t *testing.T, k int) {
	path := filepath.Join(t.TempDir(), "roce.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := WriteFlows(f, 2000, 1024, 4096, k)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	eng := dissect.NewEngine(dissect.Options{})
	protos := map[string]int{}
	checks := map[string][2]int{}
	var p capture.Packet
	frames := 0
	first := map[netip.Addr]bool{}
	for num := uint64(1); r.Next(&p) == nil; num++ {
		frames++
		fr := eng.Decode(dissect.Packet{Num: num, TimeNS: p.TimeNS, CapLen: p.CapLen, WireLen: p.WireLen, LinkType: p.LinkType, Iface: p.Iface, Data: p.Data})
		if num <= uint64(k) {
			first[fr.Net.Src] = true
		}
		for _, pd := range fr.PDUs {
			protos[pd.Proto().Abbrev]++
		}
		for _, fd := range fr.Findings {
			if fd.Sev >= dissect.Warn {
				t.Errorf("frame %d: %s %s: %s", num, fd.Proto, fd.Sev, fd.Msg)
			}
		}
		tsharktest.TallyChecks(checks, fr)
	}
	if frames != n {
		t.Fatalf("%d frames read, %d written", frames, n)
	}
	if len(first) != k {
		t.Errorf("the first %d frames come from %d hosts, want %d", k, len(first), k)
	}
	t.Logf("%d frames: PDUs %v, checks %v", n, protos, checks)
	if c := checks["infiniband.icrc"]; c[0] != n || c[1] != 0 {
		t.Errorf("ICRC checks %v, want %d good", c, n)
	}
	// 2 SENDs per exchange (4 or 9 packets), each an NFS call or reply;
	// the WRITE calls complete with their read chunk.
	sends := checks["rpcordma.header"][0]
	if sends < n/7*2 || protos["nfs"] != sends || checks["rpc.reply_matched"][0] != sends/2 {
		t.Errorf("PDUs %v, checks %v", protos, checks)
	}
}

// TestMain runs every engine strict: a dissector panic fails the test
// instead of becoming a finding.
func TestMain(m *testing.M) { strict.Main(m) }
