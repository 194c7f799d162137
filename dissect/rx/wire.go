package rx

import "encoding/binary"

// Encoders shared by the dissector's tests, rdx synth and the live Rx stack
// (active/rx), so the wire formats live in one place.

// ACK reasons (rx.h RX_ACK_*).
const (
	AckRequested     = 1
	AckDuplicate     = 2
	AckOutOfSequence = 3
	AckExceedsWindow = 4
	AckNoSpace       = 5
	AckPing          = 6
	AckPingResponse  = 7
	AckDelay         = 8
	AckIdle          = 9
)

// Ack octets: the state of packet FirstPacket+i.
const (
	AckTypeNack = 0
	AckTypeAck  = 1
)

// AckFields is an ACK body's content. Trailer adds the four optional words
// OpenAFS sends (max MTU, interface MTU, receive window, max packets per
// jumbogram).
type AckFields struct {
	BufferSpace, MaxSkew  uint16
	First, Prev, Serial   uint32
	Reason                uint8
	Acks                  []byte // at most 255
	Trailer               bool
	MaxMTU, IfMTU, Window uint32
	MaxJumbo              uint32
}

// Encode appends the ACK body to b.
func (a *AckFields) Encode(b []byte) []byte {
	acks := a.Acks
	if len(acks) > 255 {
		acks = acks[:255]
	}
	b = binary.BigEndian.AppendUint16(b, a.BufferSpace)
	b = binary.BigEndian.AppendUint16(b, a.MaxSkew)
	b = binary.BigEndian.AppendUint32(b, a.First)
	b = binary.BigEndian.AppendUint32(b, a.Prev)
	b = binary.BigEndian.AppendUint32(b, a.Serial)
	b = append(b, a.Reason, byte(len(acks)))
	b = append(b, acks...)
	b = append(b, 0, 0, 0)
	if a.Trailer {
		for _, w := range []uint32{a.MaxMTU, a.IfMTU, a.Window, a.MaxJumbo} {
			b = binary.BigEndian.AppendUint32(b, w)
		}
	}
	return b
}

// JumboCount is how many sub-packets a jumbogram with n octets after its
// header holds: every sub-packet but the last carries exactly JumboLen data
// octets and is followed by a JumboHdrLen-octet jumbo header.
func JumboCount(n int) int {
	k := 1
	for ; n > JumboLen+JumboHdrLen; n -= JumboLen + JumboHdrLen {
		k++
	}
	return k
}

// AppendJumboHeader appends the 4-octet header that introduces the next
// sub-packet of a jumbogram: its flags, a pad octet, its checksum/spare.
func AppendJumboHeader(b []byte, flags uint8, spare uint16) []byte {
	b = append(b, flags, 0)
	return binary.BigEndian.AppendUint16(b, spare)
}

// The DEBUG packet family (rx.h): a request body is struct rx_debugIn (type,
// index); the reply's layout depends on the type.
const (
	DebugGetStats   = 1          // struct rx_debugStats
	DebugGetConn    = 2          // struct rx_debugConn, the index-th "interesting" connection
	DebugGetAllConn = 3          // struct rx_debugConn, the index-th connection
	DebugRxStats    = 4          // struct rx_statistics, all int32
	DebugGetPeer    = 5          // struct rx_debugPeer
	DebugBadType    = 0xFFFFFFF8 // RX_DEBUGI_BADTYPE (-8): the reply to an unknown type

	DebugVersion    = 'S'    // RX_DEBUGI_VERSION: GETPEER ('Q') and everything before
	DebugStatsLen   = 56     // sizeof(struct rx_debugStats)
	DebugConnLen    = 176    // sizeof(struct rx_debugConn)
	DebugPeerLen    = 132    // sizeof(struct rx_debugPeer)
	DebugRxStatsLen = 4 * 71 // sizeof(struct rx_statistics) in OpenAFS 1.8 (71 int32s)
	VersionLen      = 65     // a VERSION reply's body: the NUL-padded version string
)

// DebugEnd is the cid (GETCONN) or host (GETPEER) that ends a listing.
const DebugEnd = 0xFFFFFFFF
