package mpa

import (
	"encoding/binary"
	"slices"
	"testing"
)

// TestLegacyMarkers: the Wireshark wiki capture iwarp_rdma/
// read_write_long_run_mrkr (2008, M=1 both ways, CRC off) does not place
// markers as RFC 5044 §4.3 or draft-00 §7.1 say (every 512 octets of
// sequence space from the first FPDU, FPDUPTR big-endian). The server's
// marker base is seq 250219589 (first octet after its Reply); its first
// Write FPDU starts at relative 44 (frame 13), 1052 octets = 2 + 1038 +
// 4 CRC + 2 markers. Byte evidence from frame 13's TCP payload:
//
//	offset 468 (relative 512, where RFC 5044 puts a marker): 02 02 02 02
//	  (the Write's fill pattern: no marker there)
//	offset 472 (relative 516): 00 00 d8 01 -> FPDUPTR 0x01d8 = 472 little-endian
//	offset 984 (relative 1028): 00 00 d8 03 -> 0x03d8 = 984 little-endian
//
// and in every later FPDU the markers sit 4 octets further per preceding
// FPDU: they fall every 512 octets of the stream counted without the
// 4-octet CRC fields (marker k at 512k + 4·(FPDUs before it)). Walking both
// directions with that rule puts all 85 markers (63 FPDUs) where they point
// back at their FPDU, the streams end exactly on an FPDU boundary, and the
// decoded messages (20 Writes, 20 Read Requests, 20 Read Responses, 3
// Sends) are those of the same workload without markers
// (iwarp_rdma/read_write_long_run). Draft-00 defines the same placement and
// byte order as RFC 5044 (and keeps the CRC field when CRCs are off), so
// this is the 2008 sender's own rule; rdx detects it per direction (legacy
// mode, a Note naming the rule) and decodes with it.
func TestLegacyMarkers(t *testing.T) {
	for _, isn := range []uint32{1000, 0xfffff000} {
		sizes := []int{18, 46, 1038, 1038, 18, 2000, 700, 30, 30, 30, 5000, 1038, 18}
		s := EncodeStartup(nil, false, 0, 1, []byte("pd"))
		base := len(s)
		var want []seen
		for i, n := range sizes {
			u := make([]byte, n)
			u[0], u[1] = 0x41, 0x43
			for j := 2; j < n; j++ {
				u[j] = 2 // the capture's fill: markers at RFC positions would read 0x0202
			}
			st := len(s)
			rel := uint32(st-base) - uint32(i)*CRCLen
			s = EncodeFPDULegacy(s, u, rel, false)
			w := seen{seq: isn + uint32(st), ulen: n, crc: StatusUnverified, markers: StatusUnverified}
			if _, m := LayoutLegacy(rel, LogicalLen(n), nil); len(m) > 0 {
				w.markers = StatusGood
			}
			want = append(want, w)
		}
		d := New(nil)
		d.SetUpper(nil)
		c := d.conn(keyOf())
		c.h[1].seen, c.h[1].flags = true, FlagM
		got := feed(t, d, s, isn, []int{22, 700, 1500, 4000, 4100, 9000}, 0, 0)
		if !slices.Equal(got, want) {
			t.Errorf("isn %d:\n got %v\nwant %v", isn, got, want)
		}
		if h := &c.h[0]; !h.legacy || !h.legacyKnown {
			t.Errorf("isn %d: legacy rule not detected", isn)
		}
	}
	// An RFC 5044 stream is never taken for legacy.
	stream, want := synth(true, true, false, []int{18, 46, 1038, 1038, 18, 2000, 700}, 5)
	d := New(nil)
	d.SetUpper(nil)
	c := d.conn(keyOf())
	c.h[1].seen, c.h[1].flags = true, FlagM
	if got := feed(t, d, stream, 5, []int{100, 2000}, 0, 0); !slices.Equal(got, want) || c.h[0].legacy {
		t.Errorf("RFC stream:\n got %v\nwant %v", got, want)
	}
	// The encoder writes FPDUPTR little-endian: 472 = d8 01.
	fp := EncodeFPDULegacy(nil, make([]byte, 1038), 40, false)
	if binary.BigEndian.Uint32(fp[472:]) != 0x0000d801 {
		t.Errorf("marker at 472: % x", fp[472:476])
	}
}
