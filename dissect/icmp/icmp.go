// Package icmp dissects ICMP (RFC 792, IP protocol 1) and ICMPv6 (RFC 4443
// and 4861, IP protocol 58) with Wireshark's field names: the message, its
// checksum (ICMPv6 with the IPv6 pseudo-header), and, for errors, the quoted
// packet, which the engine decodes as tshark does (dissect.DissectQuoted)
// without letting stateful dissectors learn from it.
package icmp

import (
	"encoding/binary"
	"net/netip"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/inet"
)

func init() {
	register("icmp", 1, false)
	register("icmpv6", 58, true)
}

// register registers ICMP (v6 false) or ICMPv6 under name for IP protocol
// proto; its echo table is charged to the budget under the same name.
func register(name string, proto uint8, v6 bool) {
	dissect.RegisterDissector(&dissect.Registration{
		Name:     name,
		IPProtos: []uint8{proto},
		New: func(e *dissect.Engine) dissect.Dissector {
			d := newState(v6)
			d.echoes.Register(e.Budget(), name)
			return d
		},
	})
}

// The checks `rdx check` counts.
var (
	checkCksum  = dissect.RegisterCheck("icmp.checksum", "icmp", "ICMP checksum (RFC 792: ones' complement over the message)")
	checkCksum6 = dissect.RegisterCheck("icmpv6.checksum", "icmpv6", "ICMPv6 checksum (RFC 4443 2.3: over the IPv6 pseudo-header and the message)")
)

// HeaderLen is the fixed ICMP/ICMPv6 header: type, code, checksum and the
// four octets whose meaning depends on the type.
const HeaderLen = 8

// Message is one ICMP or ICMPv6 message, the PDU this package adds.
type Message struct {
	v6       bool
	b        []byte // the message octets present
	off      int    // frame offset of b (< 0: not in the frame)
	idx      int
	ttl      uint8 // the carrying IP header's TTL / hop limit, for the Info column
	ckStatus uint8
	ckCalc   uint16
	dataTime int64 // icmp.data_time in ns (0: none)
	frameNS  int64
	// echo matching (echo.go)
	replyIn, requestIn uint64
	rtt                int64
	noResp             bool
}

// Proto implements dissect.PDU.
func (m *Message) Proto() *dissect.ProtoInfo {
	if m.v6 {
		return PICMPv6
	}
	return PICMP
}

// Type and Code give the message's type and code (0 when truncated).
func (m *Message) Type() uint8 {
	if len(m.b) < 1 {
		return 0
	}
	return m.b[0]
}

func (m *Message) Code() uint8 {
	if len(m.b) < 2 {
		return 0
	}
	return m.b[1]
}

// ChecksumStatus is dissect.StatusGood, dissect.StatusBad or dissect.StatusUnverified.
func (m *Message) ChecksumStatus() uint8 { return m.ckStatus }

// State is one engine's ICMP or ICMPv6 dissector.
type State struct {
	v6      bool
	pool    dissect.Pool[Message]
	echoes  dissect.Table[echoKey, echo]
	learned map[uint64]uint64 // request frame → reply frame, for the second pass
}

func newState(v6 bool) *State {
	d := &State{v6: v6, learned: map[uint64]uint64{}}
	d.initEchoes()
	return d
}

// Rewind implements dissect.Rewinder: the second pass matches again and
// remembers which frame answered which request.
func (d *State) Rewind() {
	d.initEchoes()
	d.pool.Reset()
}

// isError reports whether the message quotes the packet that caused it.
func (m *Message) isError() bool {
	t := m.Type()
	if m.v6 {
		return t >= 1 && t <= 4
	}
	switch t {
	case 3, 4, 5, 11, 12:
		return true
	}
	return false
}

