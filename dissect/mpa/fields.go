package mpa

import . "github.com/rdx-project/rdx/dissect"

// Status values of iwarp_mpa.crc.status and iwarp_mpa.marker.status.
const (
	StatusUnverified = 0
	StatusGood       = 1
	StatusBad        = 2
)

var statusNames = map[uint64]string{0: "Unverified", 1: "Good", 2: "Bad"}

var (
	PMPA = RegisterProto("iwarp_mpa", "iWARP Marker Protocol data unit Aligned framing", "")

	fReq     = Register(&Field{Abbrev: "iwarp_mpa.req", Name: "Request frame header", Type: TNone})
	fRep     = Register(&Field{Abbrev: "iwarp_mpa.rep", Name: "Reply frame header", Type: TNone})
	fFPDU    = Register(&Field{Abbrev: "iwarp_mpa.fpdu", Name: "FPDU", Type: TNone})
	fMarkers = Register(&Field{Abbrev: "iwarp_mpa.markers", Name: "Markers", Type: TNone})
	fKeyReq  = Register(&Field{Abbrev: "iwarp_mpa.key.req", Name: "ID Req frame", Type: TBytes})
	fKeyRep  = Register(&Field{Abbrev: "iwarp_mpa.key.rep", Name: "ID Rep frame", Type: TBytes})
	fFlagM   = Register(&Field{Abbrev: "iwarp_mpa.marker_flag", Name: "Marker flag", Type: TBool, Mask: FlagM, Bits: 8})
	fFlagC   = Register(&Field{Abbrev: "iwarp_mpa.crc_flag", Name: "CRC flag", Type: TBool, Mask: FlagC, Bits: 8})
	fFlagR   = Register(&Field{Abbrev: "iwarp_mpa.rej_flag", Name: "Connection rejected flag", Type: TBool, Mask: FlagR, Bits: 8})
	fRes     = Register(&Field{Abbrev: "iwarp_mpa.res", Name: "Reserved", Type: TUint8, Base: BaseHex, Mask: 0x1f, Bits: 8,
		Desc: "reserved bits as tshark shows them (includes the RFC 6581 enhanced bit 0x10)"})
	fEnh = Register(&Field{Abbrev: "iwarp_mpa.enhanced_flag", Name: "Enhanced connection data flag", Type: TBool, Mask: FlagEnhanced, Bits: 8,
		Desc: "RFC 6581: IRD/ORD word leads the private data (rdx)"})
	fRev     = Register(&Field{Abbrev: "iwarp_mpa.rev", Name: "Revision", Type: TUint8})
	fPDLen   = Register(&Field{Abbrev: "iwarp_mpa.pdlength", Name: "Private data length", Type: TUint16})
	fPrivate = Register(&Field{Abbrev: "iwarp_mpa.privatedata", Name: "Private data", Type: TBytes})
	fIRD     = Register(&Field{Abbrev: "iwarp_mpa.ird", Name: "IRD", Type: TUint16, Mask: IRDORDMask, Bits: 16, Desc: "RFC 6581 inbound RDMA read depth (rdx)"})
	fORD     = Register(&Field{Abbrev: "iwarp_mpa.ord", Name: "ORD", Type: TUint16, Mask: IRDORDMask, Bits: 16, Desc: "RFC 6581 outbound RDMA read depth (rdx)"})
	fP2P     = Register(&Field{Abbrev: "iwarp_mpa.peer2peer", Name: "Peer-to-peer mode", Type: TBool, Mask: IRDPeerToPeer, Bits: 16, Desc: "RFC 6581 (rdx)"})
	fZeroRTR = Register(&Field{Abbrev: "iwarp_mpa.rtr.zero_len_send", Name: "Zero-length Send RTR", Type: TBool, Mask: IRDZeroRTR, Bits: 16, Desc: "RFC 6581 (rdx)"})
	fWrRTR   = Register(&Field{Abbrev: "iwarp_mpa.rtr.write", Name: "Zero-length RDMA Write RTR", Type: TBool, Mask: ORDWriteRTR, Bits: 16, Desc: "RFC 6581 (rdx)"})
	fRdRTR   = Register(&Field{Abbrev: "iwarp_mpa.rtr.read", Name: "Zero-length RDMA Read RTR", Type: TBool, Mask: ORDReadRTR, Bits: 16, Desc: "RFC 6581 (rdx)"})

	fULPLen     = Register(&Field{Abbrev: "iwarp_mpa.ulpdulength", Name: "ULPDU length", Type: TUint16})
	fPad        = Register(&Field{Abbrev: "iwarp_mpa.pad", Name: "Padding", Type: TBytes})
	fCRC        = Register(&Field{Abbrev: "iwarp_mpa.crc", Name: "CRC", Type: TUint32, Base: BaseHex, Desc: "CRC field when CRCs are off (its octets read big-endian, as tshark shows them)"})
	fCRCCheck   = Register(&Field{Abbrev: "iwarp_mpa.crc_check", Name: "CRC check", Type: TUint32, Base: BaseHex, Desc: "CRC field when CRCs are on (octets read big-endian as tshark does; the CRC-32C value is sent little-endian)"})
	fCRCCalc    = Register(&Field{Abbrev: "iwarp_mpa.crc.computed", Name: "Computed CRC", Type: TUint32, Base: BaseHex, Desc: "CRC-32C over the octets RFC 5044 §6.5 names (rdx)"})
	fCRCStatus  = Register(&Field{Abbrev: "iwarp_mpa.crc.status", Name: "CRC status", Type: TUint8, Names: statusNames, Desc: "0 unverified (CRCs off), 1 good, 2 bad (rdx)"})
	fMarkerRes  = Register(&Field{Abbrev: "iwarp_mpa.marker_res", Name: "Reserved", Type: TUint16, Base: BaseHex})
	fMarkerPtr  = Register(&Field{Abbrev: "iwarp_mpa.marker_fpduptr", Name: "FPDU back pointer", Type: TUint16})
	fMarkerStat = Register(&Field{Abbrev: "iwarp_mpa.marker.status", Name: "Marker status", Type: TUint8, Names: statusNames,
		Desc: "1 when every marker of the FPDU points back at its start, 2 when one does not (rdx)"})
	fMarkerLegacy = Register(&Field{Abbrev: "iwarp_mpa.marker.legacy", Name: "Legacy marker rule", Type: TBool,
		Desc: "markers every 512 octets not counting CRC fields, FPDUPTR little-endian (a 2008 sender; not RFC 5044) (rdx)"})
	fReassembled = Register(&Field{Abbrev: "iwarp_mpa.reassembled_in", Name: "FPDU bytes from frame", Type: TFrameNum, Desc: "frames an FPDU spanning segments came from (rdx)"})
)

// Checks `rdx check` tabulates.
var (
	CheckCRC    = RegisterCheck("mpa.crc", "iwarp_mpa", "FPDU CRC-32C (when negotiated or configured)")
	CheckMarker = RegisterCheck("mpa.marker", "iwarp_mpa", "marker FPDU back-pointers at every 512-octet position")
)
