package main

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// rdx stats prints the tables that apply and no empty ones; rdx flows the
// conversations. -z conv,udp counts both directions of each conversation.
func TestStatsAndFlows(t *testing.T) {
	io, _, out, errOut := iostreams.Test()
	if code := run(io, []string{"stats", "../../pcaps/kernel/nfs3_rdma_roce.pcap"}); code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errOut)
	}
	s := out.String()
	for _, want := range []string{"ONC RPC service response time", "| NFS     | 3       | WRITE       | 24    |", "InfiniBand flows"} {
		if !strings.Contains(s, want) {
			t.Errorf("stats lacks %q", want)
		}
	}
	if strings.Contains(s, "(none)") || strings.Contains(s, "RDP connections") || strings.Contains(s, "Rx service") {
		t.Errorf("stats printed a table that does not apply:\n%s", s)
	}
	io, _, out, errOut = iostreams.Test()
	if code := run(io, []string{"flows", "../../pcaps/rx/pts-ops.pcap"}); code != 0 {
		t.Fatalf("flows: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "| 127.0.0.1:52090 | 127.1.0.1:7002 | 24          | 4292      | 12          | 2544      | 30-65   |") {
		t.Errorf("flows:\n%s", out)
	}
	if strings.Contains(out.String(), "response time") {
		t.Error("flows printed a response-time table")
	}
}
