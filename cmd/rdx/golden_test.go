package main

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

var update = flag.Bool("update", false, "rewrite the golden files in ../../golden")

// rxFields is the -T fields column set of the Rx goldens.
var rxFields = []string{"-e", "frame.number", "-e", "rx.cid", "-e", "rx.callnumber", "-e", "rx.seq", "-e", "rx.serial",
	"-e", "rx.type", "-e", "rx.flags", "-e", "rx.serviceid", "-e", "rx.reason", "-e", "rx.abort_code",
	"-e", "afs.service", "-e", "afs.reqframe", "-e", "afs.repframe", "-e", "afs.time", "-e", "_ws.expert.message", "-E", "header=y"}

func goldenCases(t *testing.T) map[string][]string {
	cases := map[string][]string{}
	caps, _ := filepath.Glob("../../pcaps/rx/*.pcap")
	caps = append(caps, "../../pcaps/public/the-tcpdump-group+tcpdump__afs.pcap", "../../pcaps/ntop+nDPI__rx.pcap")
	for _, c := range caps {
		base := strings.TrimSuffix(filepath.Base(c), ".pcap")
		cases[base+".summary"] = []string{"read", "--color", "never", c}
		cases[base+".fields"] = append([]string{"read", "-T", "fields", c}, rxFields...)
		cases[base+".verbose"] = []string{"read", "-V", "-c", "12", c}
		cases[base+".json"] = []string{"read", "-T", "json", "-c", "6", c}
	}
	// NFSv3 over RPC-over-RDMA on RoCEv2 (Linux 6.1): summary and the fields
	// the RDMA and RPC layers own
	nfs := "../../pcaps/kernel/nfs3_rdma_roce.pcap"
	cases["nfs3_rdma_roce.summary"] = []string{"read", "--color", "never", nfs}
	cases["nfs3_rdma_roce.fields"] = []string{"read", "-T", "fields", "-E", "header=y", nfs,
		"-e", "frame.number", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn", "-e", "infiniband.icrc.status",
		"-e", "rpcordma.xid", "-e", "rpcordma.msg_type", "-e", "rpc.xid", "-e", "rpc.procedure", "-e", "rpc.repframe",
		"-e", "nfs.procedure_v3", "-e", "_ws.expert.message"}
	rdp := rdpGoldenCases()
	if len(rdp) < 2 {
		t.Fatalf("want the clean and lossy captures in pcaps/rdp, have %d", len(rdp))
	}
	iwarp := iwarpGoldenCases()
	if len(iwarp) < 2*5 {
		t.Fatalf("iwarp captures missing: %d goldens", len(iwarp))
	}
	for _, more := range []map[string][]string{rdsGoldenCases(), roceGoldenCases(), rdp, iwarp, flagGoldenCases()} {
		maps.Copy(cases, more)
	}
	return cases
}

// TestGolden runs rdx read in every output mode on the real captures and
// compares with golden/NAME.MODE; `go test ./cmd/rdx -run Golden -update`
// rewrites them for review.
func TestGolden(t *testing.T) {
	for name, args := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			io, _, out, errOut := iostreams.Test()
			if code := run(io, args); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			path := filepath.Join("../../golden", name)
			if *update {
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("output differs from %s (run `make golden` and review the diff)\n%s", path, firstDiff(out.String(), string(want)))
			}
		})
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + g[i] + "\nwant: " + w[i]
		}
	}
	return "lengths differ: got " + strconv.Itoa(len(g)) + " lines, want " + strconv.Itoa(len(w))
}
