// Package testpkt is test support shared by several packages: reading a
// capture file packet by packet as the engine takes it, building packets,
// showing where two outputs differ.
package testpkt

import (
	"errors"
	"io"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
)

// Each opens the capture at path and calls fn with every packet, numbered
// from 1, until the end of the file or the first error (from the file or
// from fn), which it returns. p.Data is the reader's buffer: it changes with
// the next packet, so fn copies what it keeps.
func Each(path string, fn func(p dissect.Packet) error) error {
	r, err := capture.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	var pkt capture.Packet
	for num := uint64(1); ; num++ {
		err := r.Next(&pkt)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(dissect.Packet{Num: num, TimeNS: pkt.TimeNS, CapLen: pkt.CapLen, WireLen: pkt.WireLen, LinkType: pkt.LinkType, Iface: pkt.Iface, Data: pkt.Data})
		if err != nil {
			return err
		}
	}
}

// ReadAll returns every packet of the capture at path, failing the test
// when the file cannot be read.
func ReadAll(t testing.TB, path string) []capture.Packet {
	t.Helper()
	src, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	pkts, err := capture.ReadAll(src)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pkts
}
