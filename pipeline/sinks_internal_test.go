package pipeline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
)

// frames decodes n small Ethernet frames for a sink to write.
func writeFrames(t *testing.T, s *pcapngSink, n int) {
	t.Helper()
	eng := dissect.NewEngine(dissect.Options{})
	for i := 1; i <= n; i++ {
		data := make([]byte, 60)
		data[12], data[13] = 0x88, 0xb5 // a local experimental EtherType: nothing to decode
		s.Frame(eng.Decode(dissect.Packet{Num: uint64(i), LinkType: 1, Data: data}), nil)
	}
}

func noTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".rdx-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// TestPcapngSinkWriteFails: a -w file whose write fails leaves the file it
// was to replace as it was, and no temporary file.
func TestPcapngSinkWriteFails(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.pcapng")
	os.WriteFile(target, []byte("precious"), 0o644)
	s := &pcapngSink{path: target}
	if err := s.Start(nil); err != nil {
		t.Fatal(err)
	}
	writeFrames(t, s, 3)
	s.err = errors.New("no space left on device") // as a failed write leaves it
	if err := s.End(nil); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("End: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Errorf("a failed write replaced the file: %q", b)
	}
	noTemp(t, dir)
}

// TestPcapngSinkGiveUp: when the process exits without ending the run (a
// stop not noticed in time), the frames written so far are kept under the
// name asked for; a later End changes nothing.
func TestPcapngSinkGiveUp(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.pcapng")
	s := &pcapngSink{path: target}
	if err := s.Start(nil); err != nil {
		t.Fatal(err)
	}
	writeFrames(t, s, 3)
	s.GiveUp()
	src, err := capture.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	n := 0
	var p capture.Packet
	for src.Next(&p) == nil {
		n++
	}
	if n != 3 {
		t.Errorf("%d frames kept, want 3", n)
	}
	noTemp(t, dir)
	if err := s.End(nil); err != nil {
		t.Errorf("End after GiveUp: %v", err)
	}
	(&pcapngSink{path: filepath.Join(dir, "never.pcapng")}).GiveUp() // not started: nothing to do, no panic
	if _, err := os.Stat(filepath.Join(dir, "never.pcapng")); err == nil {
		t.Error("a sink that never started created its file")
	}
}

// TestPcapngSinkSnaplen: a -w file of a live capture records its -s in the
// pcapng interface block and the pcap header (tshark: the snapshot length
// of the capture); without one, the largest record rdx reads.
func TestPcapngSinkSnaplen(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		format  string
		snaplen int
		want    uint32
	}{{"", 128, 128}, {"pcap", 96, 96}, {"", 0, capture.MaxRecord}} {
		target := filepath.Join(dir, "out"+c.format)
		s := &pcapngSink{path: target, format: c.format, snaplen: c.snaplen}
		if err := s.Start(nil); err != nil {
			t.Fatal(err)
		}
		writeFrames(t, s, 1)
		if err := s.End(nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(target)
		if err != nil || len(b) < 40 {
			t.Fatal(len(b), err)
		}
		var got uint32
		if c.format == "pcap" {
			got = binary.LittleEndian.Uint32(b[16:])
		} else { // the IDB follows the section header block
			shb := binary.LittleEndian.Uint32(b[4:])
			got = binary.LittleEndian.Uint32(b[shb+12:])
		}
		if got != c.want {
			t.Errorf("-F %q -s %d: the file records snaplen %d, want %d", c.format, c.snaplen, got, c.want)
		}
	}
}

// Check tallies of two files tagged (TagChecks) and merged (MergeChecks)
// list the first failing frames file by file, and WriteChecks names each
// frame's file, in the explanation too.
func TestWriteChecksManyFiles(t *testing.T) {
	a := []CheckRow{{Check: "infiniband.icrc", Proto: "infiniband", Checked: 4, Failed: 2, Frames: []uint64{7, 9},
		Explained: 1, Explanation: "frame 9: ICRC off by the flow's constant", explFrame: 9}}
	b := []CheckRow{{Check: "infiniband.icrc", Proto: "infiniband", Checked: 3, Failed: 2, Frames: []uint64{1, 2},
		Explained: 1, Explanation: "frame 1: ICRC off by the flow's constant", explFrame: 1}}
	TagChecks(a, 0)
	TagChecks(b, 1)
	MergeChecks(a, b)
	var out bytes.Buffer
	res := &Result{Checks: a}
	if err := WriteChecks(&out, &CheckReport{Format: "text"}, []string{"d/x.pcap", "d/y.pcap"}, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| x.pcap:7 x.pcap:9 y.pcap:1 y.pcap:2 |", "2 of 4 failures explained, e.g. frame x.pcap:9: ICRC off",
		"checks applied to 2 captures"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if !res.ChecksFailed || !slices.Equal(a[0].Frames, []uint64{7, 9, 1, 2}) || !slices.Equal(a[0].Files, []string{"x.pcap", "x.pcap", "y.pcap", "y.pcap"}) {
		t.Errorf("rows: %+v, failed %v", a[0], res.ChecksFailed)
	}
}
