package main

import (
	"os"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// TestLossyNFSOverRDMA runs on NFSv3 over RDMA captured with 2% loss on the
// server's link (the lab's lossy_nfs3_rdma_* runs): the senders time out or
// get NAKs and go back N, so SENDs, RDMA WRITEs and READ responses appear
// several times, some copies are discarded by the receiver, and the capture
// misses a few packets the receiver did get. Every NFS operation completed,
// so rdx check must pass and each call must be matched with exactly one
// reply: a retransmitted SEND must not become a second "reply, no call
// seen", and a retransmitted WRITE must not count twice in a chunk.
func TestLossyNFSOverRDMA(t *testing.T) {
	for _, name := range []string{"lossy_nfs3_rdma_roce.pcap", "lossy_nfs3_rdma_roce_dup.pcap", "lossy_nfs3_rdma_iwarp.pcap"} {
		t.Run(name, func(t *testing.T) {
			file := "../../pcaps/kernel/" + name
			if _, err := os.Stat(file); err != nil {
				t.Fatalf("capture missing (it is committed): %v", err)
			}
			io, _, out, errb := iostreams.Test()
			if code := run(io, []string{"check", file}); code != 0 {
				t.Errorf("rdx check %s: exit %d\n%s%s", name, code, out, errb)
			}
			io, _, out, _ = iostreams.Test()
			if code := run(io, []string{"read", "-T", "fields", "-e", "frame.number", "-e", "rpc.xid", "-e", "rpc.msgtyp", file}); code != 0 {
				t.Fatalf("rdx read: exit %d", code)
			}
			// per XID, its calls and replies in frame order: a call, its
			// reply, and again only for an RPC-level retransmission (the
			// same XID on a new connection after a reconnect)
			seq := map[string][]string{}
			var order []string
			for _, line := range strings.Split(out.String(), "\n") {
				f := strings.Split(line, "\t")
				if len(f) < 3 || f[1] == "" {
					continue
				}
				xids, types := strings.Split(f[1], ","), strings.Split(f[2], ",")
				for i := range xids {
					if i >= len(types) {
						break
					}
					if seq[xids[i]] == nil {
						order = append(order, xids[i])
					}
					seq[xids[i]] = append(seq[xids[i]], types[i]+"@"+f[0])
				}
			}
			if len(order) < 50 {
				t.Errorf("%d XIDs decoded; the capture has more than 50", len(order))
			}
			for _, x := range order {
				ev := seq[x]
				ok := len(ev)%2 == 0
				for i := 0; ok && i < len(ev); i += 2 {
					ok = strings.HasPrefix(ev[i], "0@") && strings.HasPrefix(ev[i+1], "1@")
				}
				if !ok {
					t.Errorf("XID %s: calls (0) and replies (1) %v, want each call followed by exactly one reply", x, ev)
				}
			}
		})
	}
}
