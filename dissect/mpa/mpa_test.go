package mpa

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math/rand"
	"net/netip"
	"slices"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/enginecheck"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// The draft-00 Fig. 5/6 FPDUs: CRC-32C over the covered octets (markers
// included) equals the 4 trailing octets read little-endian.
func TestDraftVectors(t *testing.T) {
	send := func(msn byte) []byte {
		b := []byte{0x40, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, msn, 0, 0, 0, 0}
		return append(b, make([]byte, 24)...)
	}
	fig5, _ := hex.DecodeString("00000000" + "002a" + hex.EncodeToString(send(1)) + "4c86b384")
	if got := CRC(fig5[:48]); got != 0x84B3864C || binary.LittleEndian.Uint32(fig5[48:]) != got {
		t.Fatalf("fig5 crc %08x", got)
	}
	// Our encoder rebuilds Fig. 5 exactly (first FPDU: leading marker).
	if enc := EncodeFPDU(nil, send(1), 0, true, true); !bytes.Equal(enc, fig5) {
		t.Fatalf("fig5 encode\n%x\n%x", enc, fig5)
	}
	// Fig. 6: FPDU at 0x1ec, marker at 0x200 with FPDUPTR 0x14.
	fig6 := EncodeFPDU(nil, send(2), 0x1ec, true, true)
	want6 := "002a4003000000000000000000000002000000000000001400000000" // up to and incl. the marker
	if hex.EncodeToString(fig6[:28]) != want6 || hex.EncodeToString(fig6[len(fig6)-4:]) != "a19cd103" {
		t.Fatalf("fig6 encode %x", fig6)
	}
	if CRC(fig6[:48]) != 0x03D19CA1 {
		t.Fatal("fig6 crc")
	}
}

type seen struct {
	seq          uint32
	ulen         int
	crc, markers uint8
}

// feed runs stream (split into segments at cuts) through a fresh State as
// direction 0 of one connection, starting at sequence number isn.
func feed(t *testing.T, d *State, stream []byte, isn uint32, cuts []int, gapAt, gapLen int) []seen {
	t.Helper()
	var out []seen
	d.OnFPDU = func(p *FPDU) {
		out = append(out, seen{p.seq, p.ulen, p.crcStatus, p.markerStatus})
	}
	key, _ := tcp.NewFlowKey(netip.MustParseAddrPort("10.0.0.1:1"), netip.MustParseAddrPort("10.0.0.2:2"))
	prev, frame := 0, uint64(1)
	for _, c := range append(cuts, len(stream)) {
		if c <= prev {
			continue
		}
		f := &dissect.Frame{Num: frame}
		frame++
		lo := prev
		if gapAt > 0 && lo == gapAt {
			d.StreamGap(f, &tcp.Gap{Key: key, Offset: uint64(lo), Size: uint64(gapLen), ResumeOffset: uint64(lo + gapLen), ResumeSeq: isn + uint32(lo+gapLen)})
			lo += gapLen
		}
		ch := &tcp.Chunk{Key: key, Bytes: stream[lo:c], Offset: uint64(lo), Seq: isn + uint32(lo),
			Frames: []tcp.FrameSpan{{Frame: f.Num, Len: c - lo}}}
		f.Data = stream[lo:c] // the segment's payload is the frame, at offset 0
		d.StreamData(f, ch)
		enginecheck.PDUs(t, f)
		prev = c
	}
	return out
}

// synth builds a Request/Reply-less direction: startup frame (optional),
// then FPDUs of the given ULPDU sizes; it returns the stream and the
// expected FPDU list.
func synth(startup bool, markers, crc bool, sizes []int, isn uint32) ([]byte, []seen) {
	var s []byte
	if startup {
		fl := uint8(0)
		if markers {
			fl |= FlagM
		}
		if crc {
			fl |= FlagC
		}
		s = EncodeStartup(s, false, fl, 1, []byte("pd"))
	}
	base := len(s)
	var want []seen
	for i, n := range sizes {
		u := make([]byte, n)
		u[0], u[1] = 0x41, 0x43
		for j := 2; j < n; j++ {
			u[j] = byte(i*7 + j)
		}
		st := len(s)
		s = EncodeFPDU(s, u, uint32(st-base), markers, crc)
		w := seen{seq: isn + uint32(st), ulen: n, crc: StatusUnverified, markers: StatusUnverified}
		if crc {
			w.crc = StatusGood
		}
		if markers {
			if _, m := Layout(uint32(st-base), LogicalLen(n), nil); len(m) > 0 {
				w.markers = StatusGood
			}
		}
		want = append(want, w)
	}
	return s, want
}

