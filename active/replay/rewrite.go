// Package replay sends the frames of a capture file out of an interface,
// with recorded or fixed timing and optional rewriting of addresses and
// ports (checksums, and the RoCEv2 ICRC, are fixed after a rewrite).
package replay

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/rdx-project/rdx/dissect/ib"
	"github.com/rdx-project/rdx/internal/inet"
)

// Rewrite sets one header field in every frame that has it.
type Rewrite struct {
	Field string // eth.src, eth.dst, ip.src, ip.dst, ipv6.src, ipv6.dst, udp.srcport, udp.dstport, tcp.srcport, tcp.dstport
	mac   [6]byte
	ip    [4]byte
	ip6   [16]byte
	port  uint16
}

// RewriteFields lists the fields ParseRewrite accepts.
var RewriteFields = []string{"eth.src", "eth.dst", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "udp.srcport", "udp.dstport", "tcp.srcport", "tcp.dstport"}

// ParseRewrite parses FIELD=VALUE, e.g. ip.dst=198.51.100.2 or
// udp.dstport=7000 (field names as in the dissector's display fields).
func ParseRewrite(s string) (Rewrite, error) {
	f, v, ok := strings.Cut(s, "=")
	r := Rewrite{Field: f}
	if !ok || v == "" {
		return r, fmt.Errorf("--rewrite %q: want FIELD=VALUE with FIELD one of %s", s, strings.Join(RewriteFields, ", "))
	}
	switch f {
	case "eth.src", "eth.dst":
		m, err := net.ParseMAC(v)
		if err != nil || len(m) != 6 {
			return r, fmt.Errorf("--rewrite %q: %q is not a MAC address", s, v)
		}
		copy(r.mac[:], m)
	case "ip.src", "ip.dst":
		a, err := netip.ParseAddr(v)
		if err != nil || !a.Is4() {
			return r, fmt.Errorf("--rewrite %q: %q is not an IPv4 address", s, v)
		}
		r.ip = a.As4()
	case "ipv6.src", "ipv6.dst":
		a, err := netip.ParseAddr(v)
		if err != nil || !a.Is6() || a.Is4In6() {
			return r, fmt.Errorf("--rewrite %q: %q is not an IPv6 address", s, v)
		}
		r.ip6 = a.As16()
	case "udp.srcport", "udp.dstport", "tcp.srcport", "tcp.dstport":
		n, err := strconv.ParseUint(v, 10, 16)
		if err != nil {
			return r, fmt.Errorf("--rewrite %q: %q is not a port number", s, v)
		}
		r.port = uint16(n)
	default:
		return r, fmt.Errorf("--rewrite %q: unknown field %q (want one of %s)", s, f, strings.Join(RewriteFields, ", "))
	}
	return r, nil
}

func (r Rewrite) String() string {
	switch r.Field {
	case "eth.src", "eth.dst":
		return r.Field + "=" + net.HardwareAddr(r.mac[:]).String()
	case "ip.src", "ip.dst":
		return r.Field + "=" + netip.AddrFrom4(r.ip).String()
	case "ipv6.src", "ipv6.dst":
		return r.Field + "=" + netip.AddrFrom16(r.ip6).String()
	}
	return r.Field + "=" + strconv.Itoa(int(r.port))
}

// Reason says why a frame was not rewritten: a rule changes a field that a
// checksum (or the RoCEv2 ICRC) covers and the rewriter cannot fix that
// checksum in this frame, or (in Run) the frame cannot be sent at all. Such
// a frame is left as it was and Run skips it: sent with its old addresses it
// could reach the hosts the rewrite was meant to keep it from.
type Reason uint8

const (
	OK           Reason = iota
	ShortFrame          // shorter than an Ethernet header
	BadIPHeader         // IP ethertype, but the header is cut or malformed
	L4Cut               // transport header cut by the snapshot length or the IP length
	BadUDPLength        // UDP length outside 8..the IP payload
	SourceRoute         // the checksum covers a final destination held elsewhere
	IPsec               // AH covers the addresses, ESP hides the transport checksum
	PartialRoCE         // RoCEv2 packet not whole in the frame: ICRC not computable
	NotEthernet         // (Run) not an Ethernet frame
	TooBig              // (Run) larger than the interface MTU
	NumReasons
)

var reasonText = [NumReasons]string{
	OK:           "ok",
	ShortFrame:   "shorter than an Ethernet header",
	BadIPHeader:  "IP header cut or malformed",
	L4Cut:        "TCP/UDP/ICMPv6 header cut by the snapshot length or the IP length",
	BadUDPLength: "UDP length disagrees with the IP length",
	SourceRoute:  "source-routed (IPv4 LSRR/SSRR option or IPv6 routing header): the checksum covers the final destination",
	IPsec:        "IPsec (AH or ESP) covers the addresses or hides the transport checksum",
	PartialRoCE:  "RoCEv2 packet not whole in the frame: the ICRC cannot be recomputed",
	NotEthernet:  "not an Ethernet frame",
	TooBig:       "larger than the interface MTU",
}

