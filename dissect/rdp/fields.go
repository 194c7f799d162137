package rdp

import . "github.com/rdx-project/rdx/dissect"

// Checksum status values of rdp.checksum.status.
const (
	CksumUnverified = 0
	CksumGood       = 1
	CksumBad        = 2
)

var cksumStatusNames = map[uint64]string{CksumUnverified: "unverified", CksumGood: "good", CksumBad: "bad"}

var versionNames = map[uint64]string{1: "RFC 908", 2: "RFC 1151"}

var (
	PRdp = RegisterProto("rdp", "Reliable Data Protocol (RFC 908/1151)",
		"rdx's rdp is the Reliable Data Protocol (IP protocol 27, RFC 908/1151), not Wireshark's rdp (Microsoft Remote Desktop Protocol)")

	fFlags   = Register(&Field{Abbrev: "rdp.flags", Name: "Flags", Type: TUint8, Base: BaseHex, Desc: "control bits SYN ACK EACK RST NUL: octet 0 with the version bits cleared"})
	fFlagSYN = Register(&Field{Abbrev: "rdp.flags.syn", Name: "SYN", Type: TBool, Mask: FlagSYN, Bits: 8})
	fFlagACK = Register(&Field{Abbrev: "rdp.flags.ack", Name: "ACK", Type: TBool, Mask: FlagACK, Bits: 8})
	fFlagEAK = Register(&Field{Abbrev: "rdp.flags.eack", Name: "EACK", Type: TBool, Mask: FlagEAK, Bits: 8, Desc: "extended (selective) acknowledgement list present"})
	fFlagRST = Register(&Field{Abbrev: "rdp.flags.rst", Name: "RST", Type: TBool, Mask: FlagRST, Bits: 8})
	fFlagNUL = Register(&Field{Abbrev: "rdp.flags.nul", Name: "NUL", Type: TBool, Mask: FlagNUL, Bits: 8, Desc: "null segment (keepalive)"})
	fVersion = Register(&Field{Abbrev: "rdp.version", Name: "Version", Type: TUint8, Mask: VerMask, Bits: 8, Names: versionNames})
	fHLen    = Register(&Field{Abbrev: "rdp.hlen", Name: "Header Length", Type: TUint8, Desc: "in 2-octet units, variable area included (9 = 18 octets, none)"})
	fSport   = Register(&Field{Abbrev: "rdp.sport", Name: "Source Port", Type: TUint16, Desc: "8 bits in version 1, 16 in version 2"})
	fDport   = Register(&Field{Abbrev: "rdp.dport", Name: "Destination Port", Type: TUint16})
	fDLen    = Register(&Field{Abbrev: "rdp.dlen", Name: "Data Length", Type: TUint16})
	fSeq     = Register(&Field{Abbrev: "rdp.seq", Name: "Sequence Number", Type: TUint32, Desc: "counts segments, not octets"})
	fAck     = Register(&Field{Abbrev: "rdp.ack", Name: "Acknowledgement Number", Type: TUint32, Desc: "last segment received in sequence (not next expected)"})
	fCksum   = Register(&Field{Abbrev: "rdp.checksum", Name: "Checksum", Type: TUint32, Base: BaseHex, Desc: "32-bit rotate-and-add in version 1, 16-bit TCP-style in version 2"})
	fCkStat  = Register(&Field{Abbrev: "rdp.checksum.status", Name: "Checksum Status", Type: TUint8, Names: cksumStatusNames})
	fEackSeq = Register(&Field{Abbrev: "rdp.eack.seq", Name: "EACKed Sequence Number", Type: TUint32, Desc: "segment received out of sequence (one per list entry)"})
	fMaxOut  = Register(&Field{Abbrev: "rdp.syn.max_outstanding", Name: "Max. Outstanding Segments", Type: TUint16, Desc: "unacknowledged segments the peer may send to the SYN's sender"})
	fMaxSeg  = Register(&Field{Abbrev: "rdp.syn.max_segment", Name: "Max. Segment Size", Type: TUint16, Desc: "largest segment the SYN's sender accepts (v1: IP header included)"})
	fSDM     = Register(&Field{Abbrev: "rdp.syn.sdm", Name: "Sequenced Delivery Mode", Type: TBool, Mask: OptSDM, Bits: 16})
	fData    = Register(&Field{Abbrev: "rdp.data", Name: "Data", Type: TBytes})
)