func TestSynthStreams(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, markers := range []bool{false, true} {
		for _, crc := range []bool{false, true} {
			for _, isn := range []uint32{1000, 0xffffff00} { // the second wraps
				sizes := []int{18, 46, 1038, 18, 2000, 700, 30, 30, 30, 5000, 18}
				stream, want := synth(true, markers, crc, sizes, isn)
				// reply side: peer asked for markers / CRC
				d := New(nil)
				d.SetUpper(nil)
				c := d.conn(keyOf())
				c.h[1].seen, c.h[1].flags = true, map[bool]uint8{true: FlagM}[markers]|map[bool]uint8{true: FlagC}[crc]
				// segments: 1-3 FPDUs per segment, FPDUs across segments
				var cuts []int
				for p := 22; p < len(stream); p += 1 + rng.Intn(3000) {
					cuts = append(cuts, p)
				}
				got := feed(t, d, stream, isn, cuts, 0, 0)
				if !slices.Equal(got, want) {
					t.Errorf("markers=%v crc=%v isn=%d:\n got %v\nwant %v", markers, crc, isn, got, want)
				}
				// mid-stream: start at the 3rd FPDU's middle; resync (CRC or config) finds the rest.
				d2 := New(nil)
				d2.SetUpper(nil)
				d2.SetConfig(markers, true, crc, true)
				start := int(want[2].seq-isn) + 100
				got2 := feed(t, d2, stream[start:], isn+uint32(start), []int{1500, 4000}, 0, 0)
				exp := want[3:]
				if len(got2) < 5 || !slices.Equal(got2, exp) {
					t.Errorf("resync markers=%v crc=%v isn=%d:\n got %v\nwant %v", markers, crc, isn, got2, exp)
				}
			}
		}
	}
}

func keyOf() tcp.FlowKey {
	k, _ := tcp.NewFlowKey(netip.MustParseAddrPort("10.0.0.1:1"), netip.MustParseAddrPort("10.0.0.2:2"))
	return k
}

func TestGapAndBadCRC(t *testing.T) {
	sizes := []int{18, 46, 1038, 18, 2000, 700, 30, 30}
	stream, want := synth(true, false, true, sizes, 5)
	d := New(nil)
	// gap inside FPDU 4 (after its header): it is lost, the rest decodes.
	at := int(want[4].seq-5) + 20
	got := feed(t, d, stream, 5, []int{at, at + 100}, at, 100)
	exp := append(append([]seen{}, want[:4]...), want[5:]...)
	if !slices.Equal(got, exp) {
		t.Errorf("gap:\n got %v\nwant %v", got, exp)
	}
	// a flipped payload octet: that FPDU's CRC is bad, alignment is kept.
	bad := append([]byte(nil), stream...)
	bad[int(want[2].seq-5)+30] ^= 1
	got = feed(t, New(nil), bad, 5, nil, 0, 0)
	if len(got) != len(want) || got[2].crc != StatusBad || got[3].crc != StatusGood {
		t.Errorf("flip: %v", got)
	}
}

func FuzzMPA(f *testing.F) {
	s, _ := synth(true, true, true, []int{18, 600, 46}, 7)
	f.Add(s, uint32(7), true)
	s, _ = synth(false, false, true, []int{18, 46}, 0xfffffff0)
	f.Add(s, uint32(0xfffffff0), false)
	l := EncodeFPDULegacy(nil, make([]byte, 40), 0, false)
	l = EncodeFPDULegacy(l, make([]byte, 1038), uint32(len(l))-CRCLen, false)
	f.Add(EncodeFPDULegacy(l, make([]byte, 1038), uint32(len(l))-2*CRCLen, false), uint32(9), true)
	f.Fuzz(func(t *testing.T, b []byte, isn uint32, mk bool) {
		d := New(nil)
		d.SetConfig(mk, true, false, false)
		var cuts []int
		for i := 1; i < len(b); i += 1 + int(b[i-1])%700 {
			cuts = append(cuts, i)
		}
		feed(t, d, b, isn, cuts, 0, 0)
		d.StreamClose(&dissect.Frame{}, keyOf(), tcp.CloseFlush)
	})
}

// BenchmarkCRC measures CRC validation throughput of FPDU payload.
func BenchmarkCRC(b *testing.B) {
	fp := EncodeFPDU(nil, make([]byte, 1448), 0, false, true)
	b.SetBytes(int64(len(fp)))
	for b.Loop() {
		if CRC(fp[:len(fp)-4]) != binary.LittleEndian.Uint32(fp[len(fp)-4:]) {
			b.Fatal("crc")
		}
	}
}

// hex32 shows CRCs in findings and trees: always eight digits.
func TestHex32(t *testing.T) {
	for v, want := range map[uint32]string{0: "00000000", 0x1a: "0000001a", 0xdeadbeef: "deadbeef"} {
		if got := hex32(v); got != want {
			t.Errorf("hex32(%#x) = %q, want %q", v, got, want)
		}
	}
}
