package ib_test

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
)

// -z infiniband,flows counts per flow what the issue asks for: ECN marks
// (IP CE, FECN, BECN), CNPs, PSN gaps and duplicates, NAKs, RNR NAKs, and
// ACKs covering more than one PSN (coalesced).
func TestFlowStats(t *testing.T) {
	s := newSynth()
	send := func(psn uint32, tos uint8, fecn bool) {
		p := (&ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x42, PSN: psn, FECN: fecn}).Encode(nil) // RC SEND Only
		s.decode(roceV2(false, tos, append(p, make([]byte, 16)...)))
	}
	ack := func(psn uint32, syndrome uint8) {
		p := (&ib.BTHFields{Opcode: 0x11, PKey: 0xFFFF, DestQP: 0x77, PSN: psn}).Encode(nil) // RC Acknowledge
		p = append(p, (&ib.AETHFields{Syndrome: syndrome, MSN: 1}).Encode(nil)...)
		s.decode(roceV2(false, 0, p))
	}
	send(1, 0x02, false) // ECT(0)
	send(2, 0x03, true)  // CE, and the responder saw it: FECN
	send(5, 0x02, false) // PSNs 3-4 missing
	send(5, 0x02, false) // the same again
	ack(1, 0x1f)         // ACK
	ack(5, 0x1f)         // ACK covering 2-5: coalesced
	ack(6, 0x60)         // NAK, PSN sequence error
	ack(6, 0x20)         // RNR NAK
	cnp := (&ib.BTHFields{Opcode: ib.OpCNP, PKey: 0xFFFF, BECN: true, DestQP: 0x77}).Encode(nil)
	s.decode(roceV2(false, 0, append(cnp, make([]byte, 16)...)))
	tab := s.eng.Stat("infiniband,flows")
	if tab == nil || len(tab.Rows) != 2 {
		t.Fatalf("table %+v", tab)
	}
	col := map[string]int{}
	for i, h := range tab.Header {
		col[h] = i
	}
	get := func(r int, h string) string { return tab.Rows[r][col[h]] }
	for h, want := range map[string]string{"QP": "0x000042", "Packets": "4", "PSN gaps": "1", "Dup PSNs": "1", "ECN CE": "1", "FECN": "1"} {
		if got := get(0, h); got != want {
			t.Errorf("requester flow %s = %s, want %s (%v)", h, got, want, strings.Join(tab.Rows[0], " "))
		}
	}
	for h, want := range map[string]string{"QP": "0x000077", "ACKs": "2", "Coalesced ACKs": "1", "NAKs": "1", "RNR NAKs": "1", "CNPs": "1", "BECN": "1"} {
		if got := get(1, h); got != want {
			t.Errorf("responder flow %s = %s, want %s (%v)", h, got, want, strings.Join(tab.Rows[1], " "))
		}
	}
}

// With Options.NoProtoStats (rdx read without -z) the flow counters are not
// kept, so the per-frame cost goes; the frame's own decode is the same.
func TestFlowStatsOff(t *testing.T) {
	on, off := newSynth(), newSynth()
	off.eng = dissect.NewEngine(dissect.Options{NoProtoStats: true})
	for psn := uint32(1); psn <= 3; psn++ {
		p := (&ib.BTHFields{Opcode: 0x04, PKey: 0xFFFF, DestQP: 0x42, PSN: psn}).Encode(nil)
		frame := roceV2(false, 0, append(p, make([]byte, 16)...))
		s1, _, _ := on.decode(append([]byte(nil), frame...))
		s2, _, _ := off.decode(frame)
		if s1 != s2 {
			t.Fatalf("summary with stats %q, without %q", s1, s2)
		}
	}
	if tab := on.eng.Stat("infiniband,flows"); tab == nil || len(tab.Rows) != 1 {
		t.Fatalf("stats on: table %+v", tab)
	}
	if tab := off.eng.Stat("infiniband,flows"); tab != nil && len(tab.Rows) != 0 {
		t.Fatalf("NoProtoStats: table has rows %v", tab.Rows)
	}
}
