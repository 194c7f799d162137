package rdp

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/rdx-project/rdx/capture"
)

// TestGenerateCaptures writes pcaps/rdp/clean.pcap and lossy.pcap (a 100 KB
// file; the lossy one over 5% loss and 25% reordering), as captured at the
// sender, when RDX_RDP_PCAPS names the output directory:
//
//	RDX_RDP_PCAPS=$PWD/pcaps/rdp go test ./active/rdp -run GenerateCaptures
//
// synctest's fake clock makes the timestamps start at 2000-01-01 00:00 UTC.
func TestGenerateCaptures(t *testing.T) {
	dir := os.Getenv("RDX_RDP_PCAPS")
	if dir == "" {
		t.Skip("set RDX_RDP_PCAPS=DIR to regenerate the RDP sample captures")
	}
	for _, c := range []struct {
		name          string
		loss, reorder float64
	}{{"clean", 0, 0}, {"lossy", 5, 25}} {
		synctest.Test(t, func(t *testing.T) {
			n := NewMemNet(27)
			n.LossPct, n.ReorderPct = c.loss, c.reorder
			p := newPair(t, n, Config{}, Config{})
			file := make([]byte, 100<<10)
			r := rand.New(rand.NewPCG(27, 27))
			for i := range file {
				file[i] = byte('a' + r.IntN(26))
			}
			var ms [][]byte
			for b := file; len(b) > 0; b = b[min(len(b), 1024):] {
				ms = append(ms, b[:min(len(b), 1024)])
			}
			if got := bytes.Join(p.transfer(t, ms), nil); !bytes.Equal(got, file) {
				t.Fatal("file differs")
			}
			f, err := os.Create(filepath.Join(dir, c.name+".pcap"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			bw := bufio.NewWriter(f)
			pw, err := capture.NewPcapWriter(bw, capture.LinkIPv4, 65535, true)
			if err != nil {
				t.Fatal(err)
			}
			p.drec.mu.Lock()
			defer p.drec.mu.Unlock()
			for i, fr := range p.drec.frames {
				if err := pw.WritePacket(&capture.Packet{Data: fr, TimeNS: p.drec.times[i]}); err != nil {
					t.Fatal(err)
				}
			}
			if err := bw.Flush(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d frames, stack %+v", c.name, len(p.drec.frames), p.dc.Stats())
		})
	}
}
