package rdp

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"syscall"

	rdpwire "github.com/rdx-project/rdx/dissect/rdp"
)

// Transport carries whole RDP segments. A link address is what the
// transport needs to reach a peer: an IP address (port 0) for raw IP, an
// IP:port for UDP encapsulation.
type Transport interface {
	// ReadFrom blocks for the next segment. An error wrapping
	// syscall.ECONNREFUSED reports an ICMP unreachable (connected UDP only);
	// any other error ends the endpoint.
	ReadFrom(b []byte) (int, netip.AddrPort, error)
	WriteTo(seg []byte, to netip.AddrPort) error
	// LocalAddr is the source address used towards to, for the RFC 1151
	// pseudo-header checksum (spec §3.2); the zero Addr means "checksum the
	// bare segment" (UDP encapsulation, whose own checksum covers the
	// addresses).
	LocalAddr(to netip.AddrPort) netip.Addr
	Close() error
}

// RawIP is RDP directly over IPv4, protocol 27 (needs CAP_NET_RAW). Every
// raw socket sees every protocol-27 packet of the host, so the endpoint
// ignores segments addressed to other RDP ports.
type RawIP struct {
	c     *net.IPConn
	mu    sync.Mutex
	local map[netip.Addr]netip.Addr
}

// ListenRawIP opens a raw IPv4 socket for protocol 27 bound to laddr (the
// zero Addr: all addresses).
func ListenRawIP(laddr netip.Addr) (*RawIP, error) {
	a := "0.0.0.0"
	if laddr.IsValid() {
		a = laddr.String()
	}
	pc, err := net.ListenPacket("ip4:27", a)
	if err != nil {
		return nil, err
	}
	c := pc.(*net.IPConn)
	c.SetReadBuffer(sockBuf) // a window of segments must fit while the reader is descheduled
	return &RawIP{c: c, local: map[netip.Addr]netip.Addr{}}, nil
}

// ReadFrom returns the RDP segment: Go strips the IPv4 header of ip4 raw
// sockets on read.
func (r *RawIP) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	n, a, err := r.c.ReadFrom(b)
	if err != nil {
		return 0, netip.AddrPort{}, err
	}
	ip, _ := netip.AddrFromSlice(a.(*net.IPAddr).IP)
	return n, netip.AddrPortFrom(ip.Unmap(), 0), nil
}

func (r *RawIP) WriteTo(seg []byte, to netip.AddrPort) error {
	_, err := r.c.WriteTo(seg, &net.IPAddr{IP: to.Addr().AsSlice()})
	return err
}

// LocalAddr asks the routing table (a UDP "connect" sends nothing) which
// source address the kernel will put on packets to `to`.
func (r *RawIP) LocalAddr(to netip.AddrPort) netip.Addr {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.local[to.Addr()]; ok {
		return a
	}
	var a netip.Addr
	if c, err := net.DialUDP("udp4", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(to.Addr(), 9))); err == nil {
		a = c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap()
		c.Close()
	}
	if len(r.local) < 256 {
		r.local[to.Addr()] = a
	}
	return a
}

func (r *RawIP) Close() error { return r.c.Close() }

const sockBuf = 4 << 20

// UDP carries one RDP segment per UDP datagram (no privileges needed).
type UDP struct {
	c      *net.UDPConn
	remote netip.AddrPort // set for a connected (dialing) socket
}

// DefaultUDPPort is the UDP port of `rdx rdp` in UDP mode (unassigned; the
// "27" recalls RDP's IP protocol number).
const DefaultUDPPort = 2727

// ListenUDP binds laddr (a listener).
func ListenUDP(laddr netip.AddrPort) (*UDP, error) {
	c, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(laddr))
	if err != nil {
		return nil, err
	}
	c.SetReadBuffer(sockBuf)
	return &UDP{c: c}, nil
}

// DialUDP connects to raddr, so ICMP port unreachable comes back as
// ECONNREFUSED and the dialer can report "refused" at once.
func DialUDP(raddr netip.AddrPort) (*UDP, error) {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(raddr))
	if err != nil {
		return nil, err
	}
	c.SetReadBuffer(sockBuf)
	return &UDP{c: c, remote: raddr}, nil
}

func (u *UDP) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	if u.remote.IsValid() {
		n, err := u.c.Read(b)
		return n, u.remote, err
	}
	n, a, err := u.c.ReadFromUDPAddrPort(b)
	return n, netip.AddrPortFrom(a.Addr().Unmap(), a.Port()), err
}

func (u *UDP) WriteTo(seg []byte, to netip.AddrPort) error {
	var err error
	if u.remote.IsValid() {
		_, err = u.c.Write(seg)
	} else {
		_, err = u.c.WriteToUDPAddrPort(seg, to)
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return nil // reported by ReadFrom as well; a write error here is not fatal
	}
	return err
}

// LocalAddr returns the UDP socket's own IP for a connected socket, else the
// zero Addr (bare checksum; see Transport).
func (u *UDP) LocalAddr(netip.AddrPort) netip.Addr { return netip.Addr{} }

func (u *UDP) Close() error { return u.c.Close() }

// IPv4Frame wraps seg in a 20-octet IPv4 header (protocol 27, TTL 64) for
// link type 228 (raw IPv4), as recorded by --pcap.
func IPv4Frame(dst []byte, src, to netip.Addr, seg []byte) []byte {
	if !src.Is4() {
		src = netip.AddrFrom4([4]byte{0, 0, 0, 0})
	}
	if !to.Is4() {
		to = netip.AddrFrom4([4]byte{0, 0, 0, 0})
	}
	start := len(dst)
	dst = append(dst, 0x45, 0, byte((20+len(seg))>>8), byte(20+len(seg)), 0, 0, 0x40, 0, 64, rdpwire.IPProto, 0, 0)
	s, d := src.As4(), to.As4()
	dst = append(dst, s[:]...)
	dst = append(dst, d[:]...)
	var sum uint32
	for i := start; i < start+20; i += 2 {
		sum += uint32(dst[i])<<8 | uint32(dst[i+1])
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	dst[start+10], dst[start+11] = byte(^sum>>8), byte(^sum)
	return append(dst, seg...)
}
