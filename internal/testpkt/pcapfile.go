package testpkt

import (
	"bufio"
	"os"
	"testing"

	"github.com/rdx-project/rdx/capture"
)

// PcapFile is a pcap file being written (nanosecond timestamps, snaplen
// 65535, through a 1 MiB buffer), as the capture generators write theirs.
type PcapFile struct {
	*capture.PcapWriter
	f    *os.File
	bw   *bufio.Writer
	link uint16
}

// CreatePcap creates the file at path for packets of link type link.
func CreatePcap(path string, link uint16) (*PcapFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := capture.NewPcapWriter(bw, link, 65535, true)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &PcapFile{PcapWriter: w, f: f, bw: bw, link: link}, nil
}

// Write writes data as one packet, captured whole at time t (ns).
func (p *PcapFile) Write(data []byte, t int64) error {
	return p.WritePacket(&capture.Packet{Data: data, TimeNS: t, CapLen: len(data), WireLen: len(data), LinkType: p.link})
}

// Close flushes the buffer and closes the file.
func (p *PcapFile) Close() error {
	if err := p.bw.Flush(); err != nil {
		p.f.Close()
		return err
	}
	return p.f.Close()
}

// WriteFrames writes frames to a pcap file at path (link type link), frame
// i captured whole at (i+1)*step ns, failing the test on an error.
func WriteFrames(t testing.TB, path string, link uint16, step int64, frames [][]byte) {
	t.Helper()
	w, err := CreatePcap(path, link)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		if err := w.Write(f, int64(i+1)*step); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
