package ib_test

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect/ib"
)

var update = flag.Bool("update", false, "rewrite testdata/summary_ops.txt")

// extLens are the extended headers' sizes by Ext bit (wire order).
var extLens = [...]int{ib.RDETHLen, ib.DETHLen, ib.XRCETHLen, ib.RETHLen, ib.AtomicETHLen, ib.AETHLen,
	ib.AtomicAckETHLen, ib.ImmDtLen, ib.IETHLen, ib.FETHLen, ib.CNPReservedLen}

// TestSummaryOps pins the summary line of every opcode (every extended
// header it carries, filled with a pattern, every AETH kind, and BTH flag
// combination) to testdata/summary_ops.txt, written by the summary code
// before it was restructured: the line must stay byte-identical.
func TestSummaryOps(t *testing.T) {
	s := newSynth()
	var out strings.Builder
	syndromes := []uint8{0x0E, 0x1F, 0x00, 0x2A, 0x60, 0x61, 0x62, 0x63, 0x64, 0x6A, 0x45}
	for op := range 256 {
		info := &ib.Ops[op]
		if !info.Known && op%16 != 7 { // a few reserved ones
			continue
		}
		aeth := info.Ext&ib.ExtAETH != 0
		for k, syn := range syndromes {
			if k > 0 && !aeth {
				break
			}
			bth := ib.BTHFields{Opcode: uint8(op), PKey: 0xFFFF, DestQP: 0xABC123 + uint32(op), PSN: uint32(op) * 99991 & 0xFFFFFF,
				SE: op&1 != 0, AckReq: op&2 != 0, FECN: op&4 != 0, BECN: op&8 != 0}
			pkt := bth.Encode(nil)
			for i, n := range extLens {
				if info.Ext&(1<<i) == 0 {
					continue
				}
				for j := range n {
					pkt = append(pkt, byte(0x91+op*7+i*13+j*29))
				}
				if ib.Ext(1<<i) == ib.ExtAETH {
					pkt[len(pkt)-n] = syn
				}
			}
			if info.Payload {
				pkt = append(pkt, "abcd"...)
			}
			sum, _, _ := s.decode(roceV2(false, 0, pkt))
			out.WriteString(strconv.Itoa(op) + ": " + sum + "\n")
		}
	}
	const golden = "testdata/summary_ops.txt"
	if *update {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%d lines, want %d", len(gl), len(wl))
	}
}
