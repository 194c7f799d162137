// Package ib dissects the InfiniBand transport: native IB (LRH, optional GRH,
// BTH, extended headers, ICRC, VCRC) in LINKTYPE_INFINIBAND and ERF records,
// RoCEv1 (EtherType 0x8915: GRH first) and RoCEv2 (UDP 4791: BTH first). It
// verifies the ICRC (and the VCRC on native IB) and follows PSN order per
// direction and destination QP.
package ib

import "encoding/binary"

// Header sizes in octets.
const (
	LRHLen          = 8
	GRHLen          = 40
	BTHLen          = 12
	RDETHLen        = 4
	DETHLen         = 8
	XRCETHLen       = 4
	RETHLen         = 16
	AtomicETHLen    = 28
	AETHLen         = 4
	AtomicAckETHLen = 8
	ImmDtLen        = 4
	IETHLen         = 4
	FETHLen         = 4
	ICRCLen         = 4
	VCRCLen         = 2
	CNPReservedLen  = 16
)

// Constants of the encapsulations.
const (
	RoCEv2Port     = 4791
	RoCEv1Type     = 0x8915
	LinkTypeIB     = 247
	LinkTypeERF    = 197
	ERFTypeIB      = 21
	GRHNextBTH     = 0x1B
	GSIQKey        = 0x80010000
	DefaultPKey    = 0xFFFF
	PSNMask        = 0xFFFFFF
	LNHRaw         = 0
	LNHIPv6        = 1
	LNHLocal       = 2
	LNHGlobal      = 3
	OpCNP          = 0x81
	CNPOpcodeClass = 0x80
)

// low24 is the 24-bit field in the last three octets of b[:4]: one load
// and one bounds check where three octet loads cost three of each (BTH's
// DestQP and PSN are read several times a packet).
func low24(b []byte) uint32 { return binary.BigEndian.Uint32(b) & 0xFFFFFF }

func put24(b []byte, v uint32) []byte { return append(b, byte(v>>16), byte(v>>8), byte(v)) }

// LRH is a view of the Local Route Header (native IB only):
//
//	| VL(4) LVer(4) | SL(4) Rsv(2) LNH(2) | DLID(16) |
//	| Rsv(5) PktLen(11)                   | SLID(16) |
type LRH []byte

func (h LRH) Valid() bool      { return len(h) >= LRHLen }
func (h LRH) VL() uint8        { return h[0] >> 4 }
func (h LRH) LVer() uint8      { return h[0] & 0x0F }
func (h LRH) SL() uint8        { return h[1] >> 4 }
func (h LRH) Reserved2() uint8 { return h[1] >> 2 & 3 }
func (h LRH) LNH() uint8       { return h[1] & 3 }
func (h LRH) DLID() uint16     { return binary.BigEndian.Uint16(h[2:]) }
func (h LRH) Reserved5() uint8 { return h[4] >> 3 }
func (h LRH) PktLen() uint16   { return binary.BigEndian.Uint16(h[4:]) & 0x7FF }
func (h LRH) SLID() uint16     { return binary.BigEndian.Uint16(h[6:]) }

// LRHFields is an LRH's content, for synthesis.
type LRHFields struct {
	VL, LVer, SL, LNH uint8
	DLID, SLID        uint16
	PktLen            uint16 // 4-octet words from LRH through ICRC
}

// Encode appends the 8-octet LRH to b.
func (f *LRHFields) Encode(b []byte) []byte {
	b = append(b, f.VL<<4|f.LVer&0xF, f.SL<<4|f.LNH&3)
	b = binary.BigEndian.AppendUint16(b, f.DLID)
	b = binary.BigEndian.AppendUint16(b, f.PktLen&0x7FF)
	return binary.BigEndian.AppendUint16(b, f.SLID)
}

// GRH is a view of the Global Route Header (IPv6-shaped, 40 octets).
type GRH []byte

func (h GRH) Valid() bool       { return len(h) >= GRHLen }
func (h GRH) IPVer() uint8      { return h[0] >> 4 }
func (h GRH) TClass() uint8     { return h[0]<<4 | h[1]>>4 }
func (h GRH) FlowLabel() uint32 { return binary.BigEndian.Uint32(h[0:]) & 0xFFFFF }
func (h GRH) PayLen() uint16    { return binary.BigEndian.Uint16(h[4:]) }
func (h GRH) NxtHdr() uint8     { return h[6] }
func (h GRH) HopLmt() uint8     { return h[7] }
func (h GRH) SGID() []byte      { return h[8:24] }
func (h GRH) DGID() []byte      { return h[24:40] }

// GRHFields is a GRH's content, for synthesis.
type GRHFields struct {
	TClass         uint8
	FlowLabel      uint32
	PayLen         uint16 // BTH through ICRC
	NxtHdr, HopLmt uint8
	SGID, DGID     [16]byte
}

