// Package arp dissects ARP (RFC 826, EtherType 0x0806), with Wireshark's
// field names and Info text: "Who has 198.51.100.2? Tell 198.51.100.1",
// "198.51.100.2 is at 52:54:00:00:01:02". Any hardware type is decoded
// (InfiniBand's 20-octet addresses over IPoIB, RFC 4391, included).
package arp

import (
	"encoding/binary"
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// EtherType is ARP's EtherType.
const EtherType = 0x0806

func init() {
	dissect.RegisterDissector(&dissect.Registration{
		Name:       "arp",
		EtherTypes: []uint16{EtherType},
		New: func(e *dissect.Engine) dissect.Dissector {
			d := &State{}
			return d
		},
	})
}

// HeaderLen is the fixed part: hardware type, protocol type, the two
// address sizes and the opcode.
const HeaderLen = 8

// Opcodes (RFC 826, 903, 2390).
const (
	OpRequest = 1
	OpReply   = 2
)

var (
	PARP = dissect.RegisterProto("arp", "Address Resolution Protocol", "")

	fHWType    = dissect.Register(&dissect.Field{Abbrev: "arp.hw.type", Name: "Hardware type", Type: dissect.TUint16, Names: hwNames})
	fProtoType = dissect.Register(&dissect.Field{Abbrev: "arp.proto.type", Name: "Protocol type", Type: dissect.TUint16, Base: dissect.BaseHex, Names: map[uint64]string{0x0800: "IPv4"}})
	fHWSize    = dissect.Register(&dissect.Field{Abbrev: "arp.hw.size", Name: "Hardware size", Type: dissect.TUint8})
	fProtoSize = dissect.Register(&dissect.Field{Abbrev: "arp.proto.size", Name: "Protocol size", Type: dissect.TUint8})
	fOpcode    = dissect.Register(&dissect.Field{Abbrev: "arp.opcode", Name: "Opcode", Type: dissect.TUint16, Names: opNames})
	fSrcHW     = dissect.Register(&dissect.Field{Abbrev: "arp.src.hw", Name: "Sender hardware address", Type: dissect.TBytes})
	fSrcMAC    = dissect.Register(&dissect.Field{Abbrev: "arp.src.hw_mac", Name: "Sender MAC address", Type: dissect.TEther})
	fSrcProto  = dissect.Register(&dissect.Field{Abbrev: "arp.src.proto", Name: "Sender protocol address", Type: dissect.TBytes})
	fSrcIPv4   = dissect.Register(&dissect.Field{Abbrev: "arp.src.proto_ipv4", Name: "Sender IP address", Type: dissect.TIPv4})
	fDstHW     = dissect.Register(&dissect.Field{Abbrev: "arp.dst.hw", Name: "Target hardware address", Type: dissect.TBytes})
	fDstMAC    = dissect.Register(&dissect.Field{Abbrev: "arp.dst.hw_mac", Name: "Target MAC address", Type: dissect.TEther})
	fDstProto  = dissect.Register(&dissect.Field{Abbrev: "arp.dst.proto", Name: "Target protocol address", Type: dissect.TBytes})
	fDstIPv4   = dissect.Register(&dissect.Field{Abbrev: "arp.dst.proto_ipv4", Name: "Target IP address", Type: dissect.TIPv4})
	fGratuit   = dissect.Register(&dissect.Field{Abbrev: "arp.isgratuitous", Name: "Is gratuitous", Type: dissect.TBool})
)

var hwNames = map[uint64]string{1: "Ethernet", 6: "IEEE 802", 32: "InfiniBand"}

var opNames = map[uint64]string{1: "request", 2: "reply", 3: "reverse request", 4: "reverse reply",
	8: "inverse request", 9: "inverse reply"}

// Packet is one ARP packet.
type Packet struct {
	b   []byte // from the hardware type to the end of the addresses (or of the data)
	off int
	idx int
	ok  bool // the addresses are all present
}

// Proto implements dissect.PDU.
func (p *Packet) Proto() *dissect.ProtoInfo { return PARP }

// State is one engine's ARP dissector (stateless beyond its PDU pool).
type State struct{ pool dissect.Pool[Packet] }

func (p *Packet) hln() int { return int(p.b[4]) }
func (p *Packet) pln() int { return int(p.b[5]) }

// addrs gives the four address offsets in b: sender hardware and protocol,
// target hardware and protocol.
func (p *Packet) addrs() (sha, spa, tha, tpa int) {
	sha = HeaderLen
	spa = sha + p.hln()
	tha = spa + p.pln()
	tpa = tha + p.hln()
	return
}

// Dissect implements dissect.Dissector. Ethernet pads short frames: the
// packet ends after the target protocol address.
func (d *State) Dissect(f *dissect.Frame, data []byte, off int) {
	p, _ := d.pool.Get(f)
	*p = Packet{b: data, off: off}
	p.idx = f.AddPDU(p)
	if len(data) < HeaderLen {
		f.AddFinding(p.idx, dissect.Error, dissect.GroupMalformed, nil, "arp",
			"truncated ARP header: "+strconv.Itoa(len(data))+" of 8 octets")
		return
	}
	_, _, _, tpa := p.addrs()
	end := tpa + p.pln()
	if end > len(data) {
		f.AddFinding(p.idx, dissect.Error, dissect.GroupMalformed, nil, "arp",
			"truncated ARP packet: "+strconv.Itoa(len(data))+" of "+strconv.Itoa(end)+" octets")
		return
	}
	p.b, p.ok = data[:end], true
}

// gratuitous reports a sender announcing its own address: sender and
// target protocol addresses equal (RFC 5227 announcements included).
func (p *Packet) gratuitous() bool {
	_, spa, _, tpa := p.addrs()
	return p.pln() > 0 && string(p.b[spa:spa+p.pln()]) == string(p.b[tpa:tpa+p.pln()])
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func (p *Packet) isIPv4() bool {
	return binary.BigEndian.Uint16(p.b[2:]) == 0x0800 && p.pln() == 4
}

func (p *Packet) isMAC() bool {
	return binary.BigEndian.Uint16(p.b[0:]) == 1 && p.hln() == 6
}

// appendProto appends a protocol address: dotted IPv4 or hex.
func (p *Packet) appendProto(dst []byte, a int) []byte {
	if p.isIPv4() {
		return netip.AddrFrom4([4]byte(p.b[a : a+4])).AppendTo(dst)
	}
	return dissect.AppendHexBytes(dst, p.b[a:a+p.pln()], 0)
}

// appendHW appends a hardware address: colon-separated for Ethernet, plain
// hex otherwise (as tshark shows InfiniBand's 20 octets).
func (p *Packet) appendHW(dst []byte, a int) []byte {
	if p.isMAC() {
		return dissect.AppendHexBytes(dst, p.b[a:a+6], ':')
	}
	return dissect.AppendHexBytes(dst, p.b[a:a+p.hln()], 0)
}

// Summary implements dissect.PDU with tshark's Info text.
func (p *Packet) Summary(dst []byte) []byte {
	if !p.ok {
		return append(dst, "ARP (truncated)"...)
	}
	sha, spa, tha, tpa := p.addrs()
	op := binary.BigEndian.Uint16(p.b[6:])
	switch op {
	case OpRequest:
		if p.isIPv4() && binary.BigEndian.Uint32(p.b[spa:]) == 0 {
			dst = append(dst, "Who has "...) // RFC 5227 probe: no sender address to tell
			dst = p.appendProto(dst, tpa)
			dst = append(dst, "? (ARP Probe)"...)
			return dst
		}
		if p.gratuitous() {
			if allZero(p.b[tha : tha+p.hln()]) {
				dst = append(dst, "ARP Announcement for "...)
				return p.appendProto(dst, spa)
			}
			dst = append(dst, "Gratuitous ARP for "...)
			dst = p.appendProto(dst, spa)
			return append(dst, " (Request)"...)
		}
		dst = append(dst, "Who has "...)
		dst = p.appendProto(dst, tpa)
		dst = append(dst, "? Tell "...)
		return p.appendProto(dst, spa)
	case OpReply:
		if p.gratuitous() {
			dst = append(dst, "Gratuitous ARP for "...)
			dst = p.appendProto(dst, spa)
			return append(dst, " (Reply)"...)
		}
		dst = p.appendProto(dst, spa)
		dst = append(dst, " is at "...)
		return p.appendHW(dst, sha)
	case 3: // RARP request (RFC 903)
		dst = append(dst, "Who is "...)
		dst = p.appendHW(dst, tha)
		dst = append(dst, "? Tell "...)
		return p.appendHW(dst, sha)
	}
	dst = append(dst, "ARP opcode "...)
	return strconv.AppendUint(dst, uint64(op), 10)
}

// Tree implements dissect.PDU.
func (p *Packet) Tree(t *dissect.Tree, f *dissect.Frame) {
	b := p.b
	o := func(k int) int {
		if p.off < 0 {
			return -1
		}
		return p.off + k
	}
	label := ""
	if len(b) >= HeaderLen {
		label = opNames[uint64(binary.BigEndian.Uint16(b[6:]))] // "Address Resolution Protocol, request"
	}
	t.Proto(PARP, o(0), len(b), label)
	if len(b) < HeaderLen {
		f.TreeFindings(t, p.idx)
		return
	}
	t.Uint(fHWType, o(0), 2, uint64(binary.BigEndian.Uint16(b)))
	t.Uint(fProtoType, o(2), 2, uint64(binary.BigEndian.Uint16(b[2:])))
	t.Uint(fHWSize, o(4), 1, uint64(b[4]))
	t.Uint(fProtoSize, o(5), 1, uint64(b[5]))
	t.Uint(fOpcode, o(6), 2, uint64(binary.BigEndian.Uint16(b[6:])))
	if p.ok {
		sha, spa, tha, tpa := p.addrs()
		hw := func(mac, raw *dissect.Field, a int) {
			if p.isMAC() {
				t.Bytes(mac, o(a), 6, b[a:a+6])
			} else {
				t.Bytes(raw, o(a), p.hln(), b[a:a+p.hln()])
			}
		}
		pr := func(ip4, raw *dissect.Field, a int) {
			if p.isIPv4() {
				t.Bytes(ip4, o(a), 4, b[a:a+4])
			} else {
				t.Bytes(raw, o(a), p.pln(), b[a:a+p.pln()])
			}
		}
		if op := binary.BigEndian.Uint16(b[6:]); (op == OpRequest || op == OpReply) && p.gratuitous() &&
			!(op == OpRequest && allZero(b[tha:tha+p.hln()])) {
			t.Uint(fGratuit, -1, 0, 1)
		}
		hw(fSrcMAC, fSrcHW, sha)
		pr(fSrcIPv4, fSrcProto, spa)
		hw(fDstMAC, fDstHW, tha)
		pr(fDstIPv4, fDstProto, tpa)
	}
	f.TreeFindings(t, p.idx)
}
