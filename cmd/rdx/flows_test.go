package main

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// The conversation kinds above the transport: -z conv,rx|rdp|ib|rds count
// each conversation both ways, and rdx flows shows them.
func TestConversationKinds(t *testing.T) {
	for _, c := range []struct{ file, z, want string }{
		{"../../pcaps/rx/pts-ops.pcap", "conv,rx",
			"| epoch 0xbe5f2e2e cid 0x7864cdc8 | 127.0.0.1:52090 | 127.1.0.1:7002 |  2544 | 30-65   |    0.849 |"},
		{"../../pcaps/rdp/clean.pcap", "conv,rdp",
			"| 198.51.100.1:4000 | 198.51.100.2:4001 |     101 |  3844 |     103 | 106320 | 1-204  |   17.003 |"},
		// UD: the source QP is in the DETH, so both ways are one conversation
		{"../../pcaps/ib/roce_ud_pingpong.pcap", "conv,ib",
			"| 192.0.2.1 QP 0x000012 | 192.0.2.2 QP 0x000012 |  2890 | 10-21  |   20.893 |"},
		// RC: only the destination QP is in the packet
		{"../../pcaps/ib/roce_rc_pingpong.pcap", "conv,ib",
			"| 192.0.2.1             | 192.0.2.2 QP 0x000011 |     0 | 15-41  |   23.539 |"},
		{"../../pcaps/kernel/lossy_rds_tcp.pcap", "conv,rds",
			"| 192.0.2.1:43117 | 192.0.2.2:16385 |       4 |  16576 |       4 |  16576 | 16-82  |   43.830 |"},
	} {
		io, _, out, errOut := iostreams.Test()
		if code := run(io, []string{"read", "-q", "-z", c.z, c.file}); code != 0 {
			t.Fatalf("%s %s: exit %d: %s", c.z, c.file, code, errOut)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("-z %s %s lacks\n%s\n%s", c.z, c.file, c.want, out)
		}
		io, _, out, errOut = iostreams.Test()
		if code := run(io, []string{"flows", c.file}); code != 0 {
			t.Fatalf("flows %s: exit %d: %s", c.file, code, errOut)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("flows %s lacks\n%s\n%s", c.file, c.want, out)
		}
	}
}
