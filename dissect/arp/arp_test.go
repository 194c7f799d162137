package arp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/arp"
	"github.com/rdx-project/rdx/internal/strict"
)

func TestMain(m *testing.M) { strict.Main(m) }

var (
	mac   = []byte{0x52, 0x54, 0, 0, 1, 1}
	bcast = bytes.Repeat([]byte{0xff}, 6)
	zero6 = make([]byte, 6)
	ipA   = []byte{198, 51, 100, 1}
	ipB   = []byte{198, 51, 100, 2}
)

func pkt(hw, pt uint16, hl, pl uint8, op uint16, sha, spa, tha, tpa []byte) []byte {
	b := []byte{byte(hw >> 8), byte(hw), byte(pt >> 8), byte(pt), hl, pl, byte(op >> 8), byte(op)}
	for _, a := range [][]byte{sha, spa, tha, tpa} {
		b = append(b, a...)
	}
	return b
}

// summary decodes one frame and gives its PDUs' summaries, findings and
// arp.isgratuitous.
func summary(t *testing.T, lt uint16, frame []byte) (info string, findings []string, grat bool) {
	t.Helper()
	eng := dissect.NewEngine(dissect.Options{})
	f := eng.Decode(dissect.Packet{Num: 1, TimeNS: 0, CapLen: len(frame), WireLen: len(frame), LinkType: lt, Iface: 0, Data: frame, Pass: 0})
	var b []byte
	for _, p := range f.PDUs {
		b = p.Summary(b)
	}
	for _, fd := range f.Findings {
		findings = append(findings, fd.Msg)
	}
	var tree dissect.Tree
	eng.BuildTree(&tree, f)
	for _, n := range tree.Nodes {
		if n.F != nil && n.F.Abbrev == "arp.isgratuitous" {
			grat = true
		}
	}
	return string(b), findings, grat
}

// The Info texts are tshark 4.0.17's for the same frames.
func TestSummary(t *testing.T) {
	eth := func(p []byte) []byte { return append(append(append(append([]byte{}, bcast...), mac...), 8, 6), p...) }
	for _, c := range []struct {
		name    string
		frame   []byte
		info    string
		finding string
		grat    bool
	}{
		{"request", eth(pkt(1, 0x800, 6, 4, 1, mac, ipA, zero6, ipB)), "Who has 198.51.100.2? Tell 198.51.100.1", "", false},
		{"reply", eth(pkt(1, 0x800, 6, 4, 2, mac, ipA, mac, ipB)), "198.51.100.1 is at 52:54:00:00:01:01", "", false},
		{"padded", eth(append(pkt(1, 0x800, 6, 4, 2, mac, ipA, mac, ipB), make([]byte, 18)...)), "198.51.100.1 is at 52:54:00:00:01:01", "", false},
		{"probe", eth(pkt(1, 0x800, 6, 4, 1, mac, make([]byte, 4), zero6, ipB)), "Who has 198.51.100.2? (ARP Probe)", "", false},
		{"announcement", eth(pkt(1, 0x800, 6, 4, 1, mac, ipA, zero6, ipA)), "ARP Announcement for 198.51.100.1", "", false},
		{"gratuitous request", eth(pkt(1, 0x800, 6, 4, 1, mac, ipA, bcast, ipA)), "Gratuitous ARP for 198.51.100.1 (Request)", "", true},
		{"gratuitous reply", eth(pkt(1, 0x800, 6, 4, 2, mac, ipA, bcast, ipA)), "Gratuitous ARP for 198.51.100.1 (Reply)", "", true},
		{"rarp", eth(pkt(1, 0x800, 6, 4, 3, mac, ipA, mac, ipB)), "Who is 52:54:00:00:01:01? Tell 52:54:00:00:01:01", "", false},
		{"other hw and proto", eth(pkt(99, 0x86dd, 4, 6, 1, mac[:4], append(ipA, 0, 0), mac[:4], append(ipB, 0, 0))), "Who has c63364020000? Tell c63364010000", "", false},
		{"truncated", eth(pkt(1, 0x800, 6, 4, 1, mac, ipA, zero6, ipB)[:20]), "ARP (truncated)", "truncated ARP packet: 20 of 28 octets", false},
		{"short header", eth([]byte{0, 1, 8}), "ARP (truncated)", "truncated ARP header: 3 of 8 octets", false},
	} {
		info, fs, grat := summary(t, 1, c.frame)
		if info != c.info || grat != c.grat {
			t.Errorf("%s: info %q gratuitous %v, want %q %v", c.name, info, grat, c.info, c.grat)
		}
		if got := strings.Join(fs, ";"); got != c.finding {
			t.Errorf("%s: findings %q, want %q", c.name, got, c.finding)
		}
	}
}

// ARP over IPoIB (RFC 4391: 20-octet hardware addresses): the engine used
// to stop at the IPoIB header for anything but IPv4 and IPv6.
func TestIPoIB(t *testing.T) {
	hwA := append([]byte{0x80, 0, 5, 0x50}, bytes.Repeat([]byte{0xfe}, 16)...)
	frame := make([]byte, 44)
	frame[40], frame[41] = 0x08, 0x06
	frame = append(frame, pkt(32, 0x800, 20, 4, 2, hwA, ipB, hwA, ipA)...)
	info, fs, _ := summary(t, 242, frame)
	if want := "198.51.100.2 is at 80000550fefefefefefefefefefefefefefefefe"; info != want || len(fs) != 0 {
		t.Errorf("info %q findings %q, want %q", info, fs, want)
	}
}
