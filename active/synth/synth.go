// Package synth builds captures of known conversations, clean or with one
// deliberate defect, so the dissectors' findings can be checked against
// traffic whose every octet is known.
package synth

import (
	"encoding/binary"
	"fmt"
	"github.com/rdx-project/rdx/internal/inet"
	"net/netip"
	"strings"

	"github.com/rdx-project/rdx/capture"
)

// Variant is a defect a scenario can inject; Findings are the errors and
// warnings the engine must raise for it with the default options, each
// "frame N: severity proto: message" (notes, such as RDP's analysis of a
// lossy exchange, are not listed). Alias is a second name (the generic "crc").
type Variant struct {
	Name     string
	Alias    string
	Desc     string
	Findings []string
}

// Options are the knobs a scenario may read; zero values mean the
// scenario's defaults. Scenario.Options says which ones it reads.
type Options struct {
	Corrupt  string
	Messages int     // messages (or calls, or segments) to send
	Size     int     // payload size of each
	Loss     float64 // probability that a segment is lost (and retransmitted); see LossSet
	LossSet  bool    // Loss was given (else the scenario's fixed default losses)
	Seed     int64   // seed of the loss draw: the same seed, the same capture
	// NoMarkers and NoCRC turn MPA markers and CRCs off (mpa).
	NoMarkers, NoCRC bool
}

// Option documents a flag a scenario reads.
type Option struct {
	Flag string
	Desc string
}

// Scenario is a named conversation.
type Scenario struct {
	Name      string
	Desc      string
	Available bool
	Options   []Option
	Variants  []Variant
	build     func(o Options) []capture.Packet
	// stream, when set, makes the frames one at a time into out instead
	// (a scenario whose size grows with --messages and --size: rds-tcp
	// writes 1 GB without holding it).
	stream func(o Options, out *sink)
}

// sink takes a scenario's frames as they are made, stamped 1 ms apart from
// baseTime, and keeps the first error of emit.
type sink struct {
	emit func(*capture.Packet) error
	n    int64
	err  error
}

func (s *sink) frame(f []byte) {
	if s.err != nil {
		return
	}
	p := capture.Packet{Data: f, TimeNS: baseTime + s.n*1_000_000, CapLen: len(f), WireLen: len(f), LinkType: capture.LinkEthernet}
	s.n++
	s.err = s.emit(&p)
}

// Build returns the frames of the scenario with default options; corrupt is
// "" or a variant name.
func (s *Scenario) Build(corrupt string) ([]capture.Packet, error) {
	return s.BuildWith(Options{Corrupt: corrupt})
}

// BuildWith returns the frames of the scenario built with o.
func (s *Scenario) BuildWith(o Options) ([]capture.Packet, error) {
	var pkts []capture.Packet
	_, err := s.Emit(o, func(p *capture.Packet) error {
		pkts = append(pkts, *p)
		return nil
	})
	return pkts, err
}

// Emit hands the frames of the scenario built with o to emit in order, as
// they are made when the scenario streams (the packet and its data are
// emit's to keep), and returns how many it made. An error in o is returned
// before any frame; emit's first error stops the scenario and is returned.
func (s *Scenario) Emit(o Options, emit func(*capture.Packet) error) (int64, error) {
	o, err := s.check(o)
	if err != nil {
		return 0, err
	}
	out := &sink{emit: emit}
	if s.stream != nil {
		s.stream(o, out)
		return out.n, out.err
	}
	pkts := s.build(o)
	for i := range pkts {
		if err := emit(&pkts[i]); err != nil {
			return int64(i + 1), err
		}
	}
	return int64(len(pkts)), nil
}

// Check reports what is wrong with o for the scenario (what Emit would
// return before any frame), nil if nothing.
func (s *Scenario) Check(o Options) error {
	_, err := s.check(o)
	return err
}

// check validates o for the scenario and resolves the variant's alias.
func (s *Scenario) check(o Options) (Options, error) {
	if !s.Available {
		return o, fmt.Errorf("scenario %s is not available yet", s.Name)
	}
	if o.Corrupt != "" {
		v := s.Variant(o.Corrupt)
		if v == nil {
			var names []string
			for _, v := range s.Variants {
				names = append(names, v.Name)
			}
			return o, fmt.Errorf("scenario %s has no variant %q (variants: %s)", s.Name, o.Corrupt, strings.Join(names, ", "))
		}
		o.Corrupt = v.Name
	}
	if o.Messages < 0 || o.Size < 0 || o.Loss < 0 || o.Loss >= 1 {
		return o, fmt.Errorf("scenario %s: --messages and --size must be positive, --loss in [0, 1)", s.Name)
	}
	return o, nil
}

// Variant returns the named variant (or the one with that alias) or nil.
func (s *Scenario) Variant(name string) *Variant {
	for i := range s.Variants {
		if s.Variants[i].Name == name || s.Variants[i].Alias != "" && s.Variants[i].Alias == name {
			return &s.Variants[i]
		}
	}
	return nil
}

// or returns v, or def when v is zero (an option left unset).
func or(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// packets stamps frames 1 ms apart from baseTime.
func packets(frames [][]byte) []capture.Packet {
	pkts := make([]capture.Packet, len(frames))
	for i, f := range frames {
		pkts[i] = capture.Packet{Data: f, TimeNS: baseTime + int64(i)*1_000_000, CapLen: len(f), WireLen: len(f),
			LinkType: capture.LinkEthernet}
	}
	return pkts
}

// Scenarios lists every scenario, available or planned.
func Scenarios() []*Scenario {
	return []*Scenario{
		rxScenario(),
		rdsScenario(),
		mpaScenario(),
		roceNFSScenario(),
		rdpScenario(),
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
	binary.BigEndian.PutUint16(ip[10:], ^inet.Fold(inet.Sum(0, ip)))
	b = append(b, ip...)
	udp := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint16(udp[0:], sport)
	binary.BigEndian.PutUint16(udp[2:], dport)
	binary.BigEndian.PutUint16(udp[4:], uint16(8+len(payload)))
	udp = append(udp, payload...)
	s := inet.Sum(inet.Sum(0, ip[12:20]), udp) + 17 + uint32(len(udp))
	c := ^inet.Fold(s)
	if c == 0 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(udp[6:], c)
	return append(b, udp...)
}
