package rx

import (
	"encoding/binary"
	"math/bits"
	"net/netip"
	"slices"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
)

// Ports Rx is looked for on by default: the AFS services (7000-7009) and the
// backup server (7021). Others need -d udp.port==N,rx.
var DefaultPorts = []dissect.PortRange{{Lo: 7000, Hi: 7009}, {Lo: 7021, Hi: 7021}}

// MaxCallData is how many bytes of each call direction rdx keeps for the
// service dissector, in order and held out of order together; the rest is
// counted, not kept (bounded memory for multi-gigabyte volume dumps).
const MaxCallData = 64 << 10

// maxCalls and maxConns bound the call and connection tables; beyond them the
// least recently active entry is dropped, with a finding. callOverhead and
// connOverhead are what one entry costs beside its data (struct, map slot),
// charged to the engine's memory budget with the data; workOverhead is what
// a direction's reassembly state (dirWork) adds while the call holds one
// (TestOverheads checks them against the structs).
const (
	maxCalls     = 1 << 14
	maxConns     = 1 << 13
	callOverhead = 288  // the 240-octet entry, its two 16-octet index slots (at most half full once presized), some spare
	workOverhead = 416  // the 408-octet dirWork's size class
	connOverhead = 6400 // mostly the two 128-serial rings
)

func init() {
	dissect.RegisterDissector(&dissect.Registration{
		Name:     "rx",
		UDPPorts: DefaultPorts,
		New: func(e *dissect.Engine) dissect.Dissector {
			d := newDissector()
			d.calls.Register(e.Budget(), "rx")
			d.conns.Register(e.Budget(), "rx")
			return d
		},
	})
}

// Packet is one Rx packet (a datagram, or one sub-packet of a jumbogram).
type Packet struct {
	hdr   Header
	off   int    // offset of the full header in the frame
	body  []byte // payload of this (sub-)packet
	boff  int    // offset of body in the frame
	seq   uint32 // derived for jumbogram sub-packets
	ser   uint32
	flags uint8
	sub   int // sub-packet index in a jumbogram (0 = first or not a jumbogram)
	nsub  int // number of sub-packets in the jumbogram (0 = not a jumbogram)
	jhOff int // offset of the jumbo header that introduced this sub-packet (sub > 0)
	jh    [JumboHdrLen]byte
	idx   int // PDU index in the frame
	// detached: the datagram was reassembled from IP fragments, so offsets
	// are relative to it, not to the frame
	detached bool

	// analysis results
	retrans   bool
	retransOf uint64 // frame of the first transmission, when still remembered
	rtt       int64
	rttFrame  uint64
	debugType uint32 // for DEBUG replies: the request's type (0 unknown)
	callPart  uint32 // for DATA not completing a call: the call's frame count so far
	abortName string // for ABORT: the code's name, "" unknown
}

// header is the full header of a packet Dissect found one in, with its
// length known where it is inlined: the accessors then check no bounds.
func (p *Packet) header() Header { return p.hdr[:HeaderLen:HeaderLen] }

// Proto implements dissect.PDU.
func (p *Packet) Proto() *dissect.ProtoInfo { return PRx }

// State is the per-engine Rx state.
type State struct {
	pool dissect.Pool[Packet]

	calls dissect.Table[callKey, call]
	conns dissect.Table[connKey, conn]
	// learned in a first pass: request-completing frame -> reply frame
	learned flows.Learned
	pass2   bool

	// directions' reassembly state for reuse, and that given back since
	// the frame began (takeWork, releaseWork)
	workFree, workLimbo []*dirWork

	callScratch Call
	abortQ      AbortCode // the rx.abort_code context

	connSeq   uint64
	connCache [connCacheSize]*dissect.Entry[connKey, conn] // in sets of connWays, by connSet
	callsFull bool                                         // the call table reached maxCalls (said once per pass)
	connsFull bool

	srtTab flows.SRT[srtKey] // per call type, for -z rx,srt
}

func newDissector() *State {
	d := &State{}
	d.initTables()
	return d
}