// Dissect implements dissect.Dissector for one IP payload.
func (d *State) Dissect(f *dissect.Frame, data []byte, off int) {
	m, fresh := d.pool.Get(f)
	if fresh {
		d.echoes.Release()
	}
	*m = Message{v6: d.v6, b: data, off: off, ckStatus: dissect.StatusUnverified, frameNS: f.TimeNS}
	if n := &f.Net; n.HasIP && n.L3Off >= 0 && n.L3Off+9 < len(f.Data) && off >= 0 {
		if d.v6 {
			m.ttl = f.Data[n.L3Off+7]
		} else {
			m.ttl = f.Data[n.L3Off+8]
		}
	}
	m.idx = f.AddPDU(m)
	proto := m.Proto().Abbrev
	if len(data) < HeaderLen {
		f.AddFinding(m.idx, dissect.Error, dissect.GroupMalformed, nil, proto,
			"truncated "+proto+" header: "+strconv.Itoa(len(data))+" of 8 octets")
		return
	}
	d.checksum(f, m)
	d.match(f, m)
	if !d.v6 && (m.Type() == 0 || m.Type() == 8) {
		m.dataTime = echoTime(data[HeaderLen:], f.TimeNS)
	}
	if m.isError() && len(data) > HeaderLen {
		q := off
		if q >= 0 {
			q += HeaderLen
		}
		f.DissectQuoted(data[HeaderLen:], q)
	}
}

// checksum verifies the message's checksum when the whole message was
// captured (a truncated one is unverified, as in tshark).
func (d *State) checksum(f *dissect.Frame, m *Message) {
	if f.Net.Truncated || !f.Net.HasIP {
		return
	}
	var sum uint32
	if d.v6 {
		if !f.Net.Src.Is6() || !f.Net.Dst.Is6() {
			return
		}
		// RFC 4443 2.3 / RFC 8200 8.1: source, destination, upper-layer
		// length, next header 58. A routing header would change the
		// destination; rdx's engine does not walk extension headers.
		s, t := f.Net.Src.As16(), f.Net.Dst.As16()
		sum = inet.Sum(sum, s[:])
		sum = inet.Sum(sum, t[:])
		sum += uint32(len(m.b)>>16) + uint32(len(m.b)&0xffff) + 58
	}
	sum = inet.Sum(sum, m.b)
	c := inet.Fold(sum)
	wire := binary.BigEndian.Uint16(m.b[2:])
	ck, field, proto := checkCksum, fCksum, "icmp"
	if d.v6 {
		ck, field, proto = checkCksum6, f6Cksum, "icmpv6"
	}
	ok := c == 0xffff || c == 0 && wire == 0xffff
	f.Checked(ck, m.idx, ok)
	if ok {
		m.ckStatus = dissect.StatusGood
		return
	}
	m.ckStatus = dissect.StatusBad
	// the value the field should hold: the sum without the wire checksum
	m.ckCalc = ^inet.Fold(sum - uint32(wire))
	f.AddFinding(m.idx, dissect.Error, dissect.GroupChecksum, field, proto,
		"bad checksum 0x"+hex16(wire)+" (should be 0x"+hex16(m.ckCalc)+")")
}

func hex16(v uint16) string { return string(dissect.AppendHexDigits(nil, uint64(v), 4)) }

// echoTime reads the timestamp ping puts at the start of its echo data
// (struct timeval: seconds and microseconds, in the sender's byte order),
// accepted when it lies within a day of the frame's time, as Wireshark
// does; 0 when none.
func echoTime(b []byte, frameNS int64) int64 {
	if len(b) < 8 {
		return 0
	}
	fsec := frameNS / 1e9
	near := func(sec, usec uint32) bool {
		d := int64(sec) - fsec
		return d > -86400 && d < 86400 && usec < 1e6
	}
	sec, usec := binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])
	if !near(sec, usec) {
		sec, usec = binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
		if !near(sec, usec) {
			return 0
		}
	}
	return int64(sec)*1e9 + int64(usec)*1e3
}

