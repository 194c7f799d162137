package mpa_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/mpa"
	"github.com/rdx-project/rdx/internal/tsharktest"
)

const terminatePcap = "../../pcaps/iwarp/synth_terminate.pcap"

// buildTerminate: MPA with CRCs, no markers; the client sends a Read
// Request (frame 6), the server answers with a Terminate (frame 7): RDMAP
// layer, remote protection error, invalid STag, M/D/R set, carrying the
// DDP segment length, the Read Request's DDP header and its RDMAP header.
// No real capture in pcaps/iwarp holds a Terminate.
func buildTerminate() []byte {
	w := newPcap()
	c := startConn(w, 40004, 7000, 9000, mpa.FlagC)
	rr := ddp.EncodeReadRequest(nil, 0x1234, 0x10000, 4096, 0xdead, 0x7f00_0000)
	req := ddp.EncodeUntagged(nil, true, ddp.OpReadRequest, 0, 1, 1, 0, rr)
	c.send(0, mpa.EncodeFPDU(nil, req, 0, false, true))
	// RDMAP layer, remote protection error, invalid STag; M D R
	term := ddp.EncodeTerminate(nil, ddp.TermRDMA, ddp.TermRDMARemoteProt, ddp.TermInvalidSTag, req[:ddp.UntaggedLen], len(req), rr)
	t := ddp.EncodeUntagged(nil, true, ddp.OpTerminate, 0, 2, 1, 0, term)
	c.send(1, mpa.EncodeFPDU(nil, t, 0, false, true))
	return w.b.Bytes()
}

// TestTerminate decodes the synthesized Terminate: the control fields, and
// the terminated DDP and RDMAP headers decoded again as fields (tshark's
// stored decode of the same file is compared in TestTsharkFields).
func TestTerminate(t *testing.T) {
	pc := buildTerminate()
	if *updateSynth {
		if err := os.WriteFile(terminatePcap, pc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if stored, err := os.ReadFile(terminatePcap); err != nil || !bytes.Equal(stored, pc) {
		t.Fatalf("%s missing or stale (%v): run with -update-synth and regenerate its TSV", terminatePcap, err)
	}
	got, err := tsharktest.Decode(terminatePcap, dissect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := got[7]
	want := map[string]string{
		"iwarp_rdma.opcode":            "0x07;0x01", // the Terminate's, then the terminated header's (Read Request)
		"iwarp_rdma.term_layer":        "0x00",
		"iwarp_rdma.term_etype_rdma":   "0x01",
		"iwarp_rdma.term_errcode_rdma": "0x00",
		"iwarp_rdma.term_hdrct_m":      "1",
		"iwarp_rdma.hdrct_d":           "1",
		"iwarp_rdma.hdrct_r":           "1",
		"iwarp_rdma.term_ddp_seg_len":  "002e",
		"iwarp_ddp.qn":                 "2;1",
		"iwarp_ddp.msn":                "1;1",
		"iwarp_rdma.sinkstag":          "0x00001234",
		"iwarp_rdma.sinkto":            "0x0000000000010000",
		"iwarp_rdma.rdmardsz":          "4096",
		"iwarp_rdma.srcstag":           "0x0000dead",
		"iwarp_rdma.srcto":             "0x000000007f000000",
		"iwarp_mpa.crc.status":         "1",
	}
	var bad []string
	for k, v := range want {
		if g := strings.Join(f[k], ";"); g != v {
			bad = append(bad, k+": "+g+", want "+v)
		}
	}
	if len(f["iwarp_rdma.term_ddp_h"]) != 1 || len(f["iwarp_rdma.term_rdma_h"]) != 1 {
		bad = append(bad, "terminated headers not shown")
	}
	if len(bad) > 0 {
		t.Errorf("Terminate (frame 7):\n%s", strings.Join(bad, "\n"))
	}
	if strings.Join(got[6]["iwarp_rdma.opcode"], "") != "0x01" {
		t.Errorf("frame 6: %v", got[6]["iwarp_rdma.opcode"])
	}
}