// Rewind implements dissect.Rewinder: the second pass starts with empty call
// state but remembers which frame answered which request.
func (d *State) Rewind() {
	d.initTables()
	d.callsFull, d.connsFull = false, false
	d.connCache = [connCacheSize]*dissect.Entry[connKey, conn]{}
	d.srtTab.Reset() // the second pass counts again
	d.pass2 = true
	d.pool.Reset()
}

func (d *State) newPacket(f *dissect.Frame) *Packet {
	p, fresh := d.pool.Get(f)
	if fresh {
		d.calls.Release()
		d.conns.Release()
		if len(d.workLimbo) > 0 {
			d.releaseWork()
		}
	}
	// cleared, then set field by field: a composite literal would be built
	// on the stack and copied
	*p = Packet{}
	return p
}

// Dissect implements dissect.Dissector for one UDP payload.
func (d *State) Dissect(f *dissect.Frame, data []byte, off int) {
	p := d.newPacket(f)
	detached := off < 0
	if detached {
		off = 0
	}
	p.off, p.detached = off, detached
	if len(data) < HeaderLen {
		p.hdr = Header(data)
		p.idx = f.AddPDU(p)
		f.AddFinding(p.idx, dissect.Error, dissect.GroupMalformed, nil, "rx",
			"truncated Rx header: "+strconv.Itoa(len(data))+" of 28 octets")
		return
	}
	h := Header(data[:HeaderLen])
	p.hdr = h
	p.seq, p.ser, p.flags = h.Seq(), h.Serial(), h.Flags()
	p.body, p.boff = data[HeaderLen:], off+HeaderLen
	if c := f.Conversations(); c != nil {
		// one Rx connection: its epoch and ID (the low two bits are the channel)
		c.Between(flows.Rx, flows.Endpoint{Addr: netip.AddrPortFrom(f.Net.Src, f.Net.SrcPort)},
			flows.Endpoint{Addr: netip.AddrPortFrom(f.Net.Dst, f.Net.DstPort)}, uint64(h.Epoch())<<32|uint64(h.CID()&^3),
			f.WireLen, f.TimeNS, f.Num)
	}
	if h.Type() == TypeData && h.Flags()&FlagJumbo != 0 {
		d.splitJumbo(f, p, data, off, detached)
		return
	}
	p.idx = f.AddPDU(p)
	if h.Type() == TypeAbort && len(p.body) >= 4 {
		p.abortName = d.errorName(f, binary.BigEndian.Uint32(p.body))
	}
	d.analyze(f, p)
}

// splitJumbo cuts a jumbogram into its sub-packets: 1412 data octets and a
// 4-octet jumbo header (flags, pad, checksum of the next one) for each but the
// last; seq and serial count up from the full header's.
func (d *State) splitJumbo(f *dissect.Frame, first *Packet, data []byte, off int, detached bool) {
	rest := data[HeaderLen:]
	n := JumboCount(len(rest))
	p := first
	pos := HeaderLen
	for k := 0; k < n; k++ {
		if k > 0 {
			jh := data[pos-JumboHdrLen : pos]
			q := d.newPacket(f)
			*q = Packet{hdr: first.hdr, off: off, seq: first.seq + uint32(k), ser: first.ser + uint32(k),
				flags: jh[0], sub: k, jhOff: off + pos - JumboHdrLen, jh: [JumboHdrLen]byte(jh), detached: detached}
			p = q
		}
		p.nsub = n
		end := pos + JumboLen
		if end > len(data) || k == n-1 {
			end = len(data)
		}
		p.body, p.boff = data[pos:end], off+pos
		p.idx = f.AddPDU(p)
		if k < n-1 && p.flags&FlagJumbo == 0 {
			f.AddFinding(p.idx, dissect.Error, dissect.GroupMalformed, fFlagJumbo, "rx",
				"jumbogram sub-packet "+strconv.Itoa(k)+" lacks the JUMBO flag but more data follows")
		}
		if k == n-1 && len(p.body) < JumboLen && p.flags&FlagJumbo != 0 && n > 1 {
			f.AddFinding(p.idx, dissect.Warn, dissect.GroupMalformed, fFlagJumbo, "rx",
				"last jumbogram sub-packet still carries the JUMBO flag")
		}
		if n == 1 {
			f.AddFinding(p.idx, dissect.Error, dissect.GroupMalformed, fFlagJumbo, "rx",
				"JUMBO flag set but only "+strconv.Itoa(len(rest))+" data octets (a jumbogram needs more than 1416)")
		}
		d.analyze(f, p)
		pos = end + JumboHdrLen
	}
}

