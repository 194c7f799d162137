package mpa_test

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/mpa"
	"github.com/rdx-project/rdx/internal/inet"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

var updateSynth = flag.Bool("update-synth", false, "rewrite pcaps/iwarp/synth_*.pcap (then regenerate their TSVs with tshark-truth, see TestSideBySide)")

// pcapWriter builds a classic little-endian Ethernet pcap of TCP/IPv4
// segments with valid IP and TCP checksums.
type pcapWriter struct {
	b  bytes.Buffer
	ts uint32
}

func newPcap() *pcapWriter {
	w := &pcapWriter{}
	hdr := []uint32{0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1}
	for i, v := range hdr {
		if i == 1 {
			binary.Write(&w.b, binary.LittleEndian, uint16(2))
			binary.Write(&w.b, binary.LittleEndian, uint16(4))
			continue
		}
		binary.Write(&w.b, binary.LittleEndian, v)
	}
	return w
}

// csum is the Internet checksum of b added to the running sum.
func csum(b []byte, sum uint32) uint16 { return ^inet.Fold(inet.Sum(sum, b)) }

// seg writes one segment from host a (10.0.0.a:pa) to host b.
func (w *pcapWriter) seg(a, b byte, pa, pb uint16, seq, ack uint32, flags byte, payload []byte) {
	ip := []byte{0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, a, 10, 0, 0, b}
	binary.BigEndian.PutUint16(ip[2:], uint16(20+20+len(payload)))
	binary.BigEndian.PutUint16(ip[10:], csum(ip, 0))
	seg := append(testpkt.TCP(nil, pa, pb, seq, ack, flags, 65535), payload...)
	pseudo := append(append([]byte{}, ip[12:20]...), 0, 6, byte(len(seg)>>8), byte(len(seg)))
	var s uint32
	for i := 0; i < len(pseudo); i += 2 {
		s += uint32(binary.BigEndian.Uint16(pseudo[i:]))
	}
	binary.BigEndian.PutUint16(seg[16:], csum(seg, s))
	eth := []byte{0, 0, 0, 0, 0, b, 0, 0, 0, 0, 0, a, 8, 0}
	frame := append(append(eth, ip...), seg...)
	w.ts++
	binary.Write(&w.b, binary.LittleEndian, []uint32{1700000000, w.ts * 1000, uint32(len(frame)), uint32(len(frame))})
	w.b.Write(frame)
}

const (
	synFlag = 0x02
	ackFlag = 0x10
	pshAck  = 0x18
)

// conn is one MPA connection being written: client 10.0.0.1, server 10.0.0.2.
type sconn struct {
	w      *pcapWriter
	cp, sp uint16
	cseq   uint32 // next client octet
	sseq   uint32
	cb, sb uint32 // marker bases (first full-operation octet)
	msn    [2]uint32
}

func startConn(w *pcapWriter, cp uint16, cisn, sisn uint32, flags uint8) *sconn {
	c := &sconn{w: w, cp: cp, sp: 4210, cseq: cisn + 1, sseq: sisn + 1}
	w.seg(1, 2, cp, 4210, cisn, 0, synFlag, nil)
	w.seg(2, 1, 4210, cp, sisn, cisn+1, synFlag|ackFlag, nil)
	w.seg(1, 2, cp, 4210, cisn+1, sisn+1, ackFlag, nil)
	c.send(0, mpa.EncodeStartup(nil, false, flags, 1, nil))
	c.send(1, mpa.EncodeStartup(nil, true, flags, 1, nil))
	c.cb, c.sb = c.cseq, c.sseq
	return c
}

func (c *sconn) send(dir int, p []byte) {
	if dir == 0 {
		c.w.seg(1, 2, c.cp, c.sp, c.cseq, c.sseq, pshAck, p)
		c.cseq += uint32(len(p))
	} else {
		c.w.seg(2, 1, c.sp, c.cp, c.sseq, c.cseq, pshAck, p)
		c.sseq += uint32(len(p))
	}
}

// fpdus sends one segment holding a Send FPDU per payload size, markers
// placed for the segment's stream position.
func (c *sconn) fpdus(dir int, sizes ...int) int {
	seq, base := c.cseq, c.cb
	if dir == 1 {
		seq, base = c.sseq, c.sb
	}
	var p []byte
	for _, n := range sizes {
		c.msn[dir]++
		pl := bytes.Repeat([]byte{byte(c.msn[dir])}, n)
		u := ddp.EncodeUntagged(nil, true, ddp.OpSend, 0, 0, c.msn[dir], 0, pl)
		p = mpa.EncodeFPDU(p, u, seq+uint32(len(p))-base, true, true)
	}
	c.send(dir, p)
	return len(sizes)
}

