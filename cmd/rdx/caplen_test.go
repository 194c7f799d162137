package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/iostreams"
)

// A record claiming more octets captured than were on the wire was
// accepted silently (issue 10): now it is an error finding on that frame
// naming the file, the frame and both lengths, in pcap and pcapng.
func TestCapLenOverWireLen(t *testing.T) {
	dir := t.TempDir()
	frame := rawIPv4Frag(0, false, make([]byte, 40)) // a whole 60-octet datagram

	// pcap, written by hand: incl_len 60, orig_len 40.
	var pc bytes.Buffer
	le := binary.LittleEndian
	hdr := make([]byte, 24)
	le.PutUint32(hdr[0:], 0xa1b2c3d4)
	le.PutUint16(hdr[4:], 2)
	le.PutUint16(hdr[6:], 4)
	le.PutUint32(hdr[16:], 65535)
	le.PutUint32(hdr[20:], capture.LinkIPv4)
	pc.Write(hdr)
	rec := make([]byte, 16)
	le.PutUint32(rec[0:], 1)
	le.PutUint32(rec[8:], uint32(len(frame)))
	le.PutUint32(rec[12:], 40)
	pc.Write(rec)
	pc.Write(frame)
	pcapFile := filepath.Join(dir, "caplen.pcap")
	os.WriteFile(pcapFile, pc.Bytes(), 0o644)

	var ng bytes.Buffer
	w, err := capture.NewPcapngWriter(&ng)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddInterface(capture.LinkIPv4, 65535, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.WritePacket(&capture.Packet{Data: frame, WireLen: 40, LinkType: capture.LinkIPv4, TimeNS: 1e9}); err != nil {
		t.Fatal(err)
	}
	ngFile := filepath.Join(dir, "caplen.pcapng")
	os.WriteFile(ngFile, ng.Bytes(), 0o644)

	for _, file := range []string{pcapFile, ngFile} {
		for _, args := range [][]string{{"read", file}, {"read", "-V", file}, {"check", file}} {
			io, _, out, errOut := iostreams.Test()
			code := run(io, args)
			if code != 0 && code != exitFindings {
				t.Fatalf("%v: exit %d: %s", args, code, errOut)
			}
			// check fails on an error finding, with no check failed
			if args[0] == "check" && (code != exitFindings || !strings.Contains(errOut.String(), ": 1 error finding\n") ||
				strings.Contains(out.String(), "checks failed")) {
				t.Errorf("%v: exit %d, want 1 for the error finding: %s%s", args, code, out, errOut)
			}
			want := file + ": frame 1: captured length 60 exceeds the original length 40 in the record header"
			if args[0] == "read" && !strings.Contains(out.String(), want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
			if args[1] == "-V" && strings.Index(out.String(), want) > strings.Index(out.String(), "Internet Protocol") {
				t.Errorf("the finding is not under Frame:\n%s", out)
			}
			if !strings.Contains(errOut.String(), "rdx: 1 frame; findings: 1 error, 0 warnings, 0 notes") {
				t.Errorf("%v: stderr %q", args, errOut)
			}
		}
	}
}