// Encode appends the 40-octet GRH (IPVer 6) to b.
func (f *GRHFields) Encode(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, 6<<28|uint32(f.TClass)<<20|f.FlowLabel&0xFFFFF)
	b = binary.BigEndian.AppendUint16(b, f.PayLen)
	b = append(b, f.NxtHdr, f.HopLmt)
	b = append(b, f.SGID[:]...)
	return append(b, f.DGID[:]...)
}

// BTH is a view of the Base Transport Header:
//
//	| OpCode(8) | SE M Pad(2) TVer(4) | P_Key(16)    |
//	| F B Resv6 |       Destination QP (24)          |
//	| A Resv7   |       PSN (24)                     |
type BTH []byte

func (h BTH) Valid() bool          { return len(h) >= BTHLen }
func (h BTH) Opcode() uint8        { return h[0] }
func (h BTH) SE() bool             { return h[1]&0x80 != 0 }
func (h BTH) MigReq() bool         { return h[1]&0x40 != 0 }
func (h BTH) PadCnt() int          { return int(h[1] >> 4 & 3) }
func (h BTH) TVer() uint8          { return h[1] & 0x0F }
func (h BTH) PKey() uint16         { return binary.BigEndian.Uint16(h[2:]) }
func (h BTH) FECN() bool           { return h[4]&0x80 != 0 }
func (h BTH) BECN() bool           { return h[4]&0x40 != 0 }
func (h BTH) Resv6() uint8         { return h[4] & 0x3F }
func (h BTH) DestQP() uint32       { return low24(h[4:]) }
func (h BTH) AckReq() bool         { return h[8]&0x80 != 0 }
func (h BTH) Resv7() uint8         { return h[8] & 0x7F }
func (h BTH) PSN() uint32          { return low24(h[8:]) }
func (h BTH) Transport() Transport { return Transport(h[0] >> 5) }

// BTHFields is a BTH's content, for synthesis.
type BTHFields struct {
	Opcode       uint8
	SE, MigReq   bool
	PadCnt, TVer uint8
	PKey         uint16
	FECN, BECN   bool
	DestQP       uint32
	AckReq       bool
	PSN          uint32
	Resv6, Resv7 uint8 // normally 0
}

func bit(b bool, v uint8) uint8 {
	if b {
		return v
	}
	return 0
}

// Encode appends the 12-octet BTH to b.
func (f *BTHFields) Encode(b []byte) []byte {
	b = append(b, f.Opcode, bit(f.SE, 0x80)|bit(f.MigReq, 0x40)|(f.PadCnt&3)<<4|f.TVer&0xF)
	b = binary.BigEndian.AppendUint16(b, f.PKey)
	b = append(b, bit(f.FECN, 0x80)|bit(f.BECN, 0x40)|f.Resv6&0x3F)
	b = put24(b, f.DestQP)
	b = append(b, bit(f.AckReq, 0x80)|f.Resv7&0x7F)
	return put24(b, f.PSN)
}

// RDETH: reserved(8) EE-Context(24).
type RDETH []byte

func (h RDETH) Valid() bool       { return len(h) >= RDETHLen }
func (h RDETH) EEContext() uint32 { return low24(h) }

// RDETHFields is an RDETH's content.
type RDETHFields struct{ EEContext uint32 }

func (f *RDETHFields) Encode(b []byte) []byte { return put24(append(b, 0), f.EEContext) }

// DETH: Q_Key(32) reserved(8) Source QP(24).
type DETH []byte

func (h DETH) Valid() bool   { return len(h) >= DETHLen }
func (h DETH) QKey() uint32  { return binary.BigEndian.Uint32(h) }
func (h DETH) SrcQP() uint32 { return low24(h[4:]) }

// DETHFields is a DETH's content.
type DETHFields struct{ QKey, SrcQP uint32 }

func (f *DETHFields) Encode(b []byte) []byte {
	return put24(append(binary.BigEndian.AppendUint32(b, f.QKey), 0), f.SrcQP)
}

// XRCETH: reserved(8) XRC SRQ(24).
type XRCETH []byte

func (h XRCETH) Valid() bool    { return len(h) >= XRCETHLen }
func (h XRCETH) XRCSRQ() uint32 { return low24(h) }

// XRCETHFields is an XRCETH's content.
type XRCETHFields struct{ XRCSRQ uint32 }

func (f *XRCETHFields) Encode(b []byte) []byte { return put24(append(b, 0), f.XRCSRQ) }

// RETH: VA(64) R_Key(32) DMA Length(32).
type RETH []byte

func (h RETH) Valid() bool    { return len(h) >= RETHLen }
func (h RETH) VA() uint64     { return binary.BigEndian.Uint64(h) }
func (h RETH) RKey() uint32   { return binary.BigEndian.Uint32(h[8:]) }
func (h RETH) DMALen() uint32 { return binary.BigEndian.Uint32(h[12:]) }

