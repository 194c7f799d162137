package ib

import "github.com/rdx-project/rdx/dissect"

// Encapsulations (infiniband.encap).
const (
	EncRoCEv2 = 1
	EncRoCEv1 = 2
	EncNative = 3
)

var encapNames = map[uint64]string{EncRoCEv2: "RoCEv2 (UDP)", EncRoCEv1: "RoCEv1 (EtherType 0x8915)", EncNative: "native InfiniBand"}

var lnhNames = map[uint64]string{0: "Raw Header (RWH)", 1: "IP Non-IBA Transport (IPv6)", 2: "Local (IBA transport, no GRH)", 3: "Global (GRH follows)"}

var aethKindNames = map[uint64]string{0: "ACK", 1: "RNR NAK", 2: "Reserved", 3: "NAK"}

var nakCodeNames = map[uint64]string{0: "PSN Sequence Error", 1: "Invalid Request", 2: "Remote Access Error", 3: "Remote Operational Error", 4: "Invalid RD Request"}

var opcodeNames = func() map[uint64]string {
	m := map[uint64]string{}
	for op := range Ops {
		if Ops[op].Known {
			m[uint64(op)] = Ops[op].Transport.String() + " " + Ops[op].Name
		}
	}
	return m
}()

var (
	PIB = dissect.RegisterProto("infiniband", "InfiniBand", "native IB (link types 247, ERF 197), RoCEv1 (EtherType 0x8915), RoCEv2 (UDP 4791)")

	fEncap = dissect.Register(&dissect.Field{Abbrev: "infiniband.encap", Name: "Encapsulation", Type: dissect.TUint8, Names: encapNames, Desc: "how the IB packet was carried (rdx)"})

	// LRH.
	fLRH       = dissect.Register(&dissect.Field{Abbrev: "infiniband.lrh", Name: "Local Route Header", Type: dissect.TBytes})
	fLRHVL     = dissect.Register(&dissect.Field{Abbrev: "infiniband.lrh.vl", Name: "Virtual Lane", Type: dissect.TUint8, Base: dissect.BaseHex, Mask: 0xF0, Bits: 8})
	fLRHLVer   = dissect.Register(&dissect.Field{Abbrev: "infiniband.lrh.lver", Name: "Link Version", Type: dissect.TUint8, Mask: 0x0F, Bits: 8})
	fLRHSL     = dissect.Register(&dissect.Field{Abbrev: "infiniband.lrh.sl", Name: "Service Level", Type: dissect.TUint8, Mask: 0xF0, Bits: 8})
	fLRHRsv2   = dissect.Register(&dissect.Field{Abbrev: "infiniband.lrh.reserved2", Name: "Reserved (2 bits)", Type: dissect.TUint8, Mask: 0x0C, Bits: 8})
	fLRHLNH    = dissect.Register(&dissect.Field{Abbrev: "infiniband.lrh.lnh", Name: "Link Next Header", Type: dissect.TUint8, Base: dissect.BaseHex, Mask: 0x03, Bits: 8, Names: lnhNames})
	fLRHDLID   = dissect.Register(&dissect.Field{Abbrev: "infiniband.lrh.dlid", Name: "Destination Local ID", Type: dissect.TUint16})
	fLRHRsv5   = dissect.Register(&dissect.Field{Abbrev: "infiniband.lrh.reserved5", Name: "Reserved (5 bits)", Type: dissect.TUint16, Mask: 0xF800, Bits: 16})
	fLRHPktLen = dissect.Register(&dissect.Field{Abbrev: "infiniband.lrh.pktlen", Name: "Packet Length", Type: dissect.TUint16, Mask: 0x07FF, Bits: 16, Desc: "4-octet words from the LRH through the ICRC"})
	fLRHSLID   = dissect.Register(&dissect.Field{Abbrev: "infiniband.lrh.slid", Name: "Source Local ID", Type: dissect.TUint16})

	// GRH.
	fGRH       = dissect.Register(&dissect.Field{Abbrev: "infiniband.grh", Name: "Global Route Header", Type: dissect.TBytes})
	fGRHIPVer  = dissect.Register(&dissect.Field{Abbrev: "infiniband.grh.ipver", Name: "IP Version", Type: dissect.TUint8})
	fGRHTClass = dissect.Register(&dissect.Field{Abbrev: "infiniband.grh.tclass", Name: "Traffic Class", Type: dissect.TUint16})
	fGRHFlow   = dissect.Register(&dissect.Field{Abbrev: "infiniband.grh.flowlabel", Name: "Flow Label", Type: dissect.TUint32})
	fGRHPayLen = dissect.Register(&dissect.Field{Abbrev: "infiniband.grh.paylen", Name: "Payload Length", Type: dissect.TUint16})
	fGRHNxtHdr = dissect.Register(&dissect.Field{Abbrev: "infiniband.grh.nxthdr", Name: "Next Header", Type: dissect.TUint8})
	fGRHHopLmt = dissect.Register(&dissect.Field{Abbrev: "infiniband.grh.hoplmt", Name: "Hop Limit", Type: dissect.TUint8})
	fGRHSGID   = dissect.Register(&dissect.Field{Abbrev: "infiniband.grh.sgid", Name: "Source GID", Type: dissect.TIPv6})
	fGRHDGID   = dissect.Register(&dissect.Field{Abbrev: "infiniband.grh.dgid", Name: "Destination GID", Type: dissect.TIPv6})

	// BTH.
	fBTH       = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth", Name: "Base Transport Header", Type: dissect.TBytes})
	fOpcode    = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.opcode", Name: "Opcode", Type: dissect.TUint8, Names: opcodeNames})
	fSE        = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.se", Name: "Solicited Event", Type: dissect.TBool, Mask: 0x80, Bits: 8})
	fMigReq    = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.m", Name: "MigReq", Type: dissect.TBool, Mask: 0x40, Bits: 8})
	fPadCnt    = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.padcnt", Name: "Pad Count", Type: dissect.TUint8, Mask: 0x30, Bits: 8})
	fTVer      = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.tver", Name: "Header Version", Type: dissect.TUint8, Mask: 0x0F, Bits: 8})
	fPKey      = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.p_key", Name: "Partition Key", Type: dissect.TUint16})
	fFECN      = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.fecn", Name: "Forward ECN", Type: dissect.TBool, Mask: 0x80, Bits: 8, Desc: "congestion seen on the way to the destination (tshark 4.0 shows the octet as Reserved)"})
	fBECN      = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.becn", Name: "Backward ECN", Type: dissect.TBool, Mask: 0x40, Bits: 8, Desc: "set in CNPs: the receiver saw congestion"})
	fResv6     = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.reserved6", Name: "Reserved (6 bits)", Type: dissect.TUint8, Mask: 0x3F, Bits: 8})
	fDestQP    = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.destqp", Name: "Destination Queue Pair", Type: dissect.TUint24, Base: dissect.BaseHex})
	fAckReq    = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.a", Name: "Acknowledge Request", Type: dissect.TBool, Mask: 0x80, Bits: 8})
	fResv7     = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.reserved7", Name: "Reserved (7 bits)", Type: dissect.TUint8, Mask: 0x7F, Bits: 8})
	fPSN       = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.psn", Name: "Packet Sequence Number", Type: dissect.TUint24})
	fTransport = dissect.Register(&dissect.Field{Abbrev: "infiniband.bth.transport", Name: "Transport", Type: dissect.TString, Desc: "opcode class: RC, UC, RD, UD, CNP, XRC (rdx)"})

	// Extended headers.
	fRDETH     = dissect.Register(&dissect.Field{Abbrev: "infiniband.rdeth", Name: "Reliable Datagram Extended Transport Header", Type: dissect.TBytes})
	fEECnxt    = dissect.Register(&dissect.Field{Abbrev: "infiniband.rdeth.eecnxt", Name: "E2E Context", Type: dissect.TUint24})
	fDETH      = dissect.Register(&dissect.Field{Abbrev: "infiniband.deth", Name: "Datagram Extended Transport Header", Type: dissect.TBytes})
	fQKey      = dissect.Register(&dissect.Field{Abbrev: "infiniband.deth.q_key", Name: "Queue Key", Type: dissect.TUint64, Base: dissect.BaseHex})
	fSrcQP     = dissect.Register(&dissect.Field{Abbrev: "infiniband.deth.srcqp", Name: "Source Queue Pair", Type: dissect.TUint32, Base: dissect.BaseHex})
	fXRCETH    = dissect.Register(&dissect.Field{Abbrev: "infiniband.xrceth", Name: "XRC Extended Transport Header", Type: dissect.TBytes})
	fXRCSRQ    = dissect.Register(&dissect.Field{Abbrev: "infiniband.xrceth.xrcsrq", Name: "XRC Shared Receive Queue", Type: dissect.TUint24, Base: dissect.BaseHex})
	fRETH      = dissect.Register(&dissect.Field{Abbrev: "infiniband.reth", Name: "RDMA Extended Transport Header", Type: dissect.TBytes})
	fRETHVA    = dissect.Register(&dissect.Field{Abbrev: "infiniband.reth.va", Name: "Virtual Address", Type: dissect.TUint64, Base: dissect.BaseHex})
	fRETHRKey  = dissect.Register(&dissect.Field{Abbrev: "infiniband.reth.r_key", Name: "Remote Key", Type: dissect.TUint32, Base: dissect.BaseHex})
	fRETHLen   = dissect.Register(&dissect.Field{Abbrev: "infiniband.reth.dmalen", Name: "DMA Length", Type: dissect.TUint32, Base: dissect.BaseDecHex})
	fAtomicETH = dissect.Register(&dissect.Field{Abbrev: "infiniband.atomiceth", Name: "Atomic Extended Transport Header", Type: dissect.TBytes})
	// The AtomicETH's VA and R_Key are the RETH's fields, as in Wireshark.
	fAtSwap    = dissect.Register(&dissect.Field{Abbrev: "infiniband.atomiceth.swapdt", Name: "Swap (Or Add) Data", Type: dissect.TUint64})
	fAtCmp     = dissect.Register(&dissect.Field{Abbrev: "infiniband.atomiceth.cmpdt", Name: "Compare Data", Type: dissect.TUint64})
	fAETH      = dissect.Register(&dissect.Field{Abbrev: "infiniband.aeth", Name: "ACK Extended Transport Header", Type: dissect.TBytes})
	fSyndrome  = dissect.Register(&dissect.Field{Abbrev: "infiniband.aeth.syndrome", Name: "Syndrome", Type: dissect.TUint8})
	fSynRsv    = dissect.Register(&dissect.Field{Abbrev: "infiniband.aeth.syndrome.reserved", Name: "Reserved", Type: dissect.TUint8, Mask: 0x80, Bits: 8})
	fSynKind   = dissect.Register(&dissect.Field{Abbrev: "infiniband.aeth.syndrome.opcode", Name: "OpCode", Type: dissect.TUint8, Mask: 0x60, Bits: 8, Names: aethKindNames})
	fSynCredit = dissect.Register(&dissect.Field{Abbrev: "infiniband.aeth.syndrome.credit_count", Name: "Credit Count", Type: dissect.TUint8, Mask: 0x1F, Bits: 8, Desc: "ACK: credit code (31 = invalid/unlimited)"})
	fSynTimer  = dissect.Register(&dissect.Field{Abbrev: "infiniband.aeth.syndrome.timer", Name: "RNR NAK Timer", Type: dissect.TUint8, Mask: 0x1F, Bits: 8})
	fSynNAK    = dissect.Register(&dissect.Field{Abbrev: "infiniband.aeth.syndrome.error_code", Name: "NAK Code", Type: dissect.TUint8, Mask: 0x1F, Bits: 8, Names: nakCodeNames, Desc: "NAK: the NAK code (tshark names the field error_code)"})
	fMSN       = dissect.Register(&dissect.Field{Abbrev: "infiniband.aeth.msn", Name: "Message Sequence Number", Type: dissect.TUint24})
	fAtAck     = dissect.Register(&dissect.Field{Abbrev: "infiniband.atomicacketh", Name: "Atomic ACK Extended Transport Header", Type: dissect.TBytes})
	fAtOrig    = dissect.Register(&dissect.Field{Abbrev: "infiniband.atomicacketh.origremdt", Name: "Original Remote Data", Type: dissect.TUint64})
	fImmDt     = dissect.Register(&dissect.Field{Abbrev: "infiniband.immdt", Name: "Immediate Data", Type: dissect.TBytes})
	fIETH      = dissect.Register(&dissect.Field{Abbrev: "infiniband.ieth", Name: "RKey", Type: dissect.TBytes})
	fFETH      = dissect.Register(&dissect.Field{Abbrev: "infiniband.feth", Name: "FLUSH Extended Transport Header", Type: dissect.TUint32, Base: dissect.BaseHex})
	fCNPRsv    = dissect.Register(&dissect.Field{Abbrev: "infiniband.cnp.reserved", Name: "CNP Reserved", Type: dissect.TBytes})
	fPayload   = dissect.Register(&dissect.Field{Abbrev: "infiniband.payload", Name: "Payload", Type: dissect.TBytes})
	// IP over InfiniBand's encapsulation header, as tshark names it.
	fIPoIBType = dissect.Register(&dissect.Field{Abbrev: "infiniband.rwh.etype", Name: "Ethertype", Type: dissect.TUint16, Base: dissect.BaseHex})
	fIPoIBRsv  = dissect.Register(&dissect.Field{Abbrev: "infiniband.reserved", Name: "Reserved", Type: dissect.TBytes})
	fPayLen    = dissect.Register(&dissect.Field{Abbrev: "infiniband.payload.len", Name: "Payload length", Type: dissect.TUint32})
	fPad       = dissect.Register(&dissect.Field{Abbrev: "infiniband.pad", Name: "Pad", Type: dissect.TBytes})

	// CRCs.
	fICRC        = dissect.Register(&dissect.Field{Abbrev: "infiniband.invariant.crc", Name: "Invariant CRC", Type: dissect.TUint32, Base: dissect.BaseHex, Desc: "the 4 ICRC octets read big-endian, as tshark shows them (the CRC itself is sent least significant octet first)"})
	fICRCCalc    = dissect.Register(&dissect.Field{Abbrev: "infiniband.icrc.computed", Name: "Computed ICRC", Type: dissect.TUint32, Base: dissect.BaseHex, Desc: "in the same octet order as infiniband.invariant.crc"})
	fICRCStatus  = dissect.Register(&dissect.Field{Abbrev: "infiniband.icrc.status", Name: "ICRC status", Type: dissect.TUint8, Names: dissect.StatusNames})
	fVCRC        = dissect.Register(&dissect.Field{Abbrev: "infiniband.variant.crc", Name: "Variant CRC", Type: dissect.TUint16, Base: dissect.BaseHex})
	fVCRCCalc    = dissect.Register(&dissect.Field{Abbrev: "infiniband.vcrc.computed", Name: "Computed VCRC", Type: dissect.TUint16, Base: dissect.BaseHex})
	fVCRCStatus  = dissect.Register(&dissect.Field{Abbrev: "infiniband.vcrc.status", Name: "VCRC status", Type: dissect.TUint8, Names: dissect.StatusNames})
	fVCRCSwapped = dissect.Register(&dissect.Field{Abbrev: "infiniband.vcrc.swapped", Name: "VCRC octets in swapped order", Type: dissect.TBool, Desc: "the VCRC matched only with its octets swapped"})

	// ERF: the record header before a native IB packet, its own protocol
	// as in tshark (frame.protocols erf:infiniband).
	PERF          = dissect.RegisterProto("erf", "Extensible Record Format", "ERF record header (LINKTYPE_ERF 197; InfiniBand records are dissected)")
	fERFTS        = dissect.Register(&dissect.Field{Abbrev: "erf.ts", Name: "Timestamp", Type: dissect.TUint64, Base: dissect.BaseHex})
	fERFTypes     = dissect.Register(&dissect.Field{Abbrev: "erf.types", Name: "Record type", Type: dissect.TUint8, Base: dissect.BaseHex})
	fERFType      = dissect.Register(&dissect.Field{Abbrev: "erf.types.type", Name: "Type", Type: dissect.TUint8, Mask: 0x7F, Bits: 8, Names: map[uint64]string{21: "INFINIBAND"}})
	fERFExt       = dissect.Register(&dissect.Field{Abbrev: "erf.types.ext_header", Name: "Extension header present", Type: dissect.TUint8, Mask: 0x80, Bits: 8})
	fERFFlags     = dissect.Register(&dissect.Field{Abbrev: "erf.flags", Name: "Flags", Type: dissect.TUint8, Base: dissect.BaseHex})
	fERFFlagCap   = dissect.Register(&dissect.Field{Abbrev: "erf.flags.cap", Name: "Capture interface", Type: dissect.TUint8, Mask: 0x03, Bits: 8})
	fERFFlagVlen  = dissect.Register(&dissect.Field{Abbrev: "erf.flags.vlen", Name: "Varying record length", Type: dissect.TUint8, Mask: 0x04, Bits: 8})
	fERFFlagTrunc = dissect.Register(&dissect.Field{Abbrev: "erf.flags.trunc", Name: "Truncated", Type: dissect.TUint8, Mask: 0x08, Bits: 8})
	fERFFlagRxe   = dissect.Register(&dissect.Field{Abbrev: "erf.flags.rxe", Name: "RX error", Type: dissect.TUint8, Mask: 0x10, Bits: 8})
	fERFFlagDse   = dissect.Register(&dissect.Field{Abbrev: "erf.flags.dse", Name: "DS error", Type: dissect.TUint8, Mask: 0x20, Bits: 8})
	fERFFlagRes   = dissect.Register(&dissect.Field{Abbrev: "erf.flags.res", Name: "Reserved", Type: dissect.TUint8, Base: dissect.BaseHex, Mask: 0xC0, Bits: 8})
	fERFRlen      = dissect.Register(&dissect.Field{Abbrev: "erf.rlen", Name: "Record length", Type: dissect.TUint16})
	fERFLctr      = dissect.Register(&dissect.Field{Abbrev: "erf.lctr", Name: "Loss counter", Type: dissect.TUint16})
	fERFWlen      = dissect.Register(&dissect.Field{Abbrev: "erf.wlen", Name: "Wire length", Type: dissect.TUint16})

	// Analysis.
	fPSNExpected = dissect.Register(&dissect.Field{Abbrev: "infiniband.analysis.psn_expected", Name: "Expected PSN", Type: dissect.TUint24, Desc: "next PSN expected on this direction and QP when this packet broke the order"})
)