// Summary implements dissect.PDU with tshark's Info text:
// "Echo (ping) request  id=0x1702, seq=1/256, ttl=64",
// "Destination unreachable (Port unreachable)",
// "Neighbor Solicitation for fe80::1".
func (m *Message) Summary(dst []byte) []byte {
	if len(m.b) < HeaderLen {
		if m.v6 {
			return append(dst, "ICMPv6 (truncated)"...)
		}
		return append(dst, "ICMP (truncated)"...)
	}
	if m.v6 {
		return m.summary6(dst)
	}
	t, c := m.Type(), m.Code()
	name, ok := typeNames[uint64(t)]
	if !ok {
		name = "Unknown ICMP (obsolete or malformed?)"
	}
	// tshark pads the type's name to 20 columns ("Echo (ping) reply    id=...")
	start := len(dst)
	dst = append(dst, name...)
	for len(dst)-start < 20 {
		dst = append(dst, ' ')
	}
	switch t {
	case 3, 5, 11, 12:
		dst = append(dst, " ("...)
		if cn := codeName(t, c); cn != "" {
			dst = append(dst, cn...)
		} else {
			dst = append(dst, "Unknown code: "...)
			dst = strconv.AppendUint(dst, uint64(c), 10)
		}
		dst = append(dst, ')')
	}
	switch t {
	case 0, 8, 13, 14, 15, 16, 17, 18:
		id, seq := binary.BigEndian.Uint16(m.b[4:]), binary.BigEndian.Uint16(m.b[6:])
		dst = append(dst, " id=0x"...)
		dst = dissect.AppendHexDigits(dst, uint64(id), 4)
		dst = append(dst, ", seq="...)
		dst = strconv.AppendUint(dst, uint64(seq), 10)
		dst = append(dst, '/')
		dst = strconv.AppendUint(dst, uint64(seq>>8|seq<<8), 10)
		dst = append(dst, ", ttl="...)
		dst = strconv.AppendUint(dst, uint64(m.ttl), 10)
		dst = m.appendMatch(dst)
	}
	return dst
}

func (m *Message) summary6(dst []byte) []byte {
	t, c := m.Type(), m.Code()
	if name, ok := type6Names[uint64(t)]; ok {
		dst = append(dst, name...)
	} else {
		dst = append(dst, "Unknown ICMPv6 type "...)
		dst = strconv.AppendUint(dst, uint64(t), 10)
	}
	switch t {
	case 1, 3, 4:
		dst = append(dst, " ("...)
		if cn := code6Name(t, c); cn != "" {
			dst = append(dst, cn...)
		} else if t == 1 {
			dst = append(dst, "Unknown"...)
		} else {
			dst = append(dst, "Unknown ("...)
			dst = strconv.AppendUint(dst, uint64(c), 10)
			dst = append(dst, ')')
		}
		dst = append(dst, ')')
	}
	switch t {
	case 128, 129:
		dst = append(dst, " id=0x"...)
		dst = dissect.AppendHexDigits(dst, uint64(binary.BigEndian.Uint16(m.b[4:])), 4)
		dst = append(dst, ", seq="...)
		dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint16(m.b[6:])), 10)
		dst = append(dst, ", hop limit="...)
		dst = strconv.AppendUint(dst, uint64(m.ttl), 10)
		dst = m.appendMatch(dst)
	case 135:
		if len(m.b) >= 24 {
			dst = append(dst, " for "...)
			dst = netip.AddrFrom16([16]byte(m.b[8:24])).AppendTo(dst)
			if ll := linkAddr(m.b[24:], 1); ll != nil {
				dst = append(dst, " from "...)
				dst = dissect.AppendHexBytes(dst, ll, ':')
			}
		}
	case 136:
		if len(m.b) >= 24 {
			dst = append(dst, ' ')
			dst = netip.AddrFrom16([16]byte(m.b[8:24])).AppendTo(dst)
			fl := m.b[4]
			if fl&0xe0 != 0 {
				dst = append(dst, " ("...)
				sep := false
				for i, s := range [...]string{"rtr", "sol", "ovr"} {
					if fl&(0x80>>i) != 0 {
						if sep {
							dst = append(dst, ", "...)
						}
						dst = append(dst, s...)
						sep = true
					}
				}
				dst = append(dst, ')')
			}
			if ll := linkAddr(m.b[24:], 2); ll != nil {
				dst = append(dst, " is at "...)
				dst = dissect.AppendHexBytes(dst, ll, ':')
			}
		}
	}
	return dst
}

// linkAddr finds the link-layer address option of type typ (1 source, 2
// target) among the ND options b.
func linkAddr(b []byte, typ uint8) []byte {
	for len(b) >= 2 {
		n := int(b[1]) * 8
		if n == 0 || n > len(b) {
			return nil
		}
		if b[0] == typ && n > 2 {
			return b[2:n]
		}
		b = b[n:]
	}
	return nil
}
