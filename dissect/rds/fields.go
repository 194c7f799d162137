package rds

import . "github.com/rdx-project/rdx/dissect"

var extNames = map[uint64]string{ExtNone: "NONE", ExtVersion: "VERSION", ExtRDMA: "RDMA", ExtRDMADest: "RDMA_DEST",
	ExtRDMABytes: "RDMA_BYTES", ExtNPaths: "NPATHS", ExtGenNum: "GEN_NUM", ExtCapBits: "CAP_BITS",
	ExtSportIdx: "SPORT_IDX", ExtCsum: "CSUM"}

// Checksum status values of rds.csum.status.
const (
	CsumUnverified = 0 // h_csum 0: not computed (every Linux RDS/TCP header)
	CsumGood       = 1
	CsumBad        = 2
)

var csumStatusNames = map[uint64]string{CsumUnverified: "Unverified", CsumGood: "Good", CsumBad: "Bad"}

// Message kinds (rds.msg_type, derived from ports, flags and length).
const (
	KindData = iota
	KindAckOnly
	KindCong
	KindPing
	KindPong
	KindProbe
	KindProbePong
)

var kindNames = map[uint64]string{KindData: "data", KindAckOnly: "ack-only", KindCong: "congestion map",
	KindPing: "ping", KindPong: "pong", KindProbe: "MPRDS probe", KindProbePong: "MPRDS probe pong"}

var kindSummary = [...]string{"DATA", "ACK", "CONG_MAP", "PING", "PONG", "PROBE", "PROBE_PONG"}