// Summary implements dissect.PDU.
func (p *Packet) Summary(dst []byte) []byte {
	h := p.hdr
	if !h.Valid() {
		return append(dst, "RX truncated header"...)
	}
	if p.sub > 0 {
		return dst // the first sub-packet speaks for the jumbogram
	}
	t := h.Type()
	if t == TypeData && p.nsub <= 1 && !p.retrans && p.retransOf == 0 {
		if call := uint64(h.CallNumber()); call < 1e8 && p.seq < 1e8 && p.ser < 1e8 && h.Channel() == 0 {
			return appendDataLine(dst, call, uint64(p.seq), uint64(p.ser), p.flags)
		}
	}
	if t == TypeData { // the most common: its name with " call " as one constant, not typeSummary's copy
		if p.nsub > 1 {
			dst = append(dst, "DATA jumbogram "...)
			dst = strconv.AppendInt(dst, int64(p.nsub), 10)
			dst = appendCall(append(dst, " packets"...), h)
		} else {
			dst = appendCallNum(append(dst, "DATA call "...), h)
		}
	} else if int(t) < len(typeSummary) && t != 0 {
		dst = append(dst, typeSummary[t]...)
	} else {
		dst = append(dst, "TYPE"...)
		dst = strconv.AppendUint(dst, uint64(t), 10)
	}
	switch t {
	case TypeData:
		dst = append(dst, " seq "...)
		dst = dissect.AppendUint(dst, uint64(p.seq))
		if p.nsub > 1 {
			dst = append(dst, '-')
			dst = strconv.AppendUint(dst, uint64(p.seq)+uint64(p.nsub)-1, 10)
		}
		dst = append(dst, " ser "...)
		dst = dissect.AppendUint(dst, uint64(p.ser))
		if p.nsub > 1 {
			dst = append(dst, '-')
			dst = strconv.AppendUint(dst, uint64(p.ser)+uint64(p.nsub)-1, 10)
		}
		dst = appendFlags(dst, p.flags, t)
		if p.retransOf != 0 {
			dst = append(dst, " [retransmission of frame "...)
			dst = dissect.AppendUint(dst, p.retransOf)
			dst = append(dst, ']')
		} else if p.retrans {
			dst = append(dst, " [retransmission]"...)
		}
	case TypeAck:
		a := Ack(p.body)
		if !a.Valid() {
			return append(dst, " (truncated)"...)
		}
		dst = append(dst, ' ')
		if r := a.Reason(); int(r) < len(reasonSummary) && r != 0 {
			dst = append(dst, reasonSummary[r]...)
		} else {
			dst = append(dst, "reason "...)
			dst = strconv.AppendUint(dst, uint64(r), 10)
		}
		dst = appendCall(dst, h)
		dst = append(dst, " first "...)
		dst = strconv.AppendUint(dst, uint64(a.FirstPacket()), 10)
		dst = append(dst, " serial "...)
		dst = strconv.AppendUint(dst, uint64(a.Serial()), 10)
		acks := a.Acks()
		if len(acks) > 0 {
			dst = append(dst, " acked "...)
			dst = appendRanges(dst, a.FirstPacket(), acks, 1)
			if hasNack(acks) {
				dst = append(dst, " nacked "...)
				dst = appendRanges(dst, a.FirstPacket(), acks, 0)
			}
		}
		if p.rttFrame != 0 {
			dst = append(dst, " rtt "...)
			dst = dissect.AppendRelTime(dst, p.rtt)
		}
		dst = appendFlags(dst, h.Flags(), t)
	case TypeAbort:
		dst = appendCall(dst, h)
		if len(p.body) >= 4 {
			code := binary.BigEndian.Uint32(p.body)
			dst = append(dst, " code "...)
			dst = strconv.AppendInt(dst, int64(int32(code)), 10)
			if p.abortName != "" {
				dst = append(dst, " ("...)
				dst = append(dst, p.abortName...)
				dst = append(dst, ')')
			}
		}
	case TypeBusy, TypeAckAll:
		dst = appendCall(dst, h)
	case TypeChallenge:
		if len(p.body) >= 12 {
			dst = append(dst, " v"...)
			dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint32(p.body)), 10)
			dst = append(dst, " nonce 0x"...)
			dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint32(p.body[4:])), 16)
			dst = append(dst, " min level "...)
			dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint32(p.body[8:])), 10)
		}
	case TypeResponse:
		if len(p.body) >= respOffTicket {
			dst = append(dst, " v"...)
			dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint32(p.body)), 10)
			dst = append(dst, " kvno "...)
			dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint32(p.body[respOffKvno:])), 10)
			dst = append(dst, " ticket "...)
			dst = strconv.AppendUint(dst, uint64(binary.BigEndian.Uint32(p.body[respOffTicketLen:])), 10)
			dst = append(dst, " bytes"...)
		}
	case TypeDebug:
		dst = appendDebugSummary(dst, p)
	case TypeVersion:
		if h.Flags()&FlagClientInitiated != 0 {
			dst = append(dst, " request"...)
		} else if keepalive(p.body) {
			dst = append(dst, " keepalive"...)
		} else {
			dst = append(dst, " reply \""...)
			dst = append(dst, versionString(p.body)...)
			dst = append(dst, '"')
		}
	}
	return dst
}

