package rdp

import "github.com/rdx-project/rdx/dissect"

var versionNames = map[uint64]string{1: "RFC 908", 2: "RFC 1151"}

var (
	PRdp = dissect.RegisterProto("rdp", "Reliable Data Protocol (RFC 908/1151)",
		"rdx's rdp is the Reliable Data Protocol (IP protocol 27, RFC 908/1151), not Wireshark's rdp (Microsoft Remote Desktop Protocol)")

	fFlags   = dissect.Register(&dissect.Field{Abbrev: "rdp.flags", Name: "Flags", Type: dissect.TUint8, Base: dissect.BaseHex, Desc: "control bits SYN ACK EACK RST NUL: octet 0 with the version bits cleared"})
	fFlagSYN = dissect.Register(&dissect.Field{Abbrev: "rdp.flags.syn", Name: "SYN", Type: dissect.TBool, Mask: FlagSYN, Bits: 8})
	fFlagACK = dissect.Register(&dissect.Field{Abbrev: "rdp.flags.ack", Name: "ACK", Type: dissect.TBool, Mask: FlagACK, Bits: 8})
	fFlagEAK = dissect.Register(&dissect.Field{Abbrev: "rdp.flags.eack", Name: "EACK", Type: dissect.TBool, Mask: FlagEAK, Bits: 8, Desc: "extended (selective) acknowledgement list present"})
	fFlagRST = dissect.Register(&dissect.Field{Abbrev: "rdp.flags.rst", Name: "RST", Type: dissect.TBool, Mask: FlagRST, Bits: 8})
	fFlagNUL = dissect.Register(&dissect.Field{Abbrev: "rdp.flags.nul", Name: "NUL", Type: dissect.TBool, Mask: FlagNUL, Bits: 8, Desc: "null segment (keepalive)"})
	fVersion = dissect.Register(&dissect.Field{Abbrev: "rdp.version", Name: "Version", Type: dissect.TUint8, Mask: VerMask, Bits: 8, Names: versionNames})
	fHLen    = dissect.Register(&dissect.Field{Abbrev: "rdp.hlen", Name: "Header Length", Type: dissect.TUint8, Desc: "in 2-octet units, variable area included (9 = 18 octets, none)"})
	fSport   = dissect.Register(&dissect.Field{Abbrev: "rdp.sport", Name: "Source Port", Type: dissect.TUint16, Desc: "8 bits in version 1, 16 in version 2"})
	fDport   = dissect.Register(&dissect.Field{Abbrev: "rdp.dport", Name: "Destination Port", Type: dissect.TUint16})
	fDLen    = dissect.Register(&dissect.Field{Abbrev: "rdp.dlen", Name: "Data Length", Type: dissect.TUint16})
	fSeq     = dissect.Register(&dissect.Field{Abbrev: "rdp.seq", Name: "Sequence Number", Type: dissect.TUint32, Desc: "counts segments, not octets"})
	fAck     = dissect.Register(&dissect.Field{Abbrev: "rdp.ack", Name: "Acknowledgement Number", Type: dissect.TUint32, Desc: "last segment received in sequence (not next expected)"})
	fCksum   = dissect.Register(&dissect.Field{Abbrev: "rdp.checksum", Name: "Checksum", Type: dissect.TUint32, Base: dissect.BaseHex, Desc: "32-bit rotate-and-add in version 1, 16-bit TCP-style in version 2"})
	fCkStat  = dissect.Register(&dissect.Field{Abbrev: "rdp.checksum.status", Name: "Checksum Status", Type: dissect.TUint8, Names: dissect.StatusNames})
	fEackSeq = dissect.Register(&dissect.Field{Abbrev: "rdp.eack.seq", Name: "EACKed Sequence Number", Type: dissect.TUint32, Desc: "segment received out of sequence (one per list entry)"})
	fMaxOut  = dissect.Register(&dissect.Field{Abbrev: "rdp.syn.max_outstanding", Name: "Max. Outstanding Segments", Type: dissect.TUint16, Desc: "unacknowledged segments the peer may send to the SYN's sender"})
	fMaxSeg  = dissect.Register(&dissect.Field{Abbrev: "rdp.syn.max_segment", Name: "Max. Segment Size", Type: dissect.TUint16, Desc: "largest segment the SYN's sender accepts (v1: IP header included)"})
	fSDM     = dissect.Register(&dissect.Field{Abbrev: "rdp.syn.sdm", Name: "Sequenced Delivery Mode", Type: dissect.TBool, Mask: OptSDM, Bits: 16})
	fData    = dissect.Register(&dissect.Field{Abbrev: "rdp.data", Name: "Data", Type: dissect.TBytes})
)
