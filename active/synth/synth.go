// Package synth builds captures of known conversations, clean or with one
// deliberate defect, so the dissectors' findings can be checked against
// traffic whose every octet is known.
package synth

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"

	"github.com/rdx-project/rdx/capture"
)

// Variant is a defect a scenario can inject; Findings are the findings the
// engine must raise for it, each "frame N: severity proto: message".
type Variant struct {
	Name     string
	Desc     string
	Findings []string
}

// Scenario is a named conversation.
type Scenario struct {
	Name      string
	Desc      string
	Available bool
	Variants  []Variant
	build     func(corrupt string) []capture.Packet
}

// Build returns the frames of the scenario; corrupt is "" or a variant name.
func (s *Scenario) Build(corrupt string) ([]capture.Packet, error) {
	if !s.Available {
		return nil, fmt.Errorf("scenario %s is not available yet", s.Name)
	}
	if corrupt != "" && s.Variant(corrupt) == nil {
		var names []string
		for _, v := range s.Variants {
			names = append(names, v.Name)
		}
		return nil, fmt.Errorf("scenario %s has no variant %q (variants: %s)", s.Name, corrupt, strings.Join(names, ", "))
	}
	return s.build(corrupt), nil
}

// Variant returns the named variant or nil.
func (s *Scenario) Variant(name string) *Variant {
	for i := range s.Variants {
		if s.Variants[i].Name == name {
			return &s.Variants[i]
		}
	}
	return nil
}

// Scenarios lists every scenario, available or planned.
func Scenarios() []*Scenario {
	return []*Scenario{
		rxScenario(),
		{Name: "rds-tcp", Desc: "RDS over TCP: not yet available"},
		{Name: "mpa", Desc: "iWARP MPA/DDP/RDMAP over TCP: not yet available"},
		{Name: "rocev2-nfs", Desc: "NFS over RPC-over-RDMA on RoCEv2: not yet available"},
		{Name: "rdp", Desc: "RDP: not yet available"},
	}
}

// Find returns the named scenario.
func Find(name string) (*Scenario, error) {
	var names []string
	for _, s := range Scenarios() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return nil, fmt.Errorf("no scenario %q (scenarios: %s)", name, strings.Join(names, ", "))
}

// Documentation addresses (RFC 5737) and locally administered MACs.
var (
	clientIP  = netip.MustParseAddr("198.51.100.1")
	serverIP  = netip.MustParseAddr("198.51.100.2")
	clientMAC = []byte{0x02, 0, 0, 0, 0, 1}
	serverMAC = []byte{0x02, 0, 0, 0, 0, 2}
)

// baseTime is the first frame's time: fixed, so the output is reproducible.
const baseTime = int64(1_767_225_600) * 1e9 // 2026-01-01T00:00:00Z

// udpFrame builds Ethernet/IPv4/UDP with correct checksums.
func udpFrame(fromClient bool, sport, dport uint16, id uint16, payload []byte) []byte {
	src, dst, smac, dmac := clientIP, serverIP, clientMAC, serverMAC
	if !fromClient {
		src, dst, smac, dmac = serverIP, clientIP, serverMAC, clientMAC
	}
	b := make([]byte, 0, 14+20+8+len(payload))
	b = append(b, dmac...)
	b = append(b, smac...)
	b = append(b, 0x08, 0x00)
	ip := make([]byte, 20)
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(20+8+len(payload)))
	binary.BigEndian.PutUint16(ip[4:], id)
	ip[6] = 0x40 // DF
	ip[8], ip[9] = 64, 17
	s4, d4 := src.As4(), dst.As4()
	copy(ip[12:], s4[:])
	copy(ip[16:], d4[:])
	binary.BigEndian.PutUint16(ip[10:], ^fold(sum(0, ip)))
	b = append(b, ip...)
	udp := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint16(udp[0:], sport)
	binary.BigEndian.PutUint16(udp[2:], dport)
	binary.BigEndian.PutUint16(udp[4:], uint16(8+len(payload)))
	udp = append(udp, payload...)
	s := sum(sum(0, ip[12:20]), udp) + 17 + uint32(len(udp))
	c := ^fold(s)
	if c == 0 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(udp[6:], c)
	return append(b, udp...)
}

func sum(s uint32, b []byte) uint32 {
	for len(b) >= 2 {
		s += uint32(b[0])<<8 | uint32(b[1])
		b = b[2:]
	}
	if len(b) == 1 {
		s += uint32(b[0]) << 8
	}
	return s
}

func fold(s uint32) uint16 {
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return uint16(s)
}
