package rx

import "github.com/rdx-project/rdx/dissect"

// Type names as Wireshark shows them (9-12 are the never-used PARAMS types).
var typeNames = map[uint64]string{1: "data", 2: "ack", 3: "busy", 4: "abort", 5: "ackall", 6: "challenge",
	7: "response", 8: "debug", 9: "params", 10: "params", 11: "params", 12: "params", 13: "version"}

// upper-case names for summaries
var typeSummary = [...]string{"TYPE0", "DATA", "ACK", "BUSY", "ABORT", "ACKALL", "CHALLENGE", "RESPONSE",
	"DEBUG", "PARAMS", "PARAMS", "PARAMS", "PARAMS", "VERSION"}

// ACK reasons; 9 is IDLE in OpenAFS and Linux (the draft calls it OTHER).
var reasonNames = map[uint64]string{1: "Ack Requested", 2: "Duplicate Packet", 3: "Out Of Sequence",
	4: "Exceeds Window", 5: "No Space", 6: "Ping", 7: "Ping Response", 8: "Delay", 9: "Idle"}

var reasonSummary = [...]string{"", "REQUESTED", "DUPLICATE", "OUT_OF_SEQUENCE", "EXCEEDS_WINDOW",
	"NOSPACE", "PING", "PING_RESPONSE", "DELAY", "IDLE"}

var ackTypeNames = map[uint64]string{0: "NACK", 1: "ACK"}

// Security indexes (OpenAFS rx_securityIndex).
var secNames = map[uint64]string{0: "rxnull", 1: "rxvab", 2: "rxkad", 3: "rxkad (always encrypt)", 4: "rxgk", 5: "rxk5"}

var debugTypeNames = map[uint64]string{1: "GETSTATS", 2: "GETCONN", 3: "GETALLCONN", 4: "RXSTATS", 5: "GETPEER",
	0xFFFFFFF8: "BADTYPE"}

