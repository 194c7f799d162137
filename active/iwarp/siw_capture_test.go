package iwarp

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/mpa"
)

// streams returns the TCP payload of each direction of the one connection
// in a lossless Ethernet/IPv4 capture, client (SYN sender) first.
func streams(t *testing.T, path string) [2][]byte {
	t.Helper()
	src, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out [2][]byte
	var client uint16
	var p capture.Packet
	for src.Next(&p) == nil {
		if binary.BigEndian.Uint16(p.Data[12:]) != 0x0800 || p.Data[14+9] != 6 {
			continue // ARP and the like
		}
		b := p.Data[14:]
		ip := b[:int(b[0]&15)*4]
		tcp := b[len(ip):binary.BigEndian.Uint16(b[2:])]
		sport := binary.BigEndian.Uint16(tcp)
		if client == 0 {
			client = sport
		}
		d := 0
		if sport != client {
			d = 1
		}
		out[d] = append(out[d], tcp[int(tcp[12]>>4)*4:]...)
	}
	return out
}

// TestSiwRpingCapture runs the receive path (WireLen, Unframe, the DDP
// accessors) over both directions of a real rping exchange between two
// Linux siw peers (MPA rev 2, CRC on), and checks rdx's rping facts
// against it: the client's 16-octet advertisements carrying the size, the
// server's 16 zero octets of go-ahead, the server's
// Read of the client's ping whose data is RpingFill's pattern, the Write
// back of the same octets.
func TestSiwRpingCapture(t *testing.T) {
	st := streams(t, "../../pcaps/iwarp/iwarp_rping_crc.pcap")
	var ops [2][]uint8
	var reads, writes [][]byte
	for d, s := range st {
		if !mpa.StartupFrame(s).IsReq() && !mpa.StartupFrame(s).IsRep() {
			t.Fatalf("direction %d does not start with an MPA frame", d)
		}
		s = s[mpa.StartupLen+mpa.StartupFrame(s).PDLen():]
		for rel := uint32(0); len(s) > 0; {
			w, ok := mpa.WireLen(s, rel, false)
			if !ok || w > len(s) {
				t.Fatalf("direction %d: FPDU at %d cut short", d, rel)
			}
			u, err := mpa.Unframe(nil, s[:w], rel, false, true)
			if err != nil {
				t.Fatalf("direction %d at %d: %v", d, rel, err)
			}
			op := ddp.Opcode(u)
			ops[d] = append(ops[d], op)
			switch {
			case op == ddp.OpSend && d == 0 && (len(u)-ddp.UntaggedLen != 16 || binary.BigEndian.Uint32(u[ddp.UntaggedLen+12:]) != 100):
				t.Errorf("client Send %x is not a 16-octet advertisement of 100 octets", u[ddp.UntaggedLen:])
			case op == ddp.OpSend && d == 1 && !bytes.Equal(u[ddp.UntaggedLen:], make([]byte, 16)):
				// rping's server sends its never-filled send buffer, as RpingServer does
				t.Errorf("server Send %x is not 16 zero octets", u[ddp.UntaggedLen:])
			case op == ddp.OpReadResponse:
				reads = append(reads, u[ddp.TaggedLen:])
			case op == ddp.OpWrite:
				writes = append(writes, u[ddp.TaggedLen:])
			}
			s, rel = s[w:], rel+uint32(w)
		}
	}
	if len(reads) != 3 || len(writes) != 3 {
		t.Fatalf("%d Read Responses, %d Writes; ops %v", len(reads), len(writes), ops)
	}
	want := make([]byte, 100)
	for i := range reads {
		RpingFill(want, i)
		if !bytes.Equal(reads[i], want) || !bytes.Equal(writes[i], want) {
			t.Errorf("ping %d: read %q, wrote %q, want %q", i, reads[i], writes[i], want)
		}
	}
}

// TestSiwStartupFrames: with rping's defaults (IRD = ORD = 1, no private
// data) rdx's Request is siw's octet for octet, and rdx answering siw's
// Request sends siw's Reply octet for octet (all three captures: rev 2
// with and without CRC, rev 1).
func TestSiwStartupFrames(t *testing.T) {
	for _, c := range []struct {
		file string
		cfg  Config
	}{
		{"iwarp_rping_crc.pcap", Config{CRC: true}},
		{"iwarp_rping.pcap", Config{}},
		{"iwarp_rping_mpav1.pcap", Config{Rev: 1, CRC: true}},
	} {
		st := streams(t, "../../pcaps/iwarp/"+c.file)
		req := st[0][:mpa.StartupLen+mpa.StartupFrame(st[0]).PDLen()]
		rep := st[1][:mpa.StartupLen+mpa.StartupFrame(st[1]).PDLen()]
		enh := c.cfg.rev() >= 2
		got, err := c.cfg.buildStartup(false, c.cfg.rev(), c.cfg.CRC, enh, false, 0, 0, depth(c.cfg.ORD))
		if err != nil || !bytes.Equal(got, req) {
			t.Errorf("%s: Request %x, siw's %x (%v)", c.file, got, req, err)
		}
		// rdx as the responder to siw's Request, with CRC not asked for:
		// siw asked (C=1), so the Reply has C=1, as siw's own.
		a, b := net.Pipe()
		go func() {
			a.Write(req)
			buf := make([]byte, len(rep))
			io.ReadFull(a, buf)
			if !bytes.Equal(buf, rep) {
				t.Errorf("%s: Reply %x, siw's %x", c.file, buf, rep)
			}
			a.Close()
		}()
		sc, err := Server(b, Config{Rev: 2})
		if err != nil {
			t.Fatal(err)
		}
		sc.Close()
	}
}
