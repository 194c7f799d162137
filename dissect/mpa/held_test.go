package mpa_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/mpa"
	"github.com/rdx-project/rdx/pipeline"
)

// TestHeldSegmentInfo: a segment whose octets MPA keeps for an FPDU a later
// segment completes ends its Info in "[TCP segment of a reassembled PDU]",
// as tshark's; the segment that completes the FPDU shows DDP, and neither a
// pure ACK nor a segment with whole FPDUs is marked.
func TestHeldSegmentInfo(t *testing.T) {
	w := newPcap()
	c := startConn(w, 40005, 1000, 5000, mpa.FlagC) // frames 1-5
	fpdu := func(n int) []byte {
		c.msn[0]++
		u := ddp.EncodeUntagged(nil, true, ddp.OpSend, 0, 0, c.msn[0], 0, bytes.Repeat([]byte{7}, n))
		return mpa.EncodeFPDU(nil, u, 0, false, true)
	}
	a, b := fpdu(600), fpdu(100)
	c.send(0, a[:300])                                     // 6: held
	c.send(0, a[300:])                                     // 7: completes it
	w.seg(2, 1, 4210, 40005, c.sseq, c.cseq, ackFlag, nil) // 8: an ACK
	c.send(0, append(fpdu(50), b[:20]...))                 // 9: a whole FPDU, then the start of b
	c.send(0, b[20:60])                                    // 10: the middle of b: held
	c.send(0, b[60:])                                      // 11: completes b
	path := t.TempDir() + "/held.pcap"
	if err := os.WriteFile(path, w.b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: path}, Out: &out,
		Print: pipeline.Print{Format: "fields", Fields: []string{"frame.number", "_ws.col.Protocol", "_ws.col.Info"}}})
	if err != nil {
		t.Fatal(err)
	}
	const held = " [TCP segment of a reassembled PDU]"
	want := map[string]bool{"6": true, "10": true}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 11 {
		t.Fatalf("%d frames:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		c := strings.Split(l, "\t")
		marked := strings.HasSuffix(c[2], held)
		if marked != want[c[0]] || marked && c[1] != "TCP" {
			t.Errorf("frame %s: %s %q (held: %v)", c[0], c[1], c[2], want[c[0]])
		}
	}
}
