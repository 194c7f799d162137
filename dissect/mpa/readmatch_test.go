package mpa_test

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/mpa"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

// TestReadBwSameSink decodes a capture shaped as ib_read_bw over siw
// issues its reads: five Read Requests (one FPDU each, frames 6-10) with one
// sink STag and TO, answered in order by five Read Responses of two
// segments each (frames 11-20). Every response names its own request and
// every request its first response; no response is "without a Read
// Request" (before the fix: the first response was tied to the last
// request and the other eight segments got that note).
func TestReadBwSameSink(t *testing.T) {
	w := newPcap()
	c := startConn(w, 40010, 1000, 5000, mpa.FlagC)
	for i := uint32(1); i <= 5; i++ {
		rr := make([]byte, ddp.ReadReqLen)
		binary.BigEndian.PutUint32(rr, 0x6001)           // sink STag
		binary.BigEndian.PutUint64(rr[4:], 0x7f0000)     // sink TO
		binary.BigEndian.PutUint32(rr[12:], 64)          // size
		binary.BigEndian.PutUint32(rr[16:], 0x9002)      // source STag
		binary.BigEndian.PutUint64(rr[20:], 0x5500_0000) // source TO
		c.send(0, mpa.EncodeFPDU(nil, ddp.EncodeUntagged(nil, true, ddp.OpReadRequest, 0, 1, i, 0, rr), 0, false, true))
	}
	for i := 0; i < 5; i++ {
		for j, last := range []bool{false, true} {
			rsp := ddp.EncodeTagged(nil, last, ddp.OpReadResponse, 0x6001, 0x7f0000+32*uint64(j), make([]byte, 32))
			c.send(1, mpa.EncodeFPDU(nil, rsp, 0, false, true))
		}
	}
	path := t.TempDir() + "/read_bw.pcap"
	if err := os.WriteFile(path, w.b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := tsharktest.DecodeWithFindings(path, dissect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(0); i < 5; i++ {
		req := 6 + i
		if r := strings.Join(got[req]["iwarp_rdma.response_in"], ";"); r != itoa(11+2*i) {
			t.Errorf("request frame %d: response in %q, want %d", req, r, 11+2*i)
		}
		for j := uint64(0); j < 2; j++ {
			n := 11 + 2*i + j
			if r := strings.Join(got[n]["iwarp_rdma.request_in"], ";"); r != itoa(req) {
				t.Errorf("response frame %d: request in %q, want %d", n, r, req)
			}
			if m := got[n]["_ws.expert.message"]; len(m) != 0 {
				t.Errorf("response frame %d: %q", n, m)
			}
		}
	}
}

// TestReadBwSiw: the real ib_read_bw -R -n 5 -s 4096 run over siw
// (pcaps/iwarp/iwarp_read_bw.pcap, kernel lab): five Read Requests with
// sink STag 0x03f81a00 and TO 0x5634740ae000 (frame 42 carries two), each
// answered by three Read Response segments. Before the fix rdx tied the
// first response to the last request (45) and gave the other twelve
// segments "Read Response without a Read Request".
func TestReadBwSiw(t *testing.T) {
	const pcap = "../../pcaps/iwarp/iwarp_read_bw.pcap"
	got, err := tsharktest.DecodeWithFindings(tsharktest.Capture(t, pcap), dissect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	respIn := map[uint64]string{40: "47", 41: "53", 42: "56;62", 45: "65"}
	reqIn := map[uint64]string{47: "40", 49: "40", 50: "40", 53: "41", 54: "41", 55: "41", 56: "42", 57: "42", 58: "42",
		62: "42", 63: "42", 64: "42", 65: "45", 66: "45", 67: "45"}
	for n, want := range respIn {
		if r := strings.Join(got[n]["iwarp_rdma.response_in"], ";"); r != want {
			t.Errorf("request frame %d: response in %q, want %q", n, r, want)
		}
	}
	for n, want := range reqIn {
		if r := strings.Join(got[n]["iwarp_rdma.request_in"], ";"); r != want {
			t.Errorf("response frame %d: request in %q, want %q", n, r, want)
		}
	}
	for n, fr := range got {
		for _, m := range fr["_ws.expert.message"] {
			if strings.Contains(m, "Read") {
				t.Errorf("frame %d: %s", n, m)
			}
		}
	}
}