func (r Reason) String() string {
	if r < NumReasons {
		return reasonText[r]
	}
	return "reason " + strconv.Itoa(int(r))
}

// maxExtHeaders bounds the IPv6 extension-header walk (a chain longer than
// this is treated as malformed).
const maxExtHeaders = 8

// frame locates the headers of an Ethernet frame; offsets are -1 when absent.
type frame struct {
	b          []byte
	et         uint16 // ethertype after any VLAN tags
	l3         int    // IP header
	ipv        int    // 4 or 6; 0 when not IP or the IP header is unusable
	l4         int    // transport header, when this packet carries it and all of it is in the frame
	proto      byte   // transport protocol (after IPv6 extension headers)
	l3End      int    // end of the IP packet, as its length field says
	l4End      int    // end of what the transport checksum covers (UDP: by its length)
	first      bool   // the packet carries the transport header (not a later fragment)
	fragmented bool
	l4Whole    bool // the frame holds the whole unfragmented datagram
	srcRoute   bool
	ipsec      bool
	bad        Reason // why the IP header or the transport checksum cannot be fixed
}

func be16(b []byte) uint16 { return binary.BigEndian.Uint16(b) }

func locate(b []byte) frame {
	f := frame{b: b, l3: -1, l4: -1}
	if len(b) < 14 {
		f.bad = ShortFrame
		return f
	}
	off := 12
	et := be16(b[off:])
	for (et == 0x8100 || et == 0x88a8 || et == 0x9100) && len(b) >= off+6 {
		off += 4
		et = be16(b[off:])
	}
	off += 2
	f.et = et
	switch et {
	case 0x0800:
		f.ipv4(off)
	case 0x86dd:
		f.ipv6(off)
	}
	return f
}

func (f *frame) ipv4(off int) {
	b := f.b
	if len(b) < off+20 || b[off]>>4 != 4 {
		f.bad = BadIPHeader
		return
	}
	hl := int(b[off]&0x0f) * 4
	if hl < 20 || len(b) < off+hl {
		f.bad = BadIPHeader
		return
	}
	f.l3, f.ipv, f.proto = off, 4, b[off+9]
	f.l3End = off + int(be16(b[off+2:]))
	frag := be16(b[off+6:])
	f.first = frag&0x1fff == 0
	f.fragmented = frag&0x3fff != 0
	// The L4 checksum covers the whole datagram: only recomputed when the
	// frame holds all of it in one unfragmented packet.
	f.l4Whole = !f.fragmented && f.l3End <= len(b)
	for o := off + 20; o < off+hl; {
		t := b[o]
		if t == 0 { // end of options
			break
		}
		if t == 1 { // no-op
			o++
			continue
		}
		if o+1 >= off+hl || b[o+1] < 2 {
			break
		}
		if t == 131 || t == 137 { // LSRR, SSRR
			f.srcRoute = true
		}
		o += int(b[o+1])
	}
	f.ipsec = f.proto == 50 || f.proto == 51
	f.transport(off + hl)
}

func (f *frame) ipv6(off int) {
	b := f.b
	if len(b) < off+40 || b[off]>>4 != 6 {
		f.bad = BadIPHeader
		return
	}
	f.l3, f.ipv = off, 6
	f.l3End = off + 40 + int(be16(b[off+4:]))
	end := min(len(b), f.l3End)
	nh, p := b[off+6], off+40
	f.first = true
walk:
	for i := 0; ; i++ {
		switch nh {
		case 0, 43, 44, 51, 60: // hop-by-hop, routing, fragment, AH, destination options
		default:
			break walk
		}
		if i == maxExtHeaders {
			f.ipv, f.bad = 0, BadIPHeader
			return
		}
		if p+8 > end {
			f.proto, f.bad = nh, L4Cut
			return
		}
		n := (int(b[p+1]) + 1) * 8
		switch nh {
		case 43:
			// Segments left: the pseudo-header holds the final destination,
			// which is in the routing header, not the IPv6 header.
			f.srcRoute = f.srcRoute || b[p+3] != 0
		case 44:
			n = 8
			f.fragmented = true
			f.first = be16(b[p+2:])&0xfff8 == 0
		case 51:
			n = (int(b[p+1]) + 2) * 4
			f.ipsec = true
		}
		nh, p = b[p], p+n
		if !f.first {
			break // what follows the fragment header is not in this packet
		}
	}
	f.proto = nh
	f.ipsec = f.ipsec || nh == 50
	f.l4Whole = !f.fragmented && f.l3End <= len(b)
	f.transport(p)
}

