package ib_test

import (
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
)

// rewriteRoCE rewrites the IPv4 addresses of every RoCEv2 frame (as an
// anonymizer would: one mapping, leaving the ICRC as sent) and flips a payload octet of
// frame corrupt.
func rewriteRoCE(corrupt uint64) func(uint64, []byte) {
	return func(num uint64, d []byte) {
		if len(d) < 42 || d[12] != 8 || d[13] != 0 || d[23] != 17 || binary.BigEndian.Uint16(d[36:]) != 4791 {
			return
		}
		copy(d[26:29], []byte{198, 51, 100}) // 192.0.2.x -> 198.51.100.x
		copy(d[30:33], []byte{198, 51, 100})
		if num == corrupt {
			d[len(d)-6] ^= 0x40
		}
	}
}

// TestICRCRewrittenAddresses: soft-RoCE captures whose addresses were
// rewritten carry ICRCs that differ from the computed ones by one constant
// per flow and size (the CRC is linear). The first bad ICRC of a flow is an
// error; the next ones with the same difference are notes naming the likely
// cause; a corrupted packet (another difference) stays an error.
func TestICRCRewrittenAddresses(t *testing.T) {
	frs := run(t, pcapDir+"roce_rc_pingpong.pcap", rewriteRoCE(30))
	var errs, notes, bad int
	for _, fr := range frs {
		if fr.fields["infiniband.icrc.status"] == nil || fr.fields["infiniband.icrc.status"][0] != "0" { // 0: Bad
			continue
		}
		bad++
		for _, fd := range fr.findings {
			if !strings.HasPrefix(fd.Msg, "bad ICRC") {
				continue
			}
			switch {
			case fd.Sev == dissect.Note && strings.Contains(fd.Msg, "likely rewritten addresses"):
				notes++
				if fr.num == 30 {
					t.Errorf("frame 30 (corrupted) explained as rewritten: %s", fd.Msg)
				}
			case fd.Sev == dissect.Error:
				errs++
			default:
				t.Errorf("frame %d: %v %s", fr.num, fd.Sev, fd.Msg)
			}
		}
	}
	// 30 RoCE frames, two directions, two sizes: four first errors, the
	// corrupted frame 30, notes for the rest.
	if bad != 30 || errs != 5 || notes != 25 {
		t.Errorf("%d bad ICRCs: %d errors, %d notes", bad, errs, notes)
	}
	t.Logf("%d bad ICRCs: %d errors, %d notes", bad, errs, notes)
	// Untouched, the capture's ICRCs are good.
	for _, fr := range run(t, pcapDir+"roce_rc_pingpong.pcap", nil) {
		if s := fr.fields["infiniband.icrc.status"]; s != nil && s[0] != "1" {
			t.Fatalf("frame %d: ICRC status %s", fr.num, s[0])
		}
	}
}

// TestICRCRewrittenSecondPass: in a two-pass read the first packet of
// such a flow is explained too, naming the second.
func TestICRCRewrittenSecondPass(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	mut := rewriteRoCE(0)
	var errs, notes int
	for pass := 1; pass <= 2; pass++ {
		r, err := capture.Open(pcapDir + "roce_rc_pingpong.pcap")
		if err != nil {
			t.Fatal(err)
		}
		var pkt capture.Packet
		for num := uint64(1); ; num++ {
			if err := r.Next(&pkt); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			data := append([]byte(nil), pkt.Data...)
			mut(num, data)
			f := eng.Decode(dissect.Packet{Num: num, TimeNS: pkt.TimeNS, CapLen: pkt.CapLen, WireLen: pkt.WireLen, LinkType: pkt.LinkType, Data: data, Pass: pass})
			for _, fd := range f.Findings {
				if pass == 2 && strings.HasPrefix(fd.Msg, "bad ICRC") {
					if fd.Sev == dissect.Error {
						errs++
					} else {
						notes++
					}
				}
			}
		}
		r.Close()
		eng.Rewind()
	}
	// Every flow and size is seen more than once: all explained.
	if notes != 30 || errs != 0 {
		t.Errorf("second pass: %d errors, %d notes", errs, notes)
	}
	t.Logf("second pass: %d errors, %d notes", errs, notes)
}
