package dissect

import (
	"encoding/binary"
	"net/netip"

	"github.com/rdx-project/rdx/internal/inet"
)

// The base layers' checksums, verified when Options.Checksums asks (rdx
// check), as tshark's ip/udp/tcp "validate checksum" preferences do; off,
// the tree shows them unverified, as tshark does by default.
var (
	checkIP4Cksum = RegisterCheck("ip.checksum", "ip", "IPv4 header checksum (RFC 791)")
	checkUDPCksum = RegisterCheck("udp.checksum", "udp", "UDP checksum over the IP pseudo-header (RFC 768, RFC 8200 8.1); not over IPv4 fragments, snapped datagrams or a zero checksum over IPv4")
	checkTCPCksum = RegisterCheck("tcp.checksum", "tcp", "TCP checksum over the IP pseudo-header (RFC 9293 3.1); not over IPv4 fragments or snapped segments")
)

// verifyChecksums checks the IPv4 header, UDP and TCP checksums of the
// frame whose layers decodeLayers just decoded; data is the whole frame.
// A checksum that cannot be verified is recorded as skipped with its
// reason, so rdx check says what it did not check.
func (e *Engine) verifyChecksums(f *Frame, data []byte) {
	n := &f.Net
	if !n.HasIP {
		return
	}
	e.ensureLayers() // the headers' bytes: the fast path leaves them undecoded
	v4 := n.Src.Is4()
	if v4 {
		h := e.ip4.Contents
		if len(h) < 20 {
			return
		}
		wire := binary.BigEndian.Uint16(h[10:])
		if inet.Fold(inet.Sum(0, h)) == 0xffff {
			f.Checked(checkIP4Cksum, -1, true)
			e.ckIP = 1 + StatusGood
		} else if wire == 0 {
			// Windows and some NICs leave the sent header's checksum to the
			// hardware: the capture sees 0 (Wireshark's "checksum offload";
			// counted as not checked, as below).
			f.Unchecked(checkIP4Cksum, -1, SkipOffload)
		} else {
			f.Checked(checkIP4Cksum, -1, false)
			e.ckIP = 1 + StatusBad
			f.AddFinding(-1, Error, GroupChecksum, fIPChecksum, "ip", "bad IPv4 header checksum 0x"+hex4(wire)+
				" (should be 0x"+hex4(^inet.Fold(inet.Sum(0, h)-uint32(wire)))+")")
		}
	}
	var ck *Check
	var field *Field
	var proto string
	var csumOff int
	switch n.IPProto {
	case IPProtoUDP:
		ck, field, proto, csumOff = checkUDPCksum, fUDPChecksum, "udp", 6
	case IPProtoTCP:
		ck, field, proto, csumOff = checkTCPCksum, fTCPChecksum, "tcp", 16
	default:
		return
	}
	if n.Fragment {
		// the checksum covers the whole datagram, which this frame is not
		f.Unchecked(ck, -1, SkipFragment)
		return
	}
	if !n.HasL4 {
		return
	}
	// the transport segment's length as the IP header gives it
	var l4 int
	if v4 {
		h := e.ip4.Contents
		l4 = int(binary.BigEndian.Uint16(h[2:])) - len(h)
	} else {
		l4 = int(e.ip6.Length) - e.hbhLen
	}
	if l4 < csumOff+2 || n.L4Off+l4 > len(data) {
		f.Unchecked(ck, -1, SkipSnapped)
		return
	}
	seg := data[n.L4Off : n.L4Off+l4]
	wire := binary.BigEndian.Uint16(seg[csumOff:])
	if proto == "udp" && wire == 0 && v4 {
		f.Unchecked(ck, -1, SkipAbsent) // RFC 768: the sender computed none
		e.ckL4 = 1 + StatusNotPresent
		return
	}
	pseudo := pseudoSum(n.Src, n.Dst, n.IPProto, l4)
	sum := inet.Sum(pseudo, seg)
	if c := inet.Fold(sum); (c == 0xffff || c == 0 && wire == 0xffff) && (wire != 0 || proto != "udp") {
		f.Checked(ck, -1, true)
		e.ckL4 = 1 + StatusGood
		return
	}
	if wire == inet.Fold(pseudo) {
		// Linux hands a sent segment to a checksum-offloading NIC (and to
		// loopback) with only the pseudo-header's sum in the field; the
		// capture sees it before the hardware completes it.
		// No finding: every sent packet of a loopback capture has it, and
		// rdx check's report counts them as not checked, with the reason.
		f.Unchecked(ck, -1, SkipOffload)
		return
	}
	f.Checked(ck, -1, false)
	e.ckL4 = 1 + StatusBad
	msg := "bad " + proto + " checksum 0x" + hex4(wire) + " (should be 0x" + hex4(^inet.Fold(sum-uint32(wire))) + ")"
	if proto == "udp" && wire == 0 {
		msg = "illegal UDP checksum 0x0000 over IPv6 (RFC 8200 8.1)"
		e.ckL4 = 1 + StatusIllegal
	}
	f.AddFinding(-1, Error, GroupChecksum, field, proto, msg)
}

// pseudoSum is the running sum of the IPv4 or IPv6 pseudo-header.
func pseudoSum(src, dst netip.Addr, proto uint8, l4 int) uint32 {
	var s uint32
	if src.Is4() {
		a, b := src.As4(), dst.As4()
		s = inet.Sum(s, a[:])
		s = inet.Sum(s, b[:])
	} else {
		a, b := src.As16(), dst.As16()
		s = inet.Sum(s, a[:])
		s = inet.Sum(s, b[:])
	}
	return s + uint32(proto) + uint32(l4>>16) + uint32(l4&0xffff)
}

func hex4(v uint16) string { return string(AppendHexDigits(nil, uint64(v), 4)) }