// checksummed reports whether the transport checksum covers the IP
// addresses (the pseudo-header) and the rewriter knows where it is.
func (f *frame) checksummed() bool {
	return f.ipv != 0 && (f.proto == 6 || f.proto == 17 || f.proto == 58 && f.ipv == 6)
}

// transport finds the TCP, UDP or ICMPv6 header at p.
func (f *frame) transport(p int) {
	if !f.checksummed() || !f.first {
		return
	}
	need := 4 // ICMPv6
	switch f.proto {
	case 6:
		need = 20
	case 17:
		need = 8
	}
	if p+need > min(len(f.b), f.l3End) {
		f.bad = L4Cut
		return
	}
	f.l4, f.l4End = p, f.l3End
	if f.proto == 17 && !f.fragmented {
		// The receiver checks the UDP checksum over the UDP length.
		ul := int(be16(f.b[p+4:]))
		if ul < 8 || p+ul > f.l3End {
			f.bad = BadUDPLength
			return
		}
		f.l4End = p + ul
	}
}

// Apply rewrites b in place and fixes the checksums it invalidated. It
// reports whether anything changed; when the rules touch a field whose
// checksum it cannot fix in this frame, b is left as it was and the reason
// returned.
func Apply(rws []Rewrite, b []byte) (bool, Reason) {
	if len(rws) == 0 {
		return false, OK
	}
	if len(b) < 14 {
		return false, ShortFrame
	}
	f := locate(b)
	// First decide, without touching b, what the rules change here and
	// whether every checksum over it can be fixed.
	addr, l4 := false, false
	dport := -1 // UDP destination port after the rewrite
	if f.l4 >= 0 && f.proto == 17 {
		dport = int(be16(b[f.l4+2:]))
	}
	for _, r := range rws {
		switch r.Field {
		case "eth.src", "eth.dst":
		case "ip.src", "ip.dst", "ipv6.src", "ipv6.dst":
			v, et := 4, uint16(0x0800)
			if strings.HasPrefix(r.Field, "ipv6") {
				v, et = 6, 0x86dd
			}
			if f.et != et {
				continue
			}
			if f.ipv != v {
				return false, f.bad
			}
			addr = true
		default:
			if f.ipv == 0 && (f.et == 0x0800 || f.et == 0x86dd) {
				return false, f.bad // cannot tell whether it is TCP or UDP
			}
			proto := byte(17)
			if strings.HasPrefix(r.Field, "tcp") {
				proto = 6
			}
			if f.ipv == 0 || f.proto != proto || !f.first {
				continue
			}
			if f.l4 < 0 {
				return false, f.bad
			}
			l4 = true
			if proto == 17 && strings.HasSuffix(r.Field, "dstport") {
				dport = int(r.port)
			}
		}
	}
	if addr {
		switch {
		case f.bad != OK:
			return false, f.bad
		case f.ipsec:
			return false, IPsec
		case f.srcRoute && f.checksummed():
			return false, SourceRoute
		case f.checksummed() && f.first:
			l4 = true
		}
	}
	if l4 && f.bad != OK {
		return false, f.bad
	}
	roce := l4 && f.proto == 17 && dport == 4791
	if roce && (!f.l4Whole || f.l4End-f.l4 < 8+ib.BTHLen+4) {
		return false, PartialRoCE
	}

	// When the frame lacks part of the datagram (an IPv4 fragment, or cut
	// by the snapshot length), the L4 checksum cannot be recomputed; it is
	// adjusted for the changed words instead (RFC 1624), which is exact:
	// after reassembly the datagram checks as it did before the rewrite.
	var before uint32
	incremental := l4 && !f.l4Whole
	if incremental {
		before = pseudoWords(f)
	}
	changed := false
	for _, r := range rws {
		switch r.Field {
		case "eth.dst":
			copy(b[0:6], r.mac[:])
			changed = true
		case "eth.src":
			copy(b[6:12], r.mac[:])
			changed = true
		case "ip.src", "ip.dst":
			if f.ipv == 4 {
				o := f.l3 + 12
				if r.Field == "ip.dst" {
					o += 4
				}
				copy(b[o:o+4], r.ip[:])
				changed = true
			}
		case "ipv6.src", "ipv6.dst":
			if f.ipv == 6 {
				o := f.l3 + 8
				if r.Field == "ipv6.dst" {
					o += 16
				}
				copy(b[o:o+16], r.ip6[:])
				changed = true // IPv6 has no header checksum; the L4 pseudo-header and ICRC cover the addresses
			}
		default:
			proto := byte(17)
			if strings.HasPrefix(r.Field, "tcp") {
				proto = 6
			}
			if f.l4 >= 0 && f.proto == proto {
				o := f.l4
				if strings.HasSuffix(r.Field, "dstport") {
					o += 2
				}
				binary.BigEndian.PutUint16(b[o:], r.port)
				changed = true
			}
		}
	}
	if addr && f.ipv == 4 {
		fixIPv4(b[f.l3:])
	}
	switch {
	case incremental:
		adjustL4(f, before, pseudoWords(f))
	case l4:
		fixL4(f)
	}
	return changed, OK
}

