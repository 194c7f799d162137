package rds

import (
	"slices"
	"testing"

	"github.com/rdx-project/rdx/internal/testpkt"
)

// ibFrag builds one RDS/IB fragment: header (checksum set) + n data octets.
func ibFrag(seq uint64, l uint32, sport, dport uint16, n int) []byte {
	h := HeaderFields{Seq: seq, Len: l, Sport: sport, Dport: dport, SetCsum: true}
	return append(h.Encode(nil), make([]byte, n)...)
}

// ibFeed offers each payload as one IB SEND message (one frame each) and
// builds the tree and summary of every PDU.
func ibFeed(t testing.TB, d *State, sends [][]byte) []string {
	return testpkt.IBSends(t, d.IBMessage, 0x21, nil, true, sends)
}

func TestIBFragments(t *testing.T) {
	d := New(nil)
	got := ibFeed(t, d, [][]byte{
		ibFrag(1, 5000, 4000, 4001, 4096),
		ibFrag(0, 0, 0, 0, 0), /* an ACK-only between fragments */ // ack-only is seq 0: allowed between fragments
		ibFrag(1, 5000, 4000, 4001, 904),
		ibFrag(2, 9000, 4000, 4001, 4096),
		ibFrag(3, 9000, 4000, 4001, 4096), // header mismatch: seq differs
		ibFrag(3, 9000, 4000, 4001, 4096),
		ibFrag(3, 9000, 4000, 4001, 100), // wrong length: 808 expected
	})
	want := []string{
		"[RDS fragment 1/2 seq=1 len=5000]",
		"ACK seq=0 len=0",
		"DATA 4000→4001 seq=1 len=5000 [2 fragments]",
		"[RDS fragment 1/3 seq=2 len=9000]",
		"[RDS fragment 1/3 seq=3 len=9000]",
		"RDS/IB fragment header mismatch: after fragment 1 of seq 2 (len 9000, ports 4000→4001, 4904 octets missing) comes seq 3 (len 9000, ports 4000→4001): Linux forces a reconnect",
		"[RDS fragment 2/3 seq=3 len=9000]",
		"[RDS fragment 3/3 seq=3 len=9000]",
		"RDS/IB fragment 3 carries 100 data octets; 808 expected (808 of h_len 9000 left)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	// Not RDS: no verified checksum on an unknown QP.
	d2 := New(nil)
	bad := ibFrag(1, 10, 4000, 4001, 10)
	bad[30] ^= 1
	if out := ibFeed(t, d2, [][]byte{bad}); len(out) != 0 {
		t.Errorf("unverified header claimed: %q", out)
	}
}

// FuzzRDSIB cuts data into SEND messages (cuts: lengths) and offers them as
// RDS/IB fragments: no panic, bounded state.
func FuzzRDSIB(f *testing.F) {
	// Small seeds keep the fuzzer fast; TestIBFragments covers 4096-octet
	// fragments.
	f.Add(append(ibFrag(1, 0, 4000, 0, 0), ibFrag(2, 3, 4000, 4001, 3)...), []byte{0, 48, 0, 51})
	f.Add(append(ibFrag(0, 0, 0, 0, 0), ibFrag(2, 1, 4001, 0, 1)...), []byte{0, 48, 0, 49})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		var sends [][]byte
		for k := 0; len(data) > 0; k++ {
			n := len(data)
			if 2*k+1 < len(cuts) {
				n = max(1, min(n, int(cuts[2*k])<<8|int(cuts[2*k+1])))
			}
			sends = append(sends, data[:n])
			data = data[n:]
		}
		d := New(nil)
		ibFeed(t, d, sends)
		for _, q := range d.ibs.qps {
			if len(q.frames) > maxMsgFrames || len(q.cong) > maxCongPorts || q.asm.Next() > MaxMsgLen || len(q.asm.Frames()) > maxMsgFrames {
				t.Fatalf("unbounded state %d %d %d", len(q.frames), len(q.cong), q.asm.Next())
			}
		}
	})
}
