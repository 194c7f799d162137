package rx

import . "github.com/rdx-project/rdx/dissect"

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
	PRx = RegisterProto("rx", "RX Protocol", "")

	fEpoch     = Register(&Field{Abbrev: "rx.epoch", Name: "Epoch", Type: TAbsTime, Desc: "connection epoch (client start time); shown as a time, as Wireshark does"})
	fEpochRaw  = Register(&Field{Abbrev: "rx.epoch_raw", Name: "Epoch (raw)", Type: TUint32, Base: BaseHex, Desc: "the epoch as a number"})
	fEpochAny  = Register(&Field{Abbrev: "rx.epoch.any_address", Name: "Any address (connection is epoch+cid only)", Type: TBool, Mask: 0x80000000, Bits: 32})
	fCID       = Register(&Field{Abbrev: "rx.cid", Name: "CID", Type: TUint32})
	fChannel   = Register(&Field{Abbrev: "rx.channel", Name: "Channel", Type: TUint32, Mask: 3, Bits: 32})
	fConnID    = Register(&Field{Abbrev: "rx.connid", Name: "Connection ID", Type: TUint32, Base: BaseHex, Desc: "cid without the channel bits"})
	fCall      = Register(&Field{Abbrev: "rx.callnumber", Name: "Call Number", Type: TUint32})
	fSeq       = Register(&Field{Abbrev: "rx.seq", Name: "Sequence Number", Type: TUint32})
	fSerial    = Register(&Field{Abbrev: "rx.serial", Name: "Serial", Type: TUint32})
	fType      = Register(&Field{Abbrev: "rx.type", Name: "Type", Type: TUint8, Names: typeNames})
	fFlags     = Register(&Field{Abbrev: "rx.flags", Name: "Flags", Type: TUint8, Base: BaseHex})
	fFlagCI    = Register(&Field{Abbrev: "rx.flags.client_init", Name: "Client Initiated", Type: TBool, Mask: FlagClientInitiated, Bits: 8})
	fFlagRA    = Register(&Field{Abbrev: "rx.flags.request_ack", Name: "Request Ack", Type: TBool, Mask: FlagRequestAck, Bits: 8})
	fFlagLast  = Register(&Field{Abbrev: "rx.flags.last_packet", Name: "Last Packet", Type: TBool, Mask: FlagLastPacket, Bits: 8})
	fFlagMore  = Register(&Field{Abbrev: "rx.flags.more_packets", Name: "More Packets", Type: TBool, Mask: FlagMorePackets, Bits: 8})
	fFlagFree  = Register(&Field{Abbrev: "rx.flags.free_packet", Name: "Free Packet", Type: TBool, Mask: FlagFreePacket, Bits: 8})
	fFlagJumbo = Register(&Field{Abbrev: "rx.flags.jumbo_packet", Name: "Jumbo Packet", Type: TBool, Mask: FlagJumbo, Bits: 8,
		Desc: "bit 0x20 on DATA: another sub-packet follows in this datagram"})
	fFlagSlow = Register(&Field{Abbrev: "rx.flags.slow_start_ok", Name: "Slow Start OK", Type: TBool, Mask: FlagSlowStartOK, Bits: 8,
		Desc: "bit 0x20 on ACK: the sender supports slow start"})
	fUser    = Register(&Field{Abbrev: "rx.userstatus", Name: "User Status", Type: TUint8})
	fSecIdx  = Register(&Field{Abbrev: "rx.securityindex", Name: "Security Index", Type: TUint8})
	fSpare   = Register(&Field{Abbrev: "rx.spare", Name: "Spare/Checksum", Type: TUint16})
	fService = Register(&Field{Abbrev: "rx.serviceid", Name: "Service ID", Type: TUint16})

	// Jumbogram sub-packets.
	fJumbo      = Register(&Field{Abbrev: "rx.jumbo", Name: "Jumbogram sub-packet", Type: TUint32, Desc: "index of the sub-packet in its jumbogram (0 = the one after the full header)"})
	fJumboCount = Register(&Field{Abbrev: "rx.jumbo.count", Name: "Sub-packets in jumbogram", Type: TUint32})
	fJumboFlags = Register(&Field{Abbrev: "rx.jumbo.flags", Name: "Jumbo header flags", Type: TUint8, Base: BaseHex})
	fJumboPad   = Register(&Field{Abbrev: "rx.jumbo.pad", Name: "Jumbo header pad", Type: TUint8})
	fJumboCksum = Register(&Field{Abbrev: "rx.jumbo.cksum", Name: "Jumbo header checksum", Type: TUint16})
	fDataLen    = Register(&Field{Abbrev: "rx.data_len", Name: "Data length", Type: TUint32})

	// ACK.
	fAck        = Register(&Field{Abbrev: "rx.ack", Name: "ACK Packet", Type: TNone})
	fBufSpace   = Register(&Field{Abbrev: "rx.bufferspace", Name: "Bufferspace", Type: TUint16})
	fMaxSkew    = Register(&Field{Abbrev: "rx.maxskew", Name: "Max Skew", Type: TUint16})
	fFirst      = Register(&Field{Abbrev: "rx.first", Name: "First Packet", Type: TUint32})
	fPrev       = Register(&Field{Abbrev: "rx.prev", Name: "Prev Packet", Type: TUint32})
	fReason     = Register(&Field{Abbrev: "rx.reason", Name: "Reason", Type: TUint8, Names: reasonNames})
	fNumAcks    = Register(&Field{Abbrev: "rx.num_acks", Name: "Num ACKs", Type: TUint8})
	fAckType    = Register(&Field{Abbrev: "rx.ack_type", Name: "ACK Type", Type: TUint8, Names: ackTypeNames})
	fAckSeq     = Register(&Field{Abbrev: "rx.ack.seq", Name: "Sequence number of this ack byte", Type: TUint32})
	fAcked      = Register(&Field{Abbrev: "rx.ack.acked", Name: "Acked", Type: TString, Desc: "sequence ranges acknowledged, e.g. 1-5,7"})
	fNacked     = Register(&Field{Abbrev: "rx.ack.nacked", Name: "Nacked", Type: TString, Desc: "sequence ranges not yet received"})
	fAckPad     = Register(&Field{Abbrev: "rx.ack.pad", Name: "Padding", Type: TBytes})
	fMaxMTU     = Register(&Field{Abbrev: "rx.max_mtu", Name: "Max MTU", Type: TUint32, Desc: "first trailer word: largest packet the sender accepts (OpenAFS rx_maxReceiveSize)"})
	fIfMTU      = Register(&Field{Abbrev: "rx.if_mtu", Name: "Interface MTU", Type: TUint32, Desc: "second trailer word: the packet size the sender prefers"})
	fRwind      = Register(&Field{Abbrev: "rx.rwind", Name: "rwind", Type: TUint32})
	fMaxPackets = Register(&Field{Abbrev: "rx.max_packets", Name: "Max Packets", Type: TUint32, Desc: "max packets per jumbogram"})
	fAckRTT     = Register(&Field{Abbrev: "rx.ack.rtt", Name: "RTT", Type: TRelTime, Desc: "time from the acknowledged serial to this ACK"})
	fAckFrame   = Register(&Field{Abbrev: "rx.ack.serial_frame", Name: "Serial sent in frame", Type: TFrameNum})

	// ABORT, CHALLENGE, RESPONSE, DEBUG, VERSION.
	fAbort     = Register(&Field{Abbrev: "rx.abort", Name: "ABORT Packet", Type: TNone})
	fAbortCode = Register(&Field{Abbrev: "rx.abort_code", Name: "Abort Code", Type: TInt32, Desc: "signed: Rx and rxgen codes are negative"})
	fAbortName = Register(&Field{Abbrev: "rx.abort_code.name", Name: "Abort Code name", Type: TString})
	fChallenge = Register(&Field{Abbrev: "rx.challenge", Name: "CHALLENGE Packet", Type: TNone})
	fVersion   = Register(&Field{Abbrev: "rx.version", Name: "Version", Type: TUint32})
	fNonce     = Register(&Field{Abbrev: "rx.nonce", Name: "Nonce", Type: TUint32, Base: BaseHex})
	fMinLevel  = Register(&Field{Abbrev: "rx.min_level", Name: "Min Level", Type: TUint32, Names: map[uint64]string{0: "clear", 1: "auth", 2: "crypt"}})
	fResponse  = Register(&Field{Abbrev: "rx.response", Name: "RESPONSE Packet", Type: TNone})
	fEncrypted = Register(&Field{Abbrev: "rx.encrypted", Name: "Encrypted", Type: TBytes, Desc: "rxkad v2 response part sealed with the session key (opaque)"})
	fKvno      = Register(&Field{Abbrev: "rx.kvno", Name: "kvno", Type: TUint32})
	fTicketLen = Register(&Field{Abbrev: "rx.ticket_len", Name: "Ticket len", Type: TUint32})
	fTicket    = Register(&Field{Abbrev: "rx.ticket", Name: "Ticket", Type: TBytes, Desc: "Kerberos ticket sealed with the server key (opaque)"})
	fPayload   = Register(&Field{Abbrev: "rx.payload", Name: "Security payload", Type: TBytes})
	fDbgType   = Register(&Field{Abbrev: "rx.debug.type", Name: "Debug type", Type: TUint32, Names: debugTypeNames})
	fDbgIndex  = Register(&Field{Abbrev: "rx.debug.index", Name: "Index", Type: TUint32})
	fDbgVer    = Register(&Field{Abbrev: "rx.debug.version", Name: "Debug protocol version", Type: TUint8, Desc: "'L' (0x4c) .. 'S' (0x53)"})
	fDbgWord   = Register(&Field{Abbrev: "rx.debug.value", Name: "Value", Type: TUint32})
	fDbgHost   = Register(&Field{Abbrev: "rx.debug.host", Name: "Host", Type: TIPv4})
	fDbgPort   = Register(&Field{Abbrev: "rx.debug.port", Name: "Port", Type: TUint16})
	fVerString = Register(&Field{Abbrev: "rx.version_string", Name: "Version string", Type: TString})

	fRetrans = Register(&Field{Abbrev: "rx.retransmission", Name: "Retransmission of frame", Type: TFrameNum})
)
