package rpcrdma_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rpcrdma"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// tsharkMalformed returns the frames tshark's stored decode marks malformed.
func tsharkMalformed(t *testing.T, tsv string) map[uint64]bool {
	t.Helper()
	tbl, err := tsharktest.ReadTSV(tsv)
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range tbl.Header {
		if h == "_ws.malformed.expert" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("%s: no _ws.malformed.expert column", tsv)
	}
	out := map[uint64]bool{}
	for n, r := range tbl.Rows {
		if col < len(r) && r[col] != "" {
			out[n] = true
		}
	}
	return out
}

// TestHeuristicWiresharkWrong: tshark 4.0.17's RPC-over-RDMA heuristic
// claims SENDs that are not RPC-over-RDMA, then throws (Malformed) and
// shows nothing after, not even the ICRC. rdx leaves them to their owner.
//
//   - RDS over IB (rds_rdma_roce frames 18 and 35, an RDS ping and pong):
//     the RDS header's 64-bit sequence number 1 reads as XID 0, version 1.
//     The next words are not an RPC-over-RDMA header: the write list
//     discriminator is 0x0fa10000 (frame 18) or 0x00000fa1 (frame 35),
//     which tshark takes as "present", but the chunk lists of RFC 8166
//     §4.3 are XDR optional data, whose discriminator is 0 or 1 (RFC 4506
//     §4.19), and frame 35's write chunk would then hold 2^25 segments in
//     48 octets. rdx's heuristic refuses them; rdx decodes RDS.
//   - perftest ib_send_bw (roce_send_bw_rdmacm frames 8-18): SEND Only
//     payloads of 2 or 4 octets, shorter than the 28-octet minimum of an
//     RPC-over-RDMA v1 header (RFC 8166 §4.2: XID, version, credits,
//     procedure and three list discriminators).
func TestHeuristicWiresharkWrong(t *testing.T) {
	for _, c := range []struct {
		pcap   string
		frames []uint64
		proto  string // the protocol rdx decodes the payload as ("" none)
	}{
		{"../../pcaps/kernel/rds_rdma_roce.pcap", []uint64{18, 35}, "rds"},
		{"../../pcaps/ib/roce_send_bw_rdmacm.pcap", []uint64{8, 10, 12, 14, 16, 18}, ""},
	} {
		bad := tsharkMalformed(t, c.pcap+".tshark-fields.tsv")
		got, err := tsharktest.DecodeWithFindings(tsharktest.Capture(t, c.pcap), dissect.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range c.frames {
			if !bad[n] {
				t.Errorf("%s frame %d: tshark's stored decode no longer malformed: re-check this test", c.pcap, n)
			}
			r := got[n]
			payload, err := hex.DecodeString(strings.Join(r["infiniband.payload"], ""))
			if err != nil || len(payload) == 0 {
				t.Fatalf("%s frame %d: payload %q", c.pcap, n, r["infiniband.payload"])
			}
			if rpcrdma.Heuristic(payload) {
				t.Errorf("%s frame %d: rdx's heuristic claims %x", c.pcap, n, payload)
			}
			protos := strings.Join(r["frame.protocols"], "")
			if strings.Contains(protos, "rpcordma") || c.proto != "" && !strings.HasSuffix(protos, ":"+c.proto) {
				t.Errorf("%s frame %d: protocols %s, want %q last", c.pcap, n, protos, c.proto)
			}
			if s := strings.Join(r["infiniband.icrc.status"], ""); s != "1" {
				t.Errorf("%s frame %d: ICRC status %q, want good", c.pcap, n, s)
			}
			if m := r["_ws.expert.message"]; len(m) != 0 {
				t.Errorf("%s frame %d: findings %q", c.pcap, n, m)
			}
		}
	}
}
