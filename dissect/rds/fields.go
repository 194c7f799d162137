package rds

import "github.com/rdx-project/rdx/dissect"

var extNames = map[uint64]string{ExtNone: "NONE", ExtVersion: "VERSION", ExtRDMA: "RDMA", ExtRDMADest: "RDMA_DEST",
	ExtRDMABytes: "RDMA_BYTES", ExtNPaths: "NPATHS", ExtGenNum: "GEN_NUM", ExtCapBits: "CAP_BITS",
	ExtSportIdx: "SPORT_IDX", ExtCsum: "CSUM"}

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
	PRDS = dissect.RegisterProto("rds", "Reliable Datagram Sockets", "RDS wire protocol 3.1 over TCP 16385 (Linux rds_tcp)")

	fSeq       = dissect.Register(&dissect.Field{Abbrev: "rds.seq", Name: "Sequence Number", Type: dissect.TUint64, Desc: "h_sequence: per TCP path, 1, 2, 3 ...; 0 on congestion maps and ACK-only"})
	fAck       = dissect.Register(&dissect.Field{Abbrev: "rds.ack", Name: "Acknowledgement", Type: dissect.TUint64, Desc: "h_ack: piggy-backed cumulative ack (always 0 from Linux rds_tcp, which relies on TCP acks)"})
	fLen       = dissect.Register(&dissect.Field{Abbrev: "rds.len", Name: "Length", Type: dissect.TUint32, Desc: "h_len: payload octets after the 48-octet header"})
	fSport     = dissect.Register(&dissect.Field{Abbrev: "rds.sport", Name: "Source Port", Type: dissect.TUint16, Desc: "RDS port (not a TCP port)"})
	fDport     = dissect.Register(&dissect.Field{Abbrev: "rds.dport", Name: "Destination Port", Type: dissect.TUint16, Desc: "RDS port; 0 = ping"})
	fFlags     = dissect.Register(&dissect.Field{Abbrev: "rds.flags", Name: "Flags", Type: dissect.TUint8, Base: dissect.BaseHex})
	fFlagCong  = dissect.Register(&dissect.Field{Abbrev: "rds.flags.cong_bitmap", Name: "Congestion bitmap", Type: dissect.TBool, Mask: FlagCongBitmap, Bits: 8})
	fFlagAckRq = dissect.Register(&dissect.Field{Abbrev: "rds.flags.ack_required", Name: "ACK required", Type: dissect.TBool, Mask: FlagAckRequired, Bits: 8})
	fFlagRetr  = dissect.Register(&dissect.Field{Abbrev: "rds.flags.retransmitted", Name: "Retransmitted", Type: dissect.TBool, Mask: FlagRetrans, Bits: 8})
	fFlagHBPi  = dissect.Register(&dissect.Field{Abbrev: "rds.flags.hb_ping", Name: "Heartbeat ping", Type: dissect.TBool, Mask: FlagHBPing, Bits: 8, Desc: "only in a Linux-derived tree, not mainline"})
	fFlagHBPo  = dissect.Register(&dissect.Field{Abbrev: "rds.flags.hb_pong", Name: "Heartbeat pong", Type: dissect.TBool, Mask: FlagHBPong, Bits: 8, Desc: "only in a Linux-derived tree, not mainline"})
	fFlagExtX  = dissect.Register(&dissect.Field{Abbrev: "rds.flags.exthdr_extension", Name: "Extension header extension", Type: dissect.TBool, Mask: FlagExtExt, Bits: 8, Desc: "only in a Linux-derived tree, not mainline"})
	fCredit    = dissect.Register(&dissect.Field{Abbrev: "rds.credit", Name: "Credit", Type: dissect.TUint8})
	fPad       = dissect.Register(&dissect.Field{Abbrev: "rds.pad", Name: "Padding", Type: dissect.TUint32, Base: dissect.BaseHex})
	fCsum      = dissect.Register(&dissect.Field{Abbrev: "rds.csum", Name: "Header checksum", Type: dissect.TUint16, Base: dissect.BaseHex, Desc: "Internet checksum of the 48 header octets; 0 = not computed"})
	fCsumStat  = dissect.Register(&dissect.Field{Abbrev: "rds.csum.status", Name: "Checksum Status", Type: dissect.TUint8, Names: dissect.StatusNames})

	fExtType    = dissect.Register(&dissect.Field{Abbrev: "rds.exthdr.type", Name: "Extension header type", Type: dissect.TUint8, Names: extNames})
	fExtVersion = dissect.Register(&dissect.Field{Abbrev: "rds.exthdr.version", Name: "Protocol version", Type: dissect.TUint32, Base: dissect.BaseHex})
	fExtRKey    = dissect.Register(&dissect.Field{Abbrev: "rds.exthdr.rdma_rkey", Name: "RDMA R_Key to release", Type: dissect.TUint32, Base: dissect.BaseHex})
	fExtDRKey   = dissect.Register(&dissect.Field{Abbrev: "rds.exthdr.rdma_dest.rkey", Name: "RDMA destination R_Key", Type: dissect.TUint32, Base: dissect.BaseHex})
	fExtDOff    = dissect.Register(&dissect.Field{Abbrev: "rds.exthdr.rdma_dest.offset", Name: "RDMA destination offset", Type: dissect.TUint32})
	fExtBytes   = dissect.Register(&dissect.Field{Abbrev: "rds.exthdr.rdma_bytes", Name: "RDMA bytes", Type: dissect.TUint32})
	fExtBytesFl = dissect.Register(&dissect.Field{Abbrev: "rds.exthdr.rdma_bytes.flags", Name: "RDMA direction", Type: dissect.TUint8, Base: dissect.BaseHex, Names: map[uint64]string{1: "write", 2: "read"}})
	fExtNPaths  = dissect.Register(&dissect.Field{Abbrev: "rds.exthdr.npaths", Name: "Number of paths", Type: dissect.TUint16})
	fExtGen     = dissect.Register(&dissect.Field{Abbrev: "rds.exthdr.gen_num", Name: "Generation number", Type: dissect.TUint32})
	fExtCap     = dissect.Register(&dissect.Field{Abbrev: "rds.exthdr.cap_bits", Name: "Capability bits", Type: dissect.TUint32, Base: dissect.BaseHex})
	fExtUnknown = dissect.Register(&dissect.Field{Abbrev: "rds.exthdr.unknown", Name: "Undecoded extension data", Type: dissect.TBytes})

	fKind      = dissect.Register(&dissect.Field{Abbrev: "rds.msg_type", Name: "Message type", Type: dissect.TUint8, Names: kindNames, Desc: "derived from ports, flags and length"})
	fStreamOff = dissect.Register(&dissect.Field{Abbrev: "rds.stream_offset", Name: "TCP stream offset", Type: dissect.TUint64, Desc: "offset of the header in its TCP direction (0 = first byte after the SYN)"})
	fFrames    = dissect.Register(&dissect.Field{Abbrev: "rds.frames", Name: "Reassembled from frames", Type: dissect.TString})
	fFrame     = dissect.Register(&dissect.Field{Abbrev: "rds.frame", Name: "Frame", Type: dissect.TFrameNum, Desc: "one per frame the message came from"})
	fFrameCnt  = dissect.Register(&dissect.Field{Abbrev: "rds.frame_count", Name: "Frames", Type: dissect.TUint32})
	fMissing   = dissect.Register(&dissect.Field{Abbrev: "rds.missing_bytes", Name: "Payload bytes never captured", Type: dissect.TUint32})
	fTruncated = dissect.Register(&dissect.Field{Abbrev: "rds.truncated", Name: "Truncated message: bytes received", Type: dissect.TUint32})
	fSegment   = dissect.Register(&dissect.Field{Abbrev: "rds.segment", Name: "Segment of a message", Type: dissect.TNone, Desc: "frame carries part of a message completed later"})
	fCongCount = dissect.Register(&dissect.Field{Abbrev: "rds.cong.count", Name: "Congested ports", Type: dissect.TUint32})
	fCongPort  = dissect.Register(&dissect.Field{Abbrev: "rds.cong.port", Name: "Congested port", Type: dissect.TUint16})

	fRetransOf  = dissect.Register(&dissect.Field{Abbrev: "rds.retransmission_of", Name: "Retransmission of frame", Type: dissect.TFrameNum})
	fAckFrame   = dissect.Register(&dissect.Field{Abbrev: "rds.ack.frame", Name: "Acknowledges message of frame", Type: dissect.TFrameNum, Desc: "first ack covering a message of the other direction"})
	fAckLatency = dissect.Register(&dissect.Field{Abbrev: "rds.ack.latency", Name: "Ack latency", Type: dissect.TRelTime})
	fPingFrame  = dissect.Register(&dissect.Field{Abbrev: "rds.ping_frame", Name: "Ping in frame", Type: dissect.TFrameNum})
	fPingRTT    = dissect.Register(&dissect.Field{Abbrev: "rds.ping_rtt", Name: "Ping round trip", Type: dissect.TRelTime})
	fPongFrame  = dissect.Register(&dissect.Field{Abbrev: "rds.pong_frame", Name: "Pong in frame", Type: dissect.TFrameNum, Later: true})
)

// Checks rdx check tabulates.
var (
	checkCsum   = dissect.RegisterCheck("rds.csum", "rds", "RDS header checksum, where the sender computed one (non-zero)")
	checkHeader = dissect.RegisterCheck("rds.header", "rds", "RDS header sane: padding 0, known flags and extension types, length possible")
	checkSeq    = dissect.RegisterCheck("rds.seq", "rds", "RDS sequence numbers per TCP path increase by one")
	checkLen    = dissect.RegisterCheck("rds.length", "rds", "RDS message complete: all h_len payload octets captured")
)
