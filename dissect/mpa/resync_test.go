package mpa_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/mpa"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// TestResyncMidStream: a capture that starts in the middle of an FPDU of a
// marker stream (no Request/Reply: markers and CRC come from the config,
// the marker phase is unknown), with a retransmitted segment, a partly
// overlapping retransmission and a lost segment, through the engine and TCP
// reassembly. rdx must find exactly the FPDUs a full decode would: every
// one wholly inside the captured octets, the one before the first marker
// included, none lost to the retransmissions.
func TestResyncMidStream(t *testing.T) {
	const base = 0xffffe000 // markers and FPDUs cross the sequence wrap
	var stream []byte
	type span struct {
		lo, hi int
		msn    uint32
	}
	var fpdus []span
	for i, n := 0, 0; len(stream) < 30000; i++ {
		n = 40 + (i*397)%1400
		pl := make([]byte, n)
		for j := range pl {
			pl[j] = byte(i + j)
		}
		u := ddp.EncodeUntagged(nil, true, ddp.OpSend, 0, 0, uint32(i+1), 0, pl)
		lo := len(stream)
		stream = mpa.EncodeFPDU(stream, u, uint32(lo), true, true)
		fpdus = append(fpdus, span{lo, len(stream), uint32(i + 1)})
	}
	const segLen = 1200
	start := fpdus[2].lo + 100 // capture starts inside FPDU 3
	lostLo, lostHi := start+6*segLen, start+7*segLen
	w := newPcap()
	seg := func(lo, hi int) {
		hi = min(hi, len(stream))
		w.seg(1, 2, 40003, 4210, base+uint32(lo), 77, pshAck, stream[lo:hi])
	}
	for lo := start; lo < len(stream); lo += segLen {
		if lo == lostLo {
			continue // lost
		}
		seg(lo, lo+segLen)
		if lo == start+3*segLen {
			seg(lo, lo+segLen) // exact retransmission
		}
		if lo == start+9*segLen {
			seg(lo-600, lo+segLen) // retransmission overlapping the previous segment
		}
		w.seg(2, 1, 4210, 40003, 77, base+uint32(min(lo+segLen, len(stream))), ackFlag, nil)
	}
	path := filepath.Join(t.TempDir(), "resync.pcap")
	if d := os.Getenv("RDX_KEEP"); d != "" {
		path = d
	}
	if err := os.WriteFile(path, w.b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	da, err := dissect.ParseDecodeAs("tcp.port==4210,mpa")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tsharktest.Decode(path, dissect.Options{DecodeAs: []dissect.DecodeAs{da},
		Config: map[string]string{mpa.ConfigMarkers: "1", mpa.ConfigCRC: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	var want, have []string
	for _, f := range fpdus {
		if f.lo >= start && (f.hi <= lostLo || f.lo >= lostHi) {
			want = append(want, itoa(uint64(f.msn)))
		}
	}
	crcBad, markBad := 0, 0
	for n := uint64(1); n <= uint64(len(got)); n++ {
		have = append(have, got[n]["iwarp_ddp.msn"]...)
		for _, v := range got[n]["iwarp_mpa.crc.status"] {
			crcBad += map[bool]int{true: 1}[v != "1"]
		}
		for _, v := range got[n]["iwarp_mpa.marker.status"] {
			markBad += map[bool]int{true: 1}[v != "1"]
		}
	}
	if len(want) < 20 || len(have) != len(want) {
		t.Fatalf("FPDUs (by MSN):\n got %v\nwant %v", have, want)
	}
	for i := range want {
		if have[i] != want[i] {
			t.Fatalf("FPDUs (by MSN):\n got %v\nwant %v", have, want)
		}
	}
	if crcBad != 0 || markBad != 0 {
		t.Errorf("%d bad CRCs, %d bad marker sets", crcBad, markBad)
	}
	t.Logf("%d FPDUs found mid-stream across a retransmission, an overlap and a gap; first MSN %s", len(have), have[0])
}
