package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// rdsIBFields is the -T fields column set of the RDS over RoCE golden: the
// RDS header of each message (on the frame completing its last fragment),
// the fragment fields, and the RDMA CM exchange's private data.
var rdsIBFields = []string{"-e", "frame.number", "-e", "infiniband.bth.opcode", "-e", "rds.seq", "-e", "rds.ack",
	"-e", "rds.len", "-e", "rds.sport", "-e", "rds.dport", "-e", "rds.flags", "-e", "rds.credit", "-e", "rds.csum.status",
	"-e", "rds.msg_type", "-e", "rds.ib.qp", "-e", "rds.ib.fragment", "-e", "rds.ib.fragment_len", "-e", "rds.ib.fragment_count",
	"-e", "rds.frame_count", "-e", "rds.cong.count", "-e", "infiniband.mad.attributeid", "-e", "infiniband.cm.req.serviceid",
	"-e", "infiniband.cm.req.ip_cm.sport", "-e", "infiniband.cm.req.ip_cm.sip4", "-e", "infiniband.cm.req.ip_cm.dip4",
	"-e", "rds.cm.saddr", "-e", "rds.cm.daddr", "-e", "rds.cm.protocol_major", "-e", "rds.cm.protocol_minor",
	"-e", "rds.cm.protocol_minor_mask", "-e", "rds.cm.ack_seq", "-e", "rds.cm.credit", "-e", "_ws.expert.message", "-E", "header=y"}

func roceGoldenCases() map[string][]string {
	c := "../../pcaps/kernel/rds_rdma_roce.pcap"
	return map[string][]string{
		"rds_rdma_roce.summary": {"read", "--color", "never", c},
		"rds_rdma_roce.fields":  append([]string{"read", "-T", "fields", c}, rdsIBFields...),
	}
}

// TestRoCEGolden runs rdx read on the real RDS-over-RoCE capture and compares
// with golden/rds_rdma_roce.*; `go test ./cmd/rdx -run RoCEGolden -update`
// rewrites them.
func TestRoCEGolden(t *testing.T) {
	for name, args := range roceGoldenCases() {
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
				t.Errorf("output differs from %s\n%s", path, firstDiff(out.String(), string(want)))
			}
		})
	}
}
