package ibcm

import (
	"slices"
	"sync"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/internal/testpkt"
	ibasm "github.com/rdx-project/rdx/reassembly/ib"
)

// mad builds a CM MAD of attribute attr with the given comm IDs.
func mad(attr uint16, local, remote uint32) []byte {
	b := make([]byte, MADLen)
	b[0], b[1], b[2], b[3] = 1, ClassCM, 2, 3
	b[16], b[17] = byte(attr>>8), byte(attr)
	b[24], b[25], b[26], b[27] = byte(local>>24), byte(local>>16), byte(local>>8), byte(local)
	b[28], b[29], b[30], b[31] = byte(remote>>24), byte(remote>>16), byte(remote>>8), byte(remote)
	return b
}

// tables is an engine whose ibcm.service_id table the fed frames use.
var tables = sync.OnceValue(func() *dissect.Engine { return dissect.NewEngine(dissect.Options{}) })

// feed offers each MAD as one QP1 SEND and returns the PDUs' summaries.
func feed(t testing.TB, d *State, msgs [][]byte) []string {
	return testpkt.IBSends(t, d.IBMessage, 1, tables(), false, msgs)
}

func TestREQREP(t *testing.T) {
	req := mad(AttrREQ, 0x11, 0)
	copy(req[32:], []byte{0, 0, 0, 0, 1, 6, 0x48, 0xca})
	copy(req[offReqPriv:], []byte{0, 0x40, 0xe6, 0xbb})
	copy(req[offReqPriv+16:], []byte{192, 0, 2, 2})
	copy(req[offReqPriv+32:], []byte{192, 0, 2, 1})
	rep := mad(AttrREP, 0x22, 0x11)
	rej := mad(AttrREJ, 0x22, 0x11)
	rej[35] = 28
	got := feed(t, New(), [][]byte{req, rep, mad(AttrRTU, 0x11, 0x22), rej, mad(AttrDREQ, 0x11, 0x22), mad(AttrDREP, 0x22, 0x11), req[:100]})
	want := []string{
		"CM ConnectRequest comm 0x00000011 QPN 0x000000 PSN 0x000000 RDMA CM TCP port 18634 192.0.2.2:59067→192.0.2.1 RDS (no private data)", // rds is linked by the tshark test
		"CM ConnectReply comm 0x00000022 QPN 0x000000 PSN 0x000000 RDS (no private data)",
		"CM ReadyToUse comm 0x00000011",
		"CM ConnectReject comm 0x00000022 reason Consumer Reject",
		"CM DisconnectRequest comm 0x00000011",
		"CM DisconnectReply comm 0x00000022",
		"CM ConnectRequest [truncated]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// FuzzCM offers arbitrary QP1 SENDs: no panic, bounded state.
func FuzzCM(f *testing.F) {
	req := mad(AttrREQ, 1, 0)
	copy(req[32:], []byte{0, 0, 0, 0, 1, 6, 0x40, 0x01})
	req[offReqPriv+1] = 0x60
	f.Add(req, mad(AttrREP, 2, 1))
	f.Add(mad(AttrRTU, 1, 2), []byte{1, 7, 2})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		d := New()
		out := feed(t, d, [][]byte{a, b, a})
		if d.comms.Len() > maxComms {
			t.Fatal("unbounded")
		}
		// The same messages to a fresh state say the same.
		if again := feed(t, New(), [][]byte{a, b, a}); !slices.Equal(out, again) {
			t.Fatalf("%q, then %q", out, again)
		}
	})
}

// TestOnlyQP1: IBMessage declines, without a PDU or finding, every SEND
// not to QP 1, however CM-like: so the engine may skip the heuristic for
// other QPs (dissect.AddHeuristicFor) with the same result.
func TestOnlyQP1(t *testing.T) {
	msgs := [][]byte{mad(AttrREQ, 0x11, 0), mad(AttrREP, 0x22, 0x11), mad(AttrDREQ, 0x11, 0x22), mad(AttrREQ, 0, 0)[:100]}
	if got := feed(t, New(), msgs); len(got) == 0 {
		t.Fatal("QP 1: no PDU")
	}
	for _, qp := range []uint32{0, 2, 0x11, 0xffffff} {
		d := New()
		took := func(f *dissect.Frame, p *ib.Packet, m *ibasm.Message) bool {
			ok := d.IBMessage(f, p, m)
			if ok {
				t.Errorf("QP %#x: a CM MAD taken", qp)
			}
			return ok
		}
		if got := testpkt.IBSends(t, took, qp, tables(), true, msgs); len(got) != 0 {
			t.Errorf("QP %#x: %q", qp, got)
		}
	}
}
