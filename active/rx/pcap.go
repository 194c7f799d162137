package rx

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/inet"
)

// Recorder writes every datagram an endpoint sends and receives into a pcap
// (link type 228, raw IPv4, nanosecond timestamps) as IPv4/UDP frames, so
// `rdx read`/`rdx check` decode the exchange. Use its Trace as
// Config.Trace.
type Recorder struct {
	mu   sync.Mutex
	bw   *bufio.Writer
	pw   *capture.PcapWriter
	buf  []byte
	id   uint16
	err  error
	n    int
	srcs map[netip.Addr]netip.Addr
}

// NewRecorder writes the pcap header to w.
func NewRecorder(w io.Writer) (*Recorder, error) {
	bw := bufio.NewWriter(w)
	pw, err := capture.NewPcapWriter(bw, capture.LinkIPv4, 65535, true)
	if err != nil {
		return nil, err
	}
	return &Recorder{bw: bw, pw: pw}, nil
}

// Trace records one datagram (Config.Trace's signature). A socket bound to
// 0.0.0.0 is recorded with the source address the kernel picks towards the
// peer.
func (r *Recorder) Trace(sent bool, d []byte, local, remote netip.AddrPort) {
	if !local.Addr().Is4() || local.Addr().IsUnspecified() {
		local = netip.AddrPortFrom(r.source(remote), local.Port())
	}
	src, dst := local, remote
	if !sent {
		src, dst = remote, local
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.id++
	r.buf = UDPFrame(r.buf[:0], src, dst, r.id, d)
	if err := r.pw.WritePacket(&capture.Packet{Data: r.buf, TimeNS: time.Now().UnixNano()}); err != nil && r.err == nil {
		r.err = err
	}
	r.n++
}

// source asks the routing table which address packets to remote leave from
// (a UDP "connect" sends nothing); remembered for up to maxSources peers.
func (r *Recorder) source(remote netip.AddrPort) netip.Addr {
	r.mu.Lock()
	a, ok := r.srcs[remote.Addr()]
	r.mu.Unlock()
	if ok {
		return a
	}
	a = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	if c, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(remote.Addr(), 9))); err == nil {
		a = c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap()
		c.Close()
	}
	r.mu.Lock()
	if r.srcs == nil {
		r.srcs = map[netip.Addr]netip.Addr{}
	}
	if len(r.srcs) < maxSources {
		r.srcs[remote.Addr()] = a
	}
	r.mu.Unlock()
	return a
}

// maxSources bounds the Recorder's source address cache.
const maxSources = 64

// Frames is how many datagrams were recorded.
func (r *Recorder) Frames() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Flush writes buffered frames out and returns the first error.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.bw.Flush(); err != nil && r.err == nil {
		r.err = err
	}
	return r.err
}

// UDPFrame appends an IPv4 header (TTL 64, DF) and a UDP header with valid
// checksums before payload.
func UDPFrame(b []byte, src, dst netip.AddrPort, id uint16, payload []byte) []byte {
	start := len(b)
	total := 20 + 8 + len(payload)
	b = append(b, 0x45, 0, byte(total>>8), byte(total), byte(id>>8), byte(id), 0x40, 0, 64, 17, 0, 0)
	s4, d4 := src.Addr().Unmap().As4(), dst.Addr().Unmap().As4()
	b = append(b, s4[:]...)
	b = append(b, d4[:]...)
	binary.BigEndian.PutUint16(b[start+10:], ^inet.Fold(inet.Sum(0, b[start:start+20])))
	u := len(b)
	b = binary.BigEndian.AppendUint16(b, src.Port())
	b = binary.BigEndian.AppendUint16(b, dst.Port())
	b = binary.BigEndian.AppendUint16(b, uint16(8+len(payload)))
	b = append(b, 0, 0)
	b = append(b, payload...)
	sum := inet.Sum(inet.Sum(0, b[start+12:start+20]), b[u:]) + 17 + uint32(8+len(payload))
	c := ^inet.Fold(sum)
	if c == 0 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(b[u+6:], c)
	return b
}