var (
	PRDS = RegisterProto("rds", "Reliable Datagram Sockets", "RDS wire protocol 3.1 over TCP 16385 (Linux rds_tcp)")

	fSeq       = Register(&Field{Abbrev: "rds.seq", Name: "Sequence Number", Type: TUint64, Desc: "h_sequence: per TCP path, 1, 2, 3 ...; 0 on congestion maps and ACK-only"})
	fAck       = Register(&Field{Abbrev: "rds.ack", Name: "Acknowledgement", Type: TUint64, Desc: "h_ack: piggy-backed cumulative ack (always 0 from Linux rds_tcp, which relies on TCP acks)"})
	fLen       = Register(&Field{Abbrev: "rds.len", Name: "Length", Type: TUint32, Desc: "h_len: payload octets after the 48-octet header"})
	fSport     = Register(&Field{Abbrev: "rds.sport", Name: "Source Port", Type: TUint16, Desc: "RDS port (not a TCP port)"})
	fDport     = Register(&Field{Abbrev: "rds.dport", Name: "Destination Port", Type: TUint16, Desc: "RDS port; 0 = ping"})
	fFlags     = Register(&Field{Abbrev: "rds.flags", Name: "Flags", Type: TUint8, Base: BaseHex})
	fFlagCong  = Register(&Field{Abbrev: "rds.flags.cong_bitmap", Name: "Congestion bitmap", Type: TBool, Mask: FlagCongBitmap, Bits: 8})
	fFlagAckRq = Register(&Field{Abbrev: "rds.flags.ack_required", Name: "ACK required", Type: TBool, Mask: FlagAckRequired, Bits: 8})
	fFlagRetr  = Register(&Field{Abbrev: "rds.flags.retransmitted", Name: "Retransmitted", Type: TBool, Mask: FlagRetrans, Bits: 8})
	fFlagHBPi  = Register(&Field{Abbrev: "rds.flags.hb_ping", Name: "Heartbeat ping", Type: TBool, Mask: FlagHBPing, Bits: 8, Desc: "only in a Linux-derived tree, not mainline"})
	fFlagHBPo  = Register(&Field{Abbrev: "rds.flags.hb_pong", Name: "Heartbeat pong", Type: TBool, Mask: FlagHBPong, Bits: 8, Desc: "only in a Linux-derived tree, not mainline"})
	fFlagExtX  = Register(&Field{Abbrev: "rds.flags.exthdr_extension", Name: "Extension header extension", Type: TBool, Mask: FlagExtExt, Bits: 8, Desc: "only in a Linux-derived tree, not mainline"})
	fCredit    = Register(&Field{Abbrev: "rds.credit", Name: "Credit", Type: TUint8})
	fPad       = Register(&Field{Abbrev: "rds.pad", Name: "Padding", Type: TUint32, Base: BaseHex})
	fCsum      = Register(&Field{Abbrev: "rds.csum", Name: "Header checksum", Type: TUint16, Base: BaseHex, Desc: "Internet checksum of the 48 header octets; 0 = not computed"})
	fCsumStat  = Register(&Field{Abbrev: "rds.csum.status", Name: "Checksum Status", Type: TUint8, Names: csumStatusNames})

	fExtType    = Register(&Field{Abbrev: "rds.exthdr.type", Name: "Extension header type", Type: TUint8, Names: extNames})
	fExtVersion = Register(&Field{Abbrev: "rds.exthdr.version", Name: "Protocol version", Type: TUint32, Base: BaseHex})
	fExtRKey    = Register(&Field{Abbrev: "rds.exthdr.rdma_rkey", Name: "RDMA R_Key to release", Type: TUint32, Base: BaseHex})
	fExtDRKey   = Register(&Field{Abbrev: "rds.exthdr.rdma_dest.rkey", Name: "RDMA destination R_Key", Type: TUint32, Base: BaseHex})
	fExtDOff    = Register(&Field{Abbrev: "rds.exthdr.rdma_dest.offset", Name: "RDMA destination offset", Type: TUint32})
	fExtBytes   = Register(&Field{Abbrev: "rds.exthdr.rdma_bytes", Name: "RDMA bytes", Type: TUint32})
	fExtBytesFl = Register(&Field{Abbrev: "rds.exthdr.rdma_bytes.flags", Name: "RDMA direction", Type: TUint8, Base: BaseHex, Names: map[uint64]string{1: "write", 2: "read"}})
	fExtNPaths  = Register(&Field{Abbrev: "rds.exthdr.npaths", Name: "Number of paths", Type: TUint16})
	fExtGen     = Register(&Field{Abbrev: "rds.exthdr.gen_num", Name: "Generation number", Type: TUint32})
	fExtCap     = Register(&Field{Abbrev: "rds.exthdr.cap_bits", Name: "Capability bits", Type: TUint32, Base: BaseHex})
	fExtUnknown = Register(&Field{Abbrev: "rds.exthdr.unknown", Name: "Undecoded extension data", Type: TBytes})

	fKind      = Register(&Field{Abbrev: "rds.msg_type", Name: "Message type", Type: TUint8, Names: kindNames, Desc: "derived from ports, flags and length"})
	fStreamOff = Register(&Field{Abbrev: "rds.stream_offset", Name: "TCP stream offset", Type: TUint64, Desc: "offset of the header in its TCP direction (0 = first byte after the SYN)"})
	fFrames    = Register(&Field{Abbrev: "rds.frames", Name: "Reassembled from frames", Type: TString})
	fFrame     = Register(&Field{Abbrev: "rds.frame", Name: "Frame", Type: TFrameNum, Desc: "one per frame the message came from"})
	fFrameCnt  = Register(&Field{Abbrev: "rds.frame_count", Name: "Frames", Type: TUint32})
	fMissing   = Register(&Field{Abbrev: "rds.missing_bytes", Name: "Payload bytes never captured", Type: TUint32})
	fTruncated = Register(&Field{Abbrev: "rds.truncated", Name: "Truncated message: bytes received", Type: TUint32})
	fSegment   = Register(&Field{Abbrev: "rds.segment", Name: "Segment of a message", Type: TNone, Desc: "frame carries part of a message completed later"})
	fCongCount = Register(&Field{Abbrev: "rds.cong.count", Name: "Congested ports", Type: TUint32})
	fCongPort  = Register(&Field{Abbrev: "rds.cong.port", Name: "Congested port", Type: TUint16})

	fRetransOf  = Register(&Field{Abbrev: "rds.retransmission_of", Name: "Retransmission of frame", Type: TFrameNum})
	fAckFrame   = Register(&Field{Abbrev: "rds.ack.frame", Name: "Acknowledges message of frame", Type: TFrameNum, Desc: "first ack covering a message of the other direction"})
	fAckLatency = Register(&Field{Abbrev: "rds.ack.latency", Name: "Ack latency", Type: TRelTime})
	fPingFrame  = Register(&Field{Abbrev: "rds.ping_frame", Name: "Ping in frame", Type: TFrameNum})
	fPingRTT    = Register(&Field{Abbrev: "rds.ping_rtt", Name: "Ping round trip", Type: TRelTime})
	fPongFrame  = Register(&Field{Abbrev: "rds.pong_frame", Name: "Pong in frame", Type: TFrameNum})
)

// Checks rdx check tabulates.
var (
	checkCsum   = RegisterCheck("rds.csum", "rds", "RDS header checksum, where the sender computed one (non-zero)")
	checkHeader = RegisterCheck("rds.header", "rds", "RDS header sane: padding 0, known flags and extension types, length possible")
	checkSeq    = RegisterCheck("rds.seq", "rds", "RDS sequence numbers per TCP path increase by one")
	checkLen    = RegisterCheck("rds.length", "rds", "RDS message complete: all h_len payload octets captured")
)