// dataRoom is the room appendDataLine makes: its stores start below 64
// (offsets masked to 63 so that the compiler drops their bounds checks)
// and write 8 or 24 octets.
const dataRoom = 128

// appendDataLine appends the summary of a plain DATA packet on channel 0
// (not a jumbogram, not a retransmission; numbers below 1e8), the Rx line
// nearly every frame prints, as the general path writes it: into room made
// once, each part by 8-octet stores, not an append (a growth check and a
// copy) and a call per part. At most 10+8+5+8+5+8 octets precede the flags.
func appendDataLine(dst []byte, call, seq, ser uint64, fl uint8) []byte {
	l := len(dst)
	dst = slices.Grow(dst, dataRoom)
	b := (*[dataRoom]byte)(dst[l : l+dataRoom])
	xc, nc := digitWord(call)
	xq, nq := '0'+seq, 1 // a call's sequence number is mostly one digit
	if seq >= 10 {
		xq, nq = digitWord(seq)
	}
	xs, ns := digitWord(ser)
	binary.LittleEndian.PutUint64(b[0:], dataWord)
	binary.LittleEndian.PutUint64(b[8:], callWord)
	o := 10
	binary.LittleEndian.PutUint64(b[o&63:], xc)
	o += nc
	binary.LittleEndian.PutUint64(b[o&63:], seqWord)
	o += 5
	binary.LittleEndian.PutUint64(b[o&63:], xq)
	o += nq
	binary.LittleEndian.PutUint64(b[o&63:], serWord)
	o += 5
	binary.LittleEndian.PutUint64(b[o&63:], xs)
	o += ns
	w := &flagWords[fl]
	if n := int(w[3]); n <= 24 {
		binary.LittleEndian.PutUint64(b[o&63:], w[0])
		binary.LittleEndian.PutUint64(b[(o+8)&127:], w[1])
		binary.LittleEndian.PutUint64(b[(o+16)&127:], w[2])
		return dst[:l+o+n]
	}
	return append(dst[:l+o], flagText[fl]...)
}

// digitWord is v (< 1e8) as its decimal digits in the low octets of a
// word (as a little-endian store writes them) and their count: digits8
// without the leading zeros, counted by the trailing zero bits of the
// word's difference from "00000000" (the top octet kept: 0 has one digit).
func digitWord(v uint64) (uint64, int) {
	x := v/10000 | v%10000<<32
	q := x * 10486 >> 20 & 0x0000007f0000007f // lane/100
	x = q | (x-q*100)<<16
	q = x * 103 >> 10 & 0x000f000f000f000f // lane/10
	x = q | (x-q*10)<<8
	z := bits.TrailingZeros64(x|1<<56) &^ 7
	return (x | 0x3030303030303030) >> z, 8 - z/8
}

