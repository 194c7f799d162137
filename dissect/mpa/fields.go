package mpa

import "github.com/rdx-project/rdx/dissect"

// Status values of iwarp_mpa.crc.status and iwarp_mpa.marker.status: the
// shared Wireshark numbering, named here for callers outside dissect.
const (
	StatusBad        = dissect.StatusBad
	StatusGood       = dissect.StatusGood
	StatusUnverified = dissect.StatusUnverified
)

var (
	PMPA = dissect.RegisterProto("iwarp_mpa", "iWARP Marker Protocol data unit Aligned framing", "")

	fReq     = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.req", Name: "Request frame header", Type: dissect.TNone})
	fRep     = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.rep", Name: "Reply frame header", Type: dissect.TNone})
	fFPDU    = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.fpdu", Name: "FPDU", Type: dissect.TNone})
	fMarkers = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.markers", Name: "Markers", Type: dissect.TNone})
	fKeyReq  = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.key.req", Name: "ID Req frame", Type: dissect.TBytes})
	fKeyRep  = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.key.rep", Name: "ID Rep frame", Type: dissect.TBytes})
	fFlagM   = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.marker_flag", Name: "Marker flag", Type: dissect.TBool, Mask: FlagM, Bits: 8})
	fFlagC   = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.crc_flag", Name: "CRC flag", Type: dissect.TBool, Mask: FlagC, Bits: 8})
	fFlagR   = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.rej_flag", Name: "Connection rejected flag", Type: dissect.TBool, Mask: FlagR, Bits: 8})
	fRes     = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.res", Name: "Reserved", Type: dissect.TUint8, Base: dissect.BaseHex, Mask: 0x1f, Bits: 8,
		Desc: "reserved bits as tshark shows them (includes the RFC 6581 enhanced bit 0x10)"})
	fEnh = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.enhanced_flag", Name: "Enhanced connection data flag", Type: dissect.TBool, Mask: FlagEnhanced, Bits: 8,
		Desc: "RFC 6581: IRD/ORD word leads the private data (rdx)"})
	fRev     = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.rev", Name: "Revision", Type: dissect.TUint8})
	fPDLen   = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.pdlength", Name: "Private data length", Type: dissect.TUint16})
	fPrivate = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.privatedata", Name: "Private data", Type: dissect.TBytes})
	fIRD     = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.ird", Name: "IRD", Type: dissect.TUint16, Mask: IRDORDMask, Bits: 16, Desc: "RFC 6581 inbound RDMA read depth (rdx)"})
	fORD     = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.ord", Name: "ORD", Type: dissect.TUint16, Mask: IRDORDMask, Bits: 16, Desc: "RFC 6581 outbound RDMA read depth (rdx)"})
	fP2P     = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.peer2peer", Name: "Peer-to-peer mode", Type: dissect.TBool, Mask: IRDPeerToPeer, Bits: 16, Desc: "RFC 6581 (rdx)"})
	fZeroRTR = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.rtr.zero_len_send", Name: "Zero-length Send RTR", Type: dissect.TBool, Mask: IRDZeroRTR, Bits: 16, Desc: "RFC 6581 (rdx)"})
	fWrRTR   = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.rtr.write", Name: "Zero-length RDMA Write RTR", Type: dissect.TBool, Mask: ORDWriteRTR, Bits: 16, Desc: "RFC 6581 (rdx)"})
	fRdRTR   = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.rtr.read", Name: "Zero-length RDMA Read RTR", Type: dissect.TBool, Mask: ORDReadRTR, Bits: 16, Desc: "RFC 6581 (rdx)"})

	fULPLen     = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.ulpdulength", Name: "ULPDU length", Type: dissect.TUint16})
	fPad        = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.pad", Name: "Padding", Type: dissect.TBytes})
	fCRC        = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.crc", Name: "CRC", Type: dissect.TUint32, Base: dissect.BaseHex, Desc: "CRC field when CRCs are off (its octets read big-endian, as tshark shows them)"})
	fCRCCheck   = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.crc_check", Name: "CRC check", Type: dissect.TUint32, Base: dissect.BaseHex, Desc: "CRC field when CRCs are on (octets read big-endian as tshark does; the CRC-32C value is sent little-endian)"})
	fCRCCalc    = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.crc.computed", Name: "Computed CRC", Type: dissect.TUint32, Base: dissect.BaseHex, Desc: "CRC-32C over the octets RFC 5044 §6.5 names (rdx)"})
	fCRCStatus  = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.crc.status", Name: "CRC status", Type: dissect.TUint8, Names: dissect.StatusNames, Desc: "0 bad, 1 good, 2 unverified (CRCs off) (rdx)"})
	fMarkerRes  = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.marker_res", Name: "Reserved", Type: dissect.TUint16, Base: dissect.BaseHex})
	fMarkerPtr  = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.marker_fpduptr", Name: "FPDU back pointer", Type: dissect.TUint16})
	fMarkerStat = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.marker.status", Name: "Marker status", Type: dissect.TUint8, Names: dissect.StatusNames,
		Desc: "1 when every marker of the FPDU points back at its start, 0 when one does not (rdx)"})
	fMarkerLegacy = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.marker.legacy", Name: "Legacy marker rule", Type: dissect.TBool,
		Desc: "markers every 512 octets not counting CRC fields, FPDUPTR little-endian (a 2008 sender; not RFC 5044) (rdx)"})
	fReassembled = dissect.Register(&dissect.Field{Abbrev: "iwarp_mpa.reassembled_in", Name: "FPDU bytes from frame", Type: dissect.TFrameNum, Desc: "frames an FPDU spanning segments came from (rdx)"})
)

// Checks `rdx check` tabulates.
var (
	CheckCRC    = dissect.RegisterCheck("mpa.crc", "iwarp_mpa", "FPDU CRC-32C (when negotiated or configured)")
	CheckMarker = dissect.RegisterCheck("mpa.marker", "iwarp_mpa", "marker FPDU back-pointers at every 512-octet position")
)