// RETHFields is a RETH's content.
type RETHFields struct {
	VA           uint64
	RKey, DMALen uint32
}

func (f *RETHFields) Encode(b []byte) []byte {
	b = binary.BigEndian.AppendUint64(b, f.VA)
	b = binary.BigEndian.AppendUint32(b, f.RKey)
	return binary.BigEndian.AppendUint32(b, f.DMALen)
}

// AtomicETH: VA(64) R_Key(32) Swap/Add data(64) Compare data(64).
type AtomicETH []byte

func (h AtomicETH) Valid() bool     { return len(h) >= AtomicETHLen }
func (h AtomicETH) VA() uint64      { return binary.BigEndian.Uint64(h) }
func (h AtomicETH) RKey() uint32    { return binary.BigEndian.Uint32(h[8:]) }
func (h AtomicETH) SwapAdd() uint64 { return binary.BigEndian.Uint64(h[12:]) }
func (h AtomicETH) Compare() uint64 { return binary.BigEndian.Uint64(h[20:]) }

// AtomicETHFields is an AtomicETH's content.
type AtomicETHFields struct {
	VA               uint64
	RKey             uint32
	SwapAdd, Compare uint64
}

func (f *AtomicETHFields) Encode(b []byte) []byte {
	b = binary.BigEndian.AppendUint64(b, f.VA)
	b = binary.BigEndian.AppendUint32(b, f.RKey)
	b = binary.BigEndian.AppendUint64(b, f.SwapAdd)
	return binary.BigEndian.AppendUint64(b, f.Compare)
}

// AETH syndrome kinds (bits 6..5).
const (
	AckKindACK      = 0
	AckKindRNRNAK   = 1
	AckKindReserved = 2
	AckKindNAK      = 3
)

// NAK codes (syndrome bits 4..0 when the kind is NAK).
const (
	NAKPSNSeqError     = 0
	NAKInvalidRequest  = 1
	NAKRemoteAccess    = 2
	NAKRemoteOperation = 3
	NAKInvalidRD       = 4
)

// AETH: Syndrome(8) MSN(24).
type AETH []byte

func (h AETH) Valid() bool     { return len(h) >= AETHLen }
func (h AETH) Syndrome() uint8 { return h[0] }
func (h AETH) MSN() uint32     { return low24(h) }

// Kind is the syndrome's bits 6..5: AckKindACK, AckKindRNRNAK, AckKindReserved, AckKindNAK.
func (h AETH) Kind() uint8 { return h[0] >> 5 & 3 }

// Value is the syndrome's low 5 bits: credit count (ACK), RNR timer (RNR NAK) or NAK code.
func (h AETH) Value() uint8   { return h[0] & 0x1F }
func (h AETH) Reserved() bool { return h[0]&0x80 != 0 }

// AETHFields is an AETH's content.
type AETHFields struct {
	Syndrome uint8
	MSN      uint32
}

func (f *AETHFields) Encode(b []byte) []byte { return put24(append(b, f.Syndrome), f.MSN) }

// AtomicAckETH: original remote data(64).
type AtomicAckETH []byte

func (h AtomicAckETH) Valid() bool      { return len(h) >= AtomicAckETHLen }
func (h AtomicAckETH) OrigData() uint64 { return binary.BigEndian.Uint64(h) }

// AtomicAckETHFields is an AtomicAckETH's content.
type AtomicAckETHFields struct{ OrigData uint64 }

func (f *AtomicAckETHFields) Encode(b []byte) []byte {
	return binary.BigEndian.AppendUint64(b, f.OrigData)
}

// ImmDt: 32 bits of immediate data.
type ImmDt []byte

func (h ImmDt) Valid() bool   { return len(h) >= ImmDtLen }
func (h ImmDt) Value() uint32 { return binary.BigEndian.Uint32(h) }

// IETH: the R_Key to invalidate.
type IETH []byte

func (h IETH) Valid() bool  { return len(h) >= IETHLen }
func (h IETH) RKey() uint32 { return binary.BigEndian.Uint32(h) }

// FETH: FLUSH extended header (placement type, selectivity level).
type FETH []byte

func (h FETH) Valid() bool          { return len(h) >= FETHLen }
func (h FETH) Value() uint32        { return binary.BigEndian.Uint32(h) }
func (h FETH) PlacementType() uint8 { return uint8(h.Value() & 0x0F) }
func (h FETH) Selectivity() uint8   { return uint8(h.Value() >> 4 & 3) }

// Uint32Fields encodes a 4-octet header holding one value (ImmDt, IETH, FETH).
type Uint32Fields struct{ Value uint32 }

func (f *Uint32Fields) Encode(b []byte) []byte { return binary.BigEndian.AppendUint32(b, f.Value) }