// appendDataLine's constant parts as little-endian words: "DATA", " call "
// (two octets past it written over), " seq ", " ser ".
const (
	dataWord = 'D' | 'A'<<8 | 'T'<<16 | 'A'<<24 | ' '<<32 | 'c'<<40 | 'a'<<48 | 'l'<<56
	callWord = 'l' | ' '<<8
	seqWord  = ' ' | 's'<<8 | 'e'<<16 | 'q'<<24 | ' '<<32
	serWord  = ' ' | 's'<<8 | 'e'<<16 | 'r'<<24 | ' '<<32
)

func appendCall(dst []byte, h Header) []byte {
	return appendCallNum(append(dst, " call "...), h)
}

// appendCallNum appends the call number and " ch N" for a channel but 0.
func appendCallNum(dst []byte, h Header) []byte {
	dst = dissect.AppendUint(dst, uint64(h.CallNumber()))
	if ch := h.Channel(); ch != 0 {
		dst = append(dst, " ch "...)
		dst = strconv.AppendUint(dst, uint64(ch), 10)
	}
	return dst
}

var flagNames = [...]string{"CI", "REQ-ACK", "LAST", "MORE", "FREE", "JUMBO", "0x40", "0x80"}

// appendFlags appends " <CI,LAST>" for flags fl of a packet of type typ
// (nothing for none): a table lookup, as the summary line prints flags on
// nearly every packet.
func appendFlags(dst []byte, fl uint8, typ uint8) []byte {
	if typ == TypeAck {
		return append(dst, ackFlagText[fl]...)
	}
	return append(dst, flagText[fl]...)
}

// flagText and ackFlagText hold every flag octet's text, for an ACK (bit 5
// is SLOW-START there) and for other types; built by init, read only.
var flagText, ackFlagText [256]string

// flagWords holds flagText as three little-endian words and its length
// (appendDataLine's stores; texts longer than 24 are not used from it).
// Built by init, read only.
var flagWords [256][4]uint64

func init() {
	var scratch [64]byte // the longest text is 49 octets: one allocation per text, not four
	for fl := 1; fl < 256; fl++ {
		flagText[fl] = string(formatFlags(scratch[:0], uint8(fl), TypeData))
		ackFlagText[fl] = string(formatFlags(scratch[:0], uint8(fl), TypeAck))
		var t [24]byte
		copy(t[:], flagText[fl])
		for i := range 3 {
			flagWords[fl][i] = binary.LittleEndian.Uint64(t[8*i:])
		}
		flagWords[fl][3] = uint64(len(flagText[fl]))
	}
}

func formatFlags(dst []byte, fl uint8, typ uint8) []byte {
	dst = append(dst, " <"...)
	first := true
	for i := 0; i < 8; i++ {
		if fl&(1<<i) == 0 {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		if i == 5 && typ == TypeAck {
			dst = append(dst, "SLOW-START"...)
			continue
		}
		dst = append(dst, flagNames[i]...)
	}
	return append(dst, '>')
}

func hasNack(acks []byte) bool {
	for _, a := range acks {
		if a == 0 {
			return true
		}
	}
	return false
}

// appendRanges appends the sequence ranges whose ack byte equals want,
// as "1-5,7"; "none" if there are none.
func appendRanges(dst []byte, first uint32, acks []byte, want byte) []byte {
	start := len(dst)
	for i := 0; i < len(acks); {
		if (acks[i] != 0) != (want != 0) {
			i++
			continue
		}
		j := i
		for j+1 < len(acks) && (acks[j+1] != 0) == (want != 0) {
			j++
		}
		if len(dst) > start {
			dst = append(dst, ',')
		}
		dst = strconv.AppendUint(dst, uint64(first)+uint64(i), 10)
		if j > i {
			dst = append(dst, '-')
			dst = strconv.AppendUint(dst, uint64(first)+uint64(j), 10)
		}
		i = j + 1
	}
	if len(dst) == start {
		dst = append(dst, "none"...)
	}
	return dst
}

func versionString(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}