// buildSideBySide makes the capture: connection 1 packs two FPDUs per
// segment with a marker inside the second (anchors.md §5.2: tshark shows a
// bare MPA item and loses the stream); connection 2 starts its marker base
// 0x1f0 octets below 2^32, so markers and FPDUs cross the sequence wrap
// (tshark with absolute sequence numbers mislocates them). Every direction
// negotiated M=1 and C=1. It returns the pcap and the FPDU count per frame.
func buildSideBySide() ([]byte, map[uint64]int) {
	w := newPcap()
	want := map[uint64]int{}
	frame := func() uint64 { return uint64(w.ts) }
	c := startConn(w, 40001, 1000, 5000, mpa.FlagM|mpa.FlagC)
	// 124-octet FPDU then a 524-octet one whose marker (stream offset 512)
	// falls 384 octets into it; the leading marker at offset 0 leads the first.
	want[frame()+1] = c.fpdus(0, 100, 500)
	want[frame()+1] = c.fpdus(0, 100, 500) // marker at 1024 inside the second again
	want[frame()+1] = c.fpdus(1, 40)
	want[frame()+1] = c.fpdus(0, 60, 900)
	want[frame()+1] = c.fpdus(0, 200)
	want[frame()+1] = c.fpdus(1, 40, 700)
	// Wrap: client ISN so that the base is 0xfffffe10.
	c2 := startConn(w, 40002, 0xfffffe10-1-mpa.StartupLen, 0x7ffffff0, mpa.FlagM|mpa.FlagC)
	for _, n := range []int{300, 700, 1200, 100, 900, 50} {
		want[frame()+1] = c2.fpdus(0, n)
	}
	want[frame()+1] = c2.fpdus(1, 40)
	want[frame()+1] = c2.fpdus(0, 30, 600)
	return w.b.Bytes(), want
}

const sideBySide = "../../pcaps/iwarp/synth_markers_tshark_fails.pcap"

// TestSideBySide decodes a synthesized capture of the cases where tshark is
// known to fail on markers and compares with tshark's stored decode of the
// same file (made here with `tshark-truth synth_markers_tshark_fails.pcap
// -o tcp.relative_sequence_numbers:FALSE`, tshark 4.0.17, so CI needs no
// tshark): rdx finds every FPDU with a good CRC and good markers, tshark's
// TSV lacks some of them.
func TestSideBySide(t *testing.T) {
	pc, want := buildSideBySide()
	if *updateSynth {
		if err := os.WriteFile(sideBySide, pc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := os.ReadFile(sideBySide)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored, pc) {
		t.Fatalf("%s differs from what buildSideBySide makes now: run with -update-synth and regenerate the TSV", sideBySide)
	}
	got, err := tsharktest.Decode(sideBySide, dissect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := tsharktest.ReadTSV(sideBySide + ".tshark-fields.tsv")
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range tab.Header {
		col[h] = i
	}
	// tshark decoded an FPDU when it shows its CRC field with the right
	// octets (the same values rdx shows, at the right positions).
	tsharkFPDUs := func(row []string, rdxCRCs []string) int {
		i, ok := col["iwarp_mpa.crc_check"]
		if !ok || i >= len(row) || row[i] == "" {
			return 0
		}
		n := 0
		for _, v := range strings.Split(row[i], ";") {
			for _, r := range rdxCRCs {
				if v == r {
					n++
					break
				}
			}
		}
		return n
	}
	total, rdxGood, tsGood := 0, 0, 0
	var lines []string
	for fr := uint64(1); fr <= uint64(len(tab.Rows)); fr++ {
		n := want[fr]
		total += n
		m := got[fr]
		crcOK, mkOK := 0, 0
		for _, v := range m["iwarp_mpa.crc.status"] {
			if v == "1" {
				crcOK++
			}
		}
		for _, v := range m["iwarp_mpa.marker.status"] {
			if v == "1" {
				mkOK++
			}
		}
		if len(m["iwarp_mpa.fpdu"]) != n || crcOK != n {
			t.Errorf("frame %d: rdx found %d FPDUs, %d with a good CRC; want %d", fr, len(m["iwarp_mpa.fpdu"]), crcOK, n)
		}
		if bad := len(m["iwarp_mpa.marker.status"]) - mkOK; bad != 0 {
			t.Errorf("frame %d: %d FPDUs with bad markers", fr, bad)
		}
		rdxGood += crcOK
		row := tab.Rows[fr]
		tsF := tsharkFPDUs(row, m["iwarp_mpa.crc_check"])
		tsGood += tsF
		if n > 0 {
			lines = append(lines, "frame "+itoa(fr)+": FPDUs "+itoa(uint64(n))+", rdx good CRC "+itoa(uint64(crcOK))+
				" with markers (all good) "+itoa(uint64(mkOK))+" | tshark "+itoa(uint64(tsF)))
		}
	}
	t.Logf("side by side:\n%s", strings.Join(lines, "\n"))
	t.Logf("%d FPDUs: rdx %d with good CRC and markers, tshark decodes %d", total, rdxGood, tsGood)
	if rdxGood != total {
		t.Errorf("rdx: %d of %d", rdxGood, total)
	}
	if tsGood >= total {
		t.Errorf("tshark's TSV has all %d FPDUs: the capture no longer shows its failure", total)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
