package iwarp

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/rdx-project/rdx/capture"
)

// The two captures in testdata come from `make interop` (interop/scenarios
// iwarp_rping_rdx_server.sh and iwarp_rping_rdx_client.sh, run on
// 2026-11-25): rdma-core's rping on Linux 6.1 siw against rdx iwarp rping,
// each with three connections: siw's defaults (MPA rev 2, CRC off), CRC on,
// and peer-to-peer (siw's zero-length Write RTR with STag 1; rdx's
// zero-length Read RTR answered by siw).

type segment struct {
	fromRdx bool
	data    []byte
}

// conversations splits a capture into its TCP connections' payloads in
// capture order; rdxIsServer says which side of port 7174 rdx was.
func conversations(t *testing.T, path string, rdxIsServer bool) [][]segment {
	t.Helper()
	src, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var convs [][]segment
	idx := map[uint16]int{} // client port -> conversation
	var p capture.Packet
	for src.Next(&p) == nil {
		if len(p.Data) < 34 || binary.BigEndian.Uint16(p.Data[12:]) != 0x0800 || p.Data[14+9] != 6 {
			continue
		}
		b := p.Data[14:]
		tcp := b[int(b[0]&15)*4 : binary.BigEndian.Uint16(b[2:])]
		sport, dport := binary.BigEndian.Uint16(tcp), binary.BigEndian.Uint16(tcp[2:])
		cport := sport
		if sport == RpingPort {
			cport = dport
		}
		if tcp[13]&0x12 == 0x02 { // SYN: a new connection
			idx[cport] = len(convs)
			convs = append(convs, nil)
		}
		payload := tcp[int(tcp[12]>>4)*4:]
		if len(payload) == 0 {
			continue
		}
		fromServer := sport == RpingPort
		i := idx[cport]
		convs[i] = append(convs[i], segment{fromRdx: fromServer == rdxIsServer, data: append([]byte(nil), payload...)})
	}
	return convs
}

// replay plays siw's side of conv to rdx over loopback TCP, in capture
// order, and checks that every octet rdx sends is what it sent to siw.
func replay(t *testing.T, conv []segment, run func(net.Conn) error) {
	t.Helper()
	a, b := tcpPair(t)
	errc := make(chan error, 1)
	go func() { errc <- run(b) }()
	a.SetDeadline(time.Now().Add(10 * time.Second))
	off := 0
	for i, s := range conv {
		if !s.fromRdx {
			if _, err := a.Write(s.data); err != nil {
				t.Fatalf("segment %d: %v", i, err)
			}
			continue
		}
		got := make([]byte, len(s.data))
		if _, err := io.ReadFull(a, got); err != nil {
			t.Fatalf("segment %d (rdx octets %d..): %v", i, off, err)
		}
		if !bytes.Equal(got, s.data) {
			t.Fatalf("segment %d (rdx octets %d..): rdx sent\n%x\nto siw it sent\n%x", i, off, got, s.data)
		}
		off += len(got)
	}
	a.(*net.TCPConn).CloseWrite()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if n, _ := a.Read(make([]byte, 1)); n != 0 {
		t.Error("rdx sent more than it sent to siw")
	}
	a.Close()
}

func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ch := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		ch <- c
	}()
	a, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return a, <-ch
}

// TestReplaySiwInterop replays siw's half of each interop connection to
// rdx's rping, server and client, and requires rdx to answer with the very
// octets it sent to siw: the MPA Reply or Request, the RTRs, Read
// Requests and Responses, Writes and Sends, CRCs included.
func TestReplaySiwInterop(t *testing.T) {
	ctx := context.Background()
	o := RpingOptions{Count: 10, Size: 100, Validate: true}
	for ci, cfg := range []Config{{P2P: RTRAny}, {P2P: RTRAny}, {P2P: RTRAny}} {
		convs := conversations(t, "testdata/siw_rping_client_vs_rdx.pcap", true)
		if len(convs) != 3 {
			t.Fatalf("server capture: %d connections", len(convs))
		}
		t.Run(fmt.Sprintf("rdx-server-%d", ci), func(t *testing.T) {
			replay(t, convs[ci], func(nc net.Conn) error {
				c, err := Server(nc, cfg)
				if err != nil {
					return err
				}
				defer c.Close()
				n, err := RpingServer(ctx, c, o)
				if err == nil && n != 10 {
					err = fmt.Errorf("%d pings served", n)
				}
				return err
			})
		})
	}
	for ci, cfg := range []Config{{}, {CRC: true}, {P2P: RTRRead}} {
		convs := conversations(t, "testdata/rdx_rping_client_vs_siw.pcap", false)
		if len(convs) != 3 {
			t.Fatalf("client capture: %d connections", len(convs))
		}
		t.Run(fmt.Sprintf("rdx-client-%d", ci), func(t *testing.T) {
			replay(t, convs[ci], func(nc net.Conn) error {
				c, err := Client(nc, cfg)
				if err != nil {
					return err
				}
				n, err := RpingClient(ctx, c, o)
				c.Close()
				if err == nil && n != 10 {
					err = fmt.Errorf("%d pings", n)
				}
				return err
			})
		})
	}
}