// addrSum sums the pseudo-header's addresses.
func addrSum(f frame) uint32 {
	if f.ipv == 4 {
		return inet.Sum(0, f.b[f.l3+12:f.l3+20])
	}
	return inet.Sum(0, f.b[f.l3+8:f.l3+40])
}

// pseudoWords sums the words a rewrite can change under the L4 checksum:
// the pseudo-header's addresses and, for TCP and UDP, the two ports.
func pseudoWords(f frame) uint32 {
	if f.proto == 58 {
		return addrSum(f)
	}
	return inet.Sum(addrSum(f), f.b[f.l4:f.l4+4])
}

// ckOffset is where the checksum sits in the transport header.
func ckOffset(proto byte) int {
	switch proto {
	case 6:
		return 16
	case 17:
		return 6
	}
	return 2 // ICMPv6
}

// adjustL4 updates the transport checksum for words whose sum went from
// old to new: HC' = ~(~HC + ~m + m') (RFC 1624, eqn. 3).
func adjustL4(f frame, old, new uint32) {
	o := f.l4 + ckOffset(f.proto)
	// A zero UDP checksum over IPv4 means "none": keep it that way.
	if f.proto == 17 && f.ipv == 4 && be16(f.b[o:]) == 0 {
		return
	}
	hc := be16(f.b[o:])
	c := ^inet.Fold(uint32(^hc) + uint32(^inet.Fold(old)) + uint32(inet.Fold(new)))
	if c == 0 && f.proto == 17 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(f.b[o:], c)
}

func fixIPv4(h []byte) {
	hl := int(h[0]&0x0f) * 4
	h[10], h[11] = 0, 0
	binary.BigEndian.PutUint16(h[10:], ^inet.Fold(inet.Sum(0, h[:hl])))
}

// fixL4 recomputes the TCP, UDP or ICMPv6 checksum over the pseudo-header,
// and the RoCEv2 ICRC (UDP port 4791), which covers the IP addresses.
func fixL4(f frame) {
	b := f.b
	seg := b[f.l4:f.l4End]
	ck := ckOffset(f.proto)
	if f.proto == 17 {
		if be16(seg[2:]) == 4791 && len(seg) >= 8+ib.BTHLen+4 {
			if crc, ok := ib.ICRCRoCEv2(b[f.l3:f.l4], seg[:8], seg[8:len(seg)-4]); ok {
				binary.LittleEndian.PutUint32(seg[len(seg)-4:], crc)
			}
		}
		// A zero UDP checksum over IPv4 means "none": keep it that way.
		if f.ipv == 4 && be16(seg[6:]) == 0 {
			return
		}
	}
	seg[ck], seg[ck+1] = 0, 0
	s := addrSum(f) + uint32(f.proto) + uint32(len(seg))
	c := ^inet.Fold(inet.Sum(s, seg))
	if c == 0 && f.proto == 17 {
		c = 0xffff // UDP sends a computed zero as all ones
	}
	binary.BigEndian.PutUint16(seg[ck:], c)
}

// Summary is a one-line description of a frame for --dry-run.
func Summary(b []byte) string {
	if len(b) < 14 {
		return fmt.Sprintf("short frame (%d bytes)", len(b))
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s > %s", net.HardwareAddr(b[6:12]), net.HardwareAddr(b[0:6]))
	f := locate(b)
	var src, dst netip.Addr
	switch f.ipv {
	case 4:
		src, dst = netip.AddrFrom4([4]byte(b[f.l3+12:])), netip.AddrFrom4([4]byte(b[f.l3+16:]))
	case 6:
		src, dst = netip.AddrFrom16([16]byte(b[f.l3+8:])), netip.AddrFrom16([16]byte(b[f.l3+24:]))
	default:
		fmt.Fprintf(&sb, " ethertype 0x%04x", binary.BigEndian.Uint16(b[12:]))
		return sb.String()
	}
	if f.l4 >= 0 && (f.proto == 6 || f.proto == 17) {
		name := map[byte]string{6: "TCP", 17: "UDP"}[f.proto]
		fmt.Fprintf(&sb, " %s %s > %s",
			name, netip.AddrPortFrom(src, binary.BigEndian.Uint16(b[f.l4:])), netip.AddrPortFrom(dst, binary.BigEndian.Uint16(b[f.l4+2:])))
		return sb.String()
	}
	fmt.Fprintf(&sb, " IP proto %d %s > %s", f.proto, src, dst)
	return sb.String()
}
