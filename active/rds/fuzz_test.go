package rds

import (
	"net"
	"net/netip"
	"testing"
	"time"

	wire "github.com/rdx-project/rdx/dissect/rds"
)

// FuzzStream feeds arbitrary octets to a path's reader, as a hostile peer
// would: no panic, no hang, and the endpoint still closes cleanly.
func FuzzStream(f *testing.F) {
	probe := wire.HeaderFields{Seq: 1, Sport: wire.ProbePort, Ext: wire.ProbeExt(8, 9)}
	cong := wire.HeaderFields{Flags: wire.FlagCongBitmap, Len: wire.CongMapLen}
	data := wire.HeaderFields{Seq: 2, Sport: 5, Dport: 6, Len: 3, Flags: wire.FlagRetrans}
	f.Add(append(probe.Encode(nil), append(data.Encode(nil), "abc"...)...))
	f.Add(append(cong.Encode(nil), make([]byte, wire.CongMapLen)...))
	f.Add([]byte{0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		ep := newEndpoint(Config{Timeout: time.Second})
		p := ep.newPeer(netip.MustParseAddr("192.0.2.9"))
		ep.mu.Lock()
		ep.peers[p.addr] = p
		ep.mu.Unlock()
		mine, theirs := net.Pipe()
		go func() { // the peer reads what we answer, then leaves
			buf := make([]byte, 1<<16)
			for {
				if _, err := theirs.Read(buf); err != nil {
					return
				}
			}
		}()
		p.up(p.paths[0], mine)
		go func() { // the application takes what is delivered
			for {
				select {
				case <-ep.recv:
				case <-ep.done:
					return
				}
			}
		}()
		theirs.Write(b) // returns once the reader took it all, or closed the path
		theirs.Close()
		ep.Close()
	})
}