var (
	PRx = dissect.RegisterProto("rx", "RX Protocol", "")

	fEpoch     = dissect.Register(&dissect.Field{Abbrev: "rx.epoch", Name: "Epoch", Type: dissect.TAbsTime, Desc: "connection epoch (client start time); shown as a time, as Wireshark does"})
	fEpochRaw  = dissect.Register(&dissect.Field{Abbrev: "rx.epoch_raw", Name: "Epoch (raw)", Type: dissect.TUint32, Base: dissect.BaseHex, Desc: "the epoch as a number"})
	fEpochAny  = dissect.Register(&dissect.Field{Abbrev: "rx.epoch.any_address", Name: "Any address (connection is epoch+cid only)", Type: dissect.TBool, Mask: 0x80000000, Bits: 32})
	fCID       = dissect.Register(&dissect.Field{Abbrev: "rx.cid", Name: "CID", Type: dissect.TUint32})
	fChannel   = dissect.Register(&dissect.Field{Abbrev: "rx.channel", Name: "Channel", Type: dissect.TUint32, Mask: 3, Bits: 32})
	fConnID    = dissect.Register(&dissect.Field{Abbrev: "rx.connid", Name: "Connection ID", Type: dissect.TUint32, Base: dissect.BaseHex, Desc: "cid without the channel bits"})
	fCall      = dissect.Register(&dissect.Field{Abbrev: "rx.callnumber", Name: "Call Number", Type: dissect.TUint32})
	fSeq       = dissect.Register(&dissect.Field{Abbrev: "rx.seq", Name: "Sequence Number", Type: dissect.TUint32})
	fSerial    = dissect.Register(&dissect.Field{Abbrev: "rx.serial", Name: "Serial", Type: dissect.TUint32})
	fType      = dissect.Register(&dissect.Field{Abbrev: "rx.type", Name: "Type", Type: dissect.TUint8, Names: typeNames})
	fFlags     = dissect.Register(&dissect.Field{Abbrev: "rx.flags", Name: "Flags", Type: dissect.TUint8, Base: dissect.BaseHex})
	fFlagCI    = dissect.Register(&dissect.Field{Abbrev: "rx.flags.client_init", Name: "Client Initiated", Type: dissect.TBool, Mask: FlagClientInitiated, Bits: 8})
	fFlagRA    = dissect.Register(&dissect.Field{Abbrev: "rx.flags.request_ack", Name: "Request Ack", Type: dissect.TBool, Mask: FlagRequestAck, Bits: 8})
	fFlagLast  = dissect.Register(&dissect.Field{Abbrev: "rx.flags.last_packet", Name: "Last Packet", Type: dissect.TBool, Mask: FlagLastPacket, Bits: 8})
	fFlagMore  = dissect.Register(&dissect.Field{Abbrev: "rx.flags.more_packets", Name: "More Packets", Type: dissect.TBool, Mask: FlagMorePackets, Bits: 8})
	fFlagFree  = dissect.Register(&dissect.Field{Abbrev: "rx.flags.free_packet", Name: "Free Packet", Type: dissect.TBool, Mask: FlagFreePacket, Bits: 8})
	fFlagJumbo = dissect.Register(&dissect.Field{Abbrev: "rx.flags.jumbo_packet", Name: "Jumbo Packet", Type: dissect.TBool, Mask: FlagJumbo, Bits: 8,
		Desc: "bit 0x20 on DATA: another sub-packet follows in this datagram"})
	fFlagSlow = dissect.Register(&dissect.Field{Abbrev: "rx.flags.slow_start_ok", Name: "Slow Start OK", Type: dissect.TBool, Mask: FlagSlowStartOK, Bits: 8,
		Desc: "bit 0x20 on ACK: the sender supports slow start"})
	fUser    = dissect.Register(&dissect.Field{Abbrev: "rx.userstatus", Name: "User Status", Type: dissect.TUint32})
	fSecIdx  = dissect.Register(&dissect.Field{Abbrev: "rx.securityindex", Name: "Security Index", Type: dissect.TUint32})
	fSpare   = dissect.Register(&dissect.Field{Abbrev: "rx.spare", Name: "Spare/Checksum", Type: dissect.TUint16})
	fService = dissect.Register(&dissect.Field{Abbrev: "rx.serviceid", Name: "Service ID", Type: dissect.TUint16})

	// Jumbogram sub-packets.
	fJumbo      = dissect.Register(&dissect.Field{Abbrev: "rx.jumbo", Name: "Jumbogram sub-packet", Type: dissect.TUint32, Desc: "index of the sub-packet in its jumbogram (0 = the one after the full header)"})
	fJumboCount = dissect.Register(&dissect.Field{Abbrev: "rx.jumbo.count", Name: "Sub-packets in jumbogram", Type: dissect.TUint32})
	fJumboFlags = dissect.Register(&dissect.Field{Abbrev: "rx.jumbo.flags", Name: "Jumbo header flags", Type: dissect.TUint8, Base: dissect.BaseHex})
	fJumboPad   = dissect.Register(&dissect.Field{Abbrev: "rx.jumbo.pad", Name: "Jumbo header pad", Type: dissect.TUint8})
	fJumboCksum = dissect.Register(&dissect.Field{Abbrev: "rx.jumbo.cksum", Name: "Jumbo header checksum", Type: dissect.TUint16})
	fDataLen    = dissect.Register(&dissect.Field{Abbrev: "rx.data_len", Name: "Data length", Type: dissect.TUint32})

	// ACK.
	fAck        = dissect.Register(&dissect.Field{Abbrev: "rx.ack", Name: "ACK Packet", Type: dissect.TNone})
	fBufSpace   = dissect.Register(&dissect.Field{Abbrev: "rx.bufferspace", Name: "Bufferspace", Type: dissect.TUint16})
	fMaxSkew    = dissect.Register(&dissect.Field{Abbrev: "rx.maxskew", Name: "Max Skew", Type: dissect.TUint16})
	fFirst      = dissect.Register(&dissect.Field{Abbrev: "rx.first", Name: "First Packet", Type: dissect.TUint32})
	fPrev       = dissect.Register(&dissect.Field{Abbrev: "rx.prev", Name: "Prev Packet", Type: dissect.TUint32})
	fReason     = dissect.Register(&dissect.Field{Abbrev: "rx.reason", Name: "Reason", Type: dissect.TUint8, Names: reasonNames})
	fNumAcks    = dissect.Register(&dissect.Field{Abbrev: "rx.num_acks", Name: "Num ACKs", Type: dissect.TUint8})
	fAckType    = dissect.Register(&dissect.Field{Abbrev: "rx.ack_type", Name: "ACK Type", Type: dissect.TUint8, Names: ackTypeNames})
	fAckSeq     = dissect.Register(&dissect.Field{Abbrev: "rx.ack.seq", Name: "Sequence number of this ack byte", Type: dissect.TUint32})
	fAcked      = dissect.Register(&dissect.Field{Abbrev: "rx.ack.acked", Name: "Acked", Type: dissect.TString, Desc: "sequence ranges acknowledged, e.g. 1-5,7"})
	fNacked     = dissect.Register(&dissect.Field{Abbrev: "rx.ack.nacked", Name: "Nacked", Type: dissect.TString, Desc: "sequence ranges not yet received"})
	fAckPad     = dissect.Register(&dissect.Field{Abbrev: "rx.ack.pad", Name: "Padding", Type: dissect.TBytes})
	fMaxMTU     = dissect.Register(&dissect.Field{Abbrev: "rx.max_mtu", Name: "Max MTU", Type: dissect.TUint32, Desc: "first trailer word: largest packet the sender accepts (OpenAFS rx_maxReceiveSize)"})
	fIfMTU      = dissect.Register(&dissect.Field{Abbrev: "rx.if_mtu", Name: "Interface MTU", Type: dissect.TUint32, Desc: "second trailer word: the packet size the sender prefers"})
	fRwind      = dissect.Register(&dissect.Field{Abbrev: "rx.rwind", Name: "rwind", Type: dissect.TUint32})
	fMaxPackets = dissect.Register(&dissect.Field{Abbrev: "rx.max_packets", Name: "Max Packets", Type: dissect.TUint32, Desc: "max packets per jumbogram"})
	fAckRTT     = dissect.Register(&dissect.Field{Abbrev: "rx.ack.rtt", Name: "RTT", Type: dissect.TRelTime, Desc: "time from the acknowledged serial to this ACK"})
	fAckFrame   = dissect.Register(&dissect.Field{Abbrev: "rx.ack.serial_frame", Name: "Serial sent in frame", Type: dissect.TFrameNum})

	// ABORT, CHALLENGE, RESPONSE, DEBUG, VERSION.
	fAbort     = dissect.Register(&dissect.Field{Abbrev: "rx.abort", Name: "ABORT Packet", Type: dissect.TNone})
	fAbortCode = dissect.Register(&dissect.Field{Abbrev: "rx.abort_code", Name: "Abort Code", Type: dissect.TInt32, Desc: "signed: Rx and rxgen codes are negative"})
	fAbortName = dissect.Register(&dissect.Field{Abbrev: "rx.abort_code.name", Name: "Abort Code name", Type: dissect.TString})
	fChallenge = dissect.Register(&dissect.Field{Abbrev: "rx.challenge", Name: "CHALLENGE Packet", Type: dissect.TNone})
	fVersion   = dissect.Register(&dissect.Field{Abbrev: "rx.version", Name: "Version", Type: dissect.TUint32})
	fNonce     = dissect.Register(&dissect.Field{Abbrev: "rx.nonce", Name: "Nonce", Type: dissect.TUint32, Base: dissect.BaseHex})
	fMinLevel  = dissect.Register(&dissect.Field{Abbrev: "rx.min_level", Name: "Min Level", Type: dissect.TUint32, Names: map[uint64]string{0: "clear", 1: "auth", 2: "crypt"}})
	fResponse  = dissect.Register(&dissect.Field{Abbrev: "rx.response", Name: "RESPONSE Packet", Type: dissect.TNone})
	fEncrypted = dissect.Register(&dissect.Field{Abbrev: "rx.encrypted", Name: "Encrypted", Type: dissect.TNone, Desc: "rxkad v2 response part sealed with the session key (opaque)"})
	fKvno      = dissect.Register(&dissect.Field{Abbrev: "rx.kvno", Name: "kvno", Type: dissect.TUint32})
	fTicketLen = dissect.Register(&dissect.Field{Abbrev: "rx.ticket_len", Name: "Ticket len", Type: dissect.TUint32})
	fTicket    = dissect.Register(&dissect.Field{Abbrev: "rx.ticket", Name: "Ticket", Type: dissect.TBytes, Desc: "Kerberos ticket sealed with the server key (opaque)"})
	fPayload   = dissect.Register(&dissect.Field{Abbrev: "rx.payload", Name: "Security payload", Type: dissect.TBytes})
	fDbgType   = dissect.Register(&dissect.Field{Abbrev: "rx.debug.type", Name: "Debug type", Type: dissect.TUint32, Names: debugTypeNames})
	fDbgIndex  = dissect.Register(&dissect.Field{Abbrev: "rx.debug.index", Name: "Index", Type: dissect.TUint32})
	fDbgVer    = dissect.Register(&dissect.Field{Abbrev: "rx.debug.version", Name: "Debug protocol version", Type: dissect.TUint8, Desc: "'L' (0x4c) .. 'S' (0x53)"})
	fDbgWord   = dissect.Register(&dissect.Field{Abbrev: "rx.debug.value", Name: "Value", Type: dissect.TUint32})
	fDbgHost   = dissect.Register(&dissect.Field{Abbrev: "rx.debug.host", Name: "Host", Type: dissect.TIPv4})
	fDbgPort   = dissect.Register(&dissect.Field{Abbrev: "rx.debug.port", Name: "Port", Type: dissect.TUint16})
	fVerString = dissect.Register(&dissect.Field{Abbrev: "rx.version_string", Name: "Version string", Type: dissect.TString})

	fRetrans = dissect.Register(&dissect.Field{Abbrev: "rx.retransmission", Name: "Retransmission of frame", Type: dissect.TFrameNum})
)
