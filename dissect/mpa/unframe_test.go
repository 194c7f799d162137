package mpa

import (
	"bytes"
	"errors"
	"testing"
)

// TestUnframeRoundTrip: every FPDU EncodeFPDU builds, at every 4-aligned
// stream position and size around the 512-octet marker grid, comes back
// from WireLen/Unframe as the same ULPDU; a flipped CRC octet or a moved
// FPDUPTR is reported as the FrameError an active stack terminates with.
func TestUnframeRoundTrip(t *testing.T) {
	for _, markers := range []bool{false, true} {
		for _, crc := range []bool{false, true} {
			for rel := uint32(0); rel < 2*MarkerInterval; rel += 4 {
				for _, n := range []int{0, 1, 14, 18, 500, 506, 507, 1100} {
					ulpdu := bytes.Repeat([]byte{byte(n), byte(rel)}, n)[:n]
					fp := EncodeFPDU(nil, ulpdu, rel, markers, crc)
					w, ok := WireLen(fp[:min(6, len(fp))], rel, markers)
					if !ok || w != len(fp) {
						t.Fatalf("m=%v rel=%d n=%d: WireLen %d,%v want %d", markers, rel, n, w, ok, len(fp))
					}
					got, err := Unframe([]byte("x"), fp, rel, markers, crc)
					if err != nil || !bytes.Equal(got[1:], ulpdu) || got[0] != 'x' {
						t.Fatalf("m=%v c=%v rel=%d n=%d: %v", markers, crc, rel, n, err)
					}
				}
			}
		}
	}
	fp := EncodeFPDU(nil, make([]byte, 600), 100, true, true)
	bad := append([]byte(nil), fp...)
	bad[len(bad)-1] ^= 1
	var fe *FrameError
	if _, err := Unframe(nil, bad, 100, true, true); !errors.As(err, &fe) || fe.Marker {
		t.Errorf("flipped CRC: %v", err)
	}
	if _, err := Unframe(nil, bad, 100, true, false); err != nil {
		t.Errorf("CRC off: the CRC field is not checked: %v", err)
	}
	// The first interior marker of an FPDU starting at rel 100 is at offset 412.
	bad = append([]byte(nil), fp...)
	bad[412+3] += 4
	if _, err := Unframe(nil, bad, 100, true, false); !errors.As(err, &fe) || !fe.Marker || fe.Offset != 412 {
		t.Errorf("moved FPDUPTR: %v", err)
	}
	if _, err := Unframe(nil, fp[:len(fp)-4], 100, true, true); err == nil {
		t.Error("short FPDU accepted")
	}
}

func TestMULPDU(t *testing.T) {
	for _, c := range []struct {
		emss    int
		markers bool
		want    int
	}{{1460, false, 1454}, {1460, true, 1442}, {1461, false, 1454}, {100, false, 128}, {65483, false, MaxULPDU}} {
		if got := MULPDU(c.emss, c.markers); got != c.want {
			t.Errorf("MULPDU(%d,%v) = %d, want %d", c.emss, c.markers, got, c.want)
		}
	}
	b := EncodeIRDORD(nil, 0x4001, 2, IRDPeerToPeer, ORDReadRTR)
	if ird, ord, ci, co := IRDORD(b); ird != 1 || ord != 2 || ci != IRDPeerToPeer || co != ORDReadRTR {
		t.Errorf("IRDORD(%x) = %d %d %x %x", b, ird, ord, ci, co)
	}
}
