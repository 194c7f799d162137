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

// frame locates the headers of an Ethernet frame; offsets are -1 when absent.
type frame struct {
	b       []byte
	l3      int // IP header
	ipv     int // 4 or 6
	l4      int // TCP/UDP header (first fragment only)
	proto   byte
	l3End   int // end of the IP packet, as its length field says
	l4Whole bool
}

func locate(b []byte) frame {
	f := frame{b: b, l3: -1, l4: -1}
	off := 12
	if len(b) < 14 {
		return f
	}
	et := binary.BigEndian.Uint16(b[off:])
	for (et == 0x8100 || et == 0x88a8 || et == 0x9100) && len(b) >= off+6 {
		off += 4
		et = binary.BigEndian.Uint16(b[off:])
	}
	off += 2
	switch et {
	case 0x0800:
		if len(b) < off+20 || b[off]>>4 != 4 {
			return f
		}
		hl := int(b[off]&0x0f) * 4
		if hl < 20 || len(b) < off+hl {
			return f
		}
		f.l3, f.ipv, f.proto = off, 4, b[off+9]
		f.l3End = off + int(binary.BigEndian.Uint16(b[off+2:]))
		frag := binary.BigEndian.Uint16(b[off+6:])
		if frag&0x1fff == 0 {
			f.l4 = off + hl
		}
		// The L4 checksum covers the whole datagram: only fixable when
		// the frame holds all of it in one unfragmented packet.
		f.l4Whole = frag&0x3fff == 0 && f.l3End <= len(b)
	case 0x86dd:
		if len(b) < off+40 || b[off]>>4 != 6 {
			return f
		}
		f.l3, f.ipv, f.proto = off, 6, b[off+6]
		f.l4 = off + 40
		f.l3End = off + 40 + int(binary.BigEndian.Uint16(b[off+4:]))
		f.l4Whole = f.l3End <= len(b)
	}
	if f.l4 >= 0 {
		need := map[byte]int{6: 20, 17: 8}[f.proto]
		if need == 0 || len(b) < f.l4+need {
			f.l4 = -1
		}
	}
	return f
}

// Apply rewrites b in place and fixes the checksums it invalidated. It
// reports whether anything changed.
func Apply(rws []Rewrite, b []byte) bool {
	if len(rws) == 0 {
		return false
	}
	f := locate(b)
	// When the frame lacks part of the datagram (an IPv4 fragment, or cut
	// by the snapshot length), the L4 checksum cannot be recomputed; it is
	// adjusted for the changed words instead (RFC 1624), which is exact:
	// after reassembly the datagram checks as it did before the rewrite.
	var before uint32
	incremental := f.l4 >= 0 && !f.l4Whole
	if incremental {
		before = pseudoWords(f)
	}
	changed, l3, l4 := false, false, false
	for _, r := range rws {
		switch r.Field {
		case "eth.dst":
			if len(b) >= 14 {
				copy(b[0:6], r.mac[:])
				changed = true
			}
		case "eth.src":
			if len(b) >= 14 {
				copy(b[6:12], r.mac[:])
				changed = true
			}
		case "ip.src", "ip.dst":
			if f.ipv == 4 {
				o := f.l3 + 12
				if r.Field == "ip.dst" {
					o += 4
				}
				copy(b[o:o+4], r.ip[:])
				changed, l3, l4 = true, true, true
			}
		case "ipv6.src", "ipv6.dst":
			if f.ipv == 6 {
				o := f.l3 + 8
				if r.Field == "ipv6.dst" {
					o += 16
				}
				copy(b[o:o+16], r.ip6[:])
				changed, l4 = true, true // IPv6 has no header checksum; the L4 pseudo-header and ICRC cover the addresses
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
				changed, l4 = true, true
			}
		}
	}
	if l3 {
		fixIPv4(b[f.l3:])
	}
	switch {
	case l4 && f.l4 >= 0 && f.l4Whole:
		fixL4(f)
	case l4 && incremental:
		adjustL4(f, before, pseudoWords(f))
	}
	return changed
}

// addrSum sums the pseudo-header's addresses.
func addrSum(f frame) uint32 {
	if f.ipv == 4 {
		return inet.Sum(0, f.b[f.l3+12:f.l3+20])
	}
	return inet.Sum(0, f.b[f.l3+8:f.l3+40])
}

// pseudoWords sums the words a rewrite can change under the L4 checksum:
// the pseudo-header's addresses and the two ports.
func pseudoWords(f frame) uint32 { return inet.Sum(addrSum(f), f.b[f.l4:f.l4+4]) }

// adjustL4 updates the TCP or UDP checksum for words whose sum went from
// old to new: HC' = ~(~HC + ~m + m') (RFC 1624, eqn. 3).
func adjustL4(f frame, old, new uint32) {
	o := f.l4 + 6
	switch f.proto {
	case 6:
		o = f.l4 + 16
	case 17:
		// A zero UDP checksum over IPv4 means "none": keep it that way.
		if f.ipv == 4 && binary.BigEndian.Uint16(f.b[o:]) == 0 {
			return
		}
	default:
		return
	}
	if len(f.b) < o+2 {
		return
	}
	hc := binary.BigEndian.Uint16(f.b[o:])
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

// fixL4 recomputes the TCP or UDP checksum over the pseudo-header, and the
// RoCEv2 ICRC (UDP port 4791), which covers the IP addresses.
func fixL4(f frame) {
	b := f.b
	seg := b[f.l4:f.l3End]
	var ck int
	switch f.proto {
	case 6:
		ck = 16
	case 17:
		ck = 6
		if binary.BigEndian.Uint16(seg[2:]) == 4791 && len(seg) >= 8+ib.BTHLen+4 {
			if crc, ok := ib.ICRCRoCEv2(b[f.l3:f.l4], seg[:8], seg[8:len(seg)-4]); ok {
				binary.LittleEndian.PutUint32(seg[len(seg)-4:], crc)
			}
		}
		// A zero UDP checksum over IPv4 means "none": keep it that way.
		if f.ipv == 4 && binary.BigEndian.Uint16(seg[6:]) == 0 {
			return
		}
	default:
		return
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
	if f.l4 >= 0 {
		name := map[byte]string{6: "TCP", 17: "UDP"}[f.proto]
		fmt.Fprintf(&sb, " %s %s > %s",
			name, netip.AddrPortFrom(src, binary.BigEndian.Uint16(b[f.l4:])), netip.AddrPortFrom(dst, binary.BigEndian.Uint16(b[f.l4+2:])))
		return sb.String()
	}
	fmt.Fprintf(&sb, " IP proto %d %s > %s", f.proto, src, dst)
	return sb.String()
}
