// Package rx dissects Rx, the RPC transport of AFS (UDP): the 28-octet
// header, all packet types, ACK bodies with their trailer, jumbograms, rxkad
// CHALLENGE/RESPONSE, DEBUG and VERSION; it reassembles calls and matches
// requests with replies. Services on top (AFS) plug in through the
// rx.service table (Services).
package rx

import "encoding/binary"

// The Rx header, all integers big-endian (draft-zeldovich-rx-spec-00 §2,
// Linux net/rxrpc/protocol.h struct rxrpc_wire_header):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-------------------------------------------------------------+
//	|R|                     Connection epoch                        |  0
//	+-+---------------------------------------------------------+---+
//	|                    Connection ID                          |Chn|  4
//	+-----------------------------------------------------------+---+
//	|                         Call number                           |  8
//	|                       Sequence number                         | 12
//	|                        Serial number                          | 16
//	+---------------+---------------+---------------+---------------+
//	|     Type      |     Flags     |  User status  | Security idx  | 20
//	+---------------+---------------+---------------+---------------+
//	|      Checksum / spare         |          Service ID           | 24
//	+-------------------------------+-------------------------------+
const (
	offEpoch    = 0
	offCID      = 4
	offCall     = 8
	offSeq      = 12
	offSerial   = 16
	offType     = 20
	offFlags    = 21
	offUser     = 22
	offSecIdx   = 23
	offSpare    = 24
	offService  = 26
	HeaderLen   = 28
	JumboLen    = 1412 // data octets in every jumbogram sub-packet but the last
	JumboHdrLen = 4    // flags, pad, checksum of the next sub-packet
)

// Packet types.
const (
	TypeData      = 1
	TypeAck       = 2
	TypeBusy      = 3
	TypeAbort     = 4
	TypeAckAll    = 5
	TypeChallenge = 6
	TypeResponse  = 7
	TypeDebug     = 8
	TypeParams    = 9
	TypeParams2   = 10
	TypeParams3   = 11
	TypeParams4   = 12
	TypeVersion   = 13
)

// Flag bits. 0x20 means SLOW_START_OK on ACK and JUMBO_PACKET on DATA.
const (
	FlagClientInitiated = 0x01
	FlagRequestAck      = 0x02
	FlagLastPacket      = 0x04
	FlagMorePackets     = 0x08
	FlagFreePacket      = 0x10
	FlagJumbo           = 0x20
	FlagSlowStartOK     = 0x20
)

// Header is a view of an Rx header. Check Valid before using the accessors.
type Header []byte

// Valid reports whether the header is complete.
func (h Header) Valid() bool { return len(h) >= HeaderLen }

func (h Header) Epoch() uint32      { return binary.BigEndian.Uint32(h[offEpoch:]) }
func (h Header) CID() uint32        { return binary.BigEndian.Uint32(h[offCID:]) }
func (h Header) Channel() uint32    { return h.CID() & 3 }
func (h Header) CallNumber() uint32 { return binary.BigEndian.Uint32(h[offCall:]) }
func (h Header) Seq() uint32        { return binary.BigEndian.Uint32(h[offSeq:]) }
func (h Header) Serial() uint32     { return binary.BigEndian.Uint32(h[offSerial:]) }
func (h Header) Type() uint8        { return h[offType] }
func (h Header) Flags() uint8       { return h[offFlags] }
func (h Header) UserStatus() uint8  { return h[offUser] }
func (h Header) SecurityIndex() uint8 {
	return h[offSecIdx]
}
func (h Header) Spare() uint16     { return binary.BigEndian.Uint16(h[offSpare:]) }
func (h Header) ServiceID() uint16 { return binary.BigEndian.Uint16(h[offService:]) }

// AnyAddress reports the epoch's high bit: the connection is identified by
// epoch and cid alone, and packets are accepted from any address.
func (h Header) AnyAddress() bool { return h[offEpoch]&0x80 != 0 }

// HeaderFields is the header's content, for building packets (rdx synth, tests).
type HeaderFields struct {
	Epoch, CID, CallNumber, Seq, Serial uint32
	Type, Flags, UserStatus, SecIdx     uint8
	Spare, ServiceID                    uint16
}

// Encode appends the 28-octet header to b.
func (f *HeaderFields) Encode(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, f.Epoch)
	b = binary.BigEndian.AppendUint32(b, f.CID)
	b = binary.BigEndian.AppendUint32(b, f.CallNumber)
	b = binary.BigEndian.AppendUint32(b, f.Seq)
	b = binary.BigEndian.AppendUint32(b, f.Serial)
	b = append(b, f.Type, f.Flags, f.UserStatus, f.SecIdx)
	b = binary.BigEndian.AppendUint16(b, f.Spare)
	return binary.BigEndian.AppendUint16(b, f.ServiceID)
}

// The ACK body (draft §4.3; Linux struct rxrpc_ackpacket), after the header:
//
//	bufferSpace(2) maxSkew(2) firstPacket(4) previousPacket(4) serial(4)
//	reason(1) nAcks(1) acks[nAcks] pad(3), then up to four optional words:
//	max MTU, interface MTU, receive window, max packets per jumbogram.
const (
	ackOffBufSpace = 0
	ackOffMaxSkew  = 2
	ackOffFirst    = 4
	ackOffPrev     = 8
	ackOffSerial   = 12
	ackOffReason   = 16
	ackOffNAcks    = 17
	ackOffAcks     = 18
	AckMinLen      = 18
)

// Ack is a view of an ACK body.
type Ack []byte

// Valid reports whether the fixed part is complete.
func (a Ack) Valid() bool { return len(a) >= AckMinLen }

func (a Ack) BufferSpace() uint16 { return binary.BigEndian.Uint16(a[ackOffBufSpace:]) }
func (a Ack) MaxSkew() uint16     { return binary.BigEndian.Uint16(a[ackOffMaxSkew:]) }
func (a Ack) FirstPacket() uint32 { return binary.BigEndian.Uint32(a[ackOffFirst:]) }
func (a Ack) PrevPacket() uint32  { return binary.BigEndian.Uint32(a[ackOffPrev:]) }
func (a Ack) Serial() uint32      { return binary.BigEndian.Uint32(a[ackOffSerial:]) }
func (a Ack) Reason() uint8       { return a[ackOffReason] }
func (a Ack) NAcks() int          { return int(a[ackOffNAcks]) }

// Acks returns the ack bytes present (possibly fewer than NAcks if truncated).
func (a Ack) Acks() []byte {
	end := ackOffAcks + a.NAcks()
	if end > len(a) {
		end = len(a)
	}
	return a[ackOffAcks:end]
}

// TrailerOffset is where the optional words start (after the acks and 3 pad
// octets), and TrailerWords how many complete words are present (0-4).
func (a Ack) TrailerOffset() int { return ackOffAcks + a.NAcks() + 3 }

func (a Ack) TrailerWords() int {
	n := (len(a) - a.TrailerOffset()) / 4
	if n < 0 {
		return 0
	}
	if n > 4 {
		n = 4
	}
	return n
}

// TrailerWord returns optional word i (0 max MTU, 1 interface MTU, 2 receive
// window, 3 max packets per jumbogram); call only for i < TrailerWords().
func (a Ack) TrailerWord(i int) uint32 {
	return binary.BigEndian.Uint32(a[a.TrailerOffset()+4*i:])
}
