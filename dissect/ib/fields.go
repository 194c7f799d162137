package ib

import . "github.com/rdx-project/rdx/dissect"

// Status values of infiniband.icrc.status and infiniband.vcrc.status.
const (
	CRCUnverified = 0
	CRCGood       = 1
	CRCBad        = 2
)

var crcStatusNames = map[uint64]string{CRCUnverified: "unverified", CRCGood: "good", CRCBad: "bad"}

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
	PIB = RegisterProto("infiniband", "InfiniBand", "native IB (link types 247, ERF 197), RoCEv1 (EtherType 0x8915), RoCEv2 (UDP 4791)")

	fEncap = Register(&Field{Abbrev: "infiniband.encap", Name: "Encapsulation", Type: TUint8, Names: encapNames, Desc: "how the IB packet was carried (rdx)"})

	// LRH.
	fLRH       = Register(&Field{Abbrev: "infiniband.lrh", Name: "Local Route Header", Type: TBytes})
	fLRHVL     = Register(&Field{Abbrev: "infiniband.lrh.vl", Name: "Virtual Lane", Type: TUint8, Mask: 0xF0, Bits: 8})
	fLRHLVer   = Register(&Field{Abbrev: "infiniband.lrh.lver", Name: "Link Version", Type: TUint8, Mask: 0x0F, Bits: 8})
	fLRHSL     = Register(&Field{Abbrev: "infiniband.lrh.sl", Name: "Service Level", Type: TUint8, Mask: 0xF0, Bits: 8})
	fLRHRsv2   = Register(&Field{Abbrev: "infiniband.lrh.reserved2", Name: "Reserved (2 bits)", Type: TUint8, Mask: 0x0C, Bits: 8})
	fLRHLNH    = Register(&Field{Abbrev: "infiniband.lrh.lnh", Name: "Link Next Header", Type: TUint8, Mask: 0x03, Bits: 8, Names: lnhNames})
	fLRHDLID   = Register(&Field{Abbrev: "infiniband.lrh.dlid", Name: "Destination Local ID", Type: TUint16})
	fLRHRsv5   = Register(&Field{Abbrev: "infiniband.lrh.reserved5", Name: "Reserved (5 bits)", Type: TUint16, Mask: 0xF800, Bits: 16})
	fLRHPktLen = Register(&Field{Abbrev: "infiniband.lrh.pktlen", Name: "Packet Length", Type: TUint16, Mask: 0x07FF, Bits: 16, Desc: "4-octet words from the LRH through the ICRC"})
	fLRHSLID   = Register(&Field{Abbrev: "infiniband.lrh.slid", Name: "Source Local ID", Type: TUint16})

	// GRH.
	fGRH       = Register(&Field{Abbrev: "infiniband.grh", Name: "Global Route Header", Type: TBytes})
	fGRHIPVer  = Register(&Field{Abbrev: "infiniband.grh.ipver", Name: "IP Version", Type: TUint8})
	fGRHTClass = Register(&Field{Abbrev: "infiniband.grh.tclass", Name: "Traffic Class", Type: TUint8})
	fGRHFlow   = Register(&Field{Abbrev: "infiniband.grh.flowlabel", Name: "Flow Label", Type: TUint32})
	fGRHPayLen = Register(&Field{Abbrev: "infiniband.grh.paylen", Name: "Payload Length", Type: TUint16})
	fGRHNxtHdr = Register(&Field{Abbrev: "infiniband.grh.nxthdr", Name: "Next Header", Type: TUint8})
	fGRHHopLmt = Register(&Field{Abbrev: "infiniband.grh.hoplmt", Name: "Hop Limit", Type: TUint8})
	fGRHSGID   = Register(&Field{Abbrev: "infiniband.grh.sgid", Name: "Source GID", Type: TIPv6})
	fGRHDGID   = Register(&Field{Abbrev: "infiniband.grh.dgid", Name: "Destination GID", Type: TIPv6})

	// BTH.
	fBTH       = Register(&Field{Abbrev: "infiniband.bth", Name: "Base Transport Header", Type: TBytes})
	fOpcode    = Register(&Field{Abbrev: "infiniband.bth.opcode", Name: "Opcode", Type: TUint8, Names: opcodeNames})
	fSE        = Register(&Field{Abbrev: "infiniband.bth.se", Name: "Solicited Event", Type: TBool, Mask: 0x80, Bits: 8})
	fMigReq    = Register(&Field{Abbrev: "infiniband.bth.m", Name: "MigReq", Type: TBool, Mask: 0x40, Bits: 8})
	fPadCnt    = Register(&Field{Abbrev: "infiniband.bth.padcnt", Name: "Pad Count", Type: TUint8, Mask: 0x30, Bits: 8})
	fTVer      = Register(&Field{Abbrev: "infiniband.bth.tver", Name: "Header Version", Type: TUint8, Mask: 0x0F, Bits: 8})
	fPKey      = Register(&Field{Abbrev: "infiniband.bth.p_key", Name: "Partition Key", Type: TUint16})
	fFECN      = Register(&Field{Abbrev: "infiniband.bth.fecn", Name: "Forward ECN", Type: TBool, Mask: 0x80, Bits: 8, Desc: "congestion seen on the way to the destination (tshark 4.0 shows the octet as Reserved)"})
	fBECN      = Register(&Field{Abbrev: "infiniband.bth.becn", Name: "Backward ECN", Type: TBool, Mask: 0x40, Bits: 8, Desc: "set in CNPs: the receiver saw congestion"})
	fResv6     = Register(&Field{Abbrev: "infiniband.bth.reserved6", Name: "Reserved (6 bits)", Type: TUint8, Mask: 0x3F, Bits: 8})
	fDestQP    = Register(&Field{Abbrev: "infiniband.bth.destqp", Name: "Destination Queue Pair", Type: TUint24, Base: BaseHex})
	fAckReq    = Register(&Field{Abbrev: "infiniband.bth.a", Name: "Acknowledge Request", Type: TBool, Mask: 0x80, Bits: 8})
	fResv7     = Register(&Field{Abbrev: "infiniband.bth.reserved7", Name: "Reserved (7 bits)", Type: TUint8, Mask: 0x7F, Bits: 8})
	fPSN       = Register(&Field{Abbrev: "infiniband.bth.psn", Name: "Packet Sequence Number", Type: TUint24})
	fTransport = Register(&Field{Abbrev: "infiniband.bth.transport", Name: "Transport", Type: TString, Desc: "opcode class: RC, UC, RD, UD, CNP, XRC (rdx)"})

	// Extended headers.
	fRDETH     = Register(&Field{Abbrev: "infiniband.rdeth", Name: "Reliable Datagram Extended Transport Header", Type: TBytes})
	fEECnxt    = Register(&Field{Abbrev: "infiniband.rdeth.eecnxt", Name: "E2E Context", Type: TUint24})
	fDETH      = Register(&Field{Abbrev: "infiniband.deth", Name: "Datagram Extended Transport Header", Type: TBytes})
	fQKey      = Register(&Field{Abbrev: "infiniband.deth.q_key", Name: "Queue Key", Type: TUint32, Base: BaseHex})
	fSrcQP     = Register(&Field{Abbrev: "infiniband.deth.srcqp", Name: "Source Queue Pair", Type: TUint24, Base: BaseHex})
	fXRCETH    = Register(&Field{Abbrev: "infiniband.xrceth", Name: "XRC Extended Transport Header", Type: TBytes})
	fXRCSRQ    = Register(&Field{Abbrev: "infiniband.xrceth.xrcsrq", Name: "XRC Shared Receive Queue", Type: TUint24, Base: BaseHex})
	fRETH      = Register(&Field{Abbrev: "infiniband.reth", Name: "RDMA Extended Transport Header", Type: TBytes})
	fRETHVA    = Register(&Field{Abbrev: "infiniband.reth.va", Name: "Virtual Address", Type: TUint64, Base: BaseHex})
	fRETHRKey  = Register(&Field{Abbrev: "infiniband.reth.r_key", Name: "Remote Key", Type: TUint32, Base: BaseHex})
	fRETHLen   = Register(&Field{Abbrev: "infiniband.reth.dmalen", Name: "DMA Length", Type: TUint32})
	fAtomicETH = Register(&Field{Abbrev: "infiniband.atomiceth", Name: "Atomic Extended Transport Header", Type: TBytes})
	fAtVA      = Register(&Field{Abbrev: "infiniband.atomiceth.va", Name: "Virtual Address", Type: TUint64, Base: BaseHex})
	fAtRKey    = Register(&Field{Abbrev: "infiniband.atomiceth.r_key", Name: "Remote Key", Type: TUint32, Base: BaseHex})
	fAtSwap    = Register(&Field{Abbrev: "infiniband.atomiceth.swap_or_add_data", Name: "Swap (Or Add) Data", Type: TUint64, Base: BaseHex})
	fAtCmp     = Register(&Field{Abbrev: "infiniband.atomiceth.compare_data", Name: "Compare Data", Type: TUint64, Base: BaseHex})
	fAETH      = Register(&Field{Abbrev: "infiniband.aeth", Name: "ACK Extended Transport Header", Type: TBytes})
	fSyndrome  = Register(&Field{Abbrev: "infiniband.aeth.syndrome", Name: "Syndrome", Type: TUint8})
	fSynRsv    = Register(&Field{Abbrev: "infiniband.aeth.syndrome.reserved", Name: "Reserved", Type: TUint8, Mask: 0x80, Bits: 8})
	fSynKind   = Register(&Field{Abbrev: "infiniband.aeth.syndrome.opcode", Name: "OpCode", Type: TUint8, Mask: 0x60, Bits: 8, Names: aethKindNames})
	fSynCredit = Register(&Field{Abbrev: "infiniband.aeth.syndrome.credit_count", Name: "Credit Count", Type: TUint8, Mask: 0x1F, Bits: 8, Desc: "ACK: credit code (31 = invalid/unlimited)"})
	fSynTimer  = Register(&Field{Abbrev: "infiniband.aeth.syndrome.timer", Name: "RNR NAK Timer", Type: TUint8, Mask: 0x1F, Bits: 8})
	fSynNAK    = Register(&Field{Abbrev: "infiniband.aeth.syndrome.error_code", Name: "NAK Code", Type: TUint8, Mask: 0x1F, Bits: 8, Names: nakCodeNames, Desc: "NAK: the NAK code (tshark names the field error_code)"})
	fMSN       = Register(&Field{Abbrev: "infiniband.aeth.msn", Name: "Message Sequence Number", Type: TUint24})
	fAtAck     = Register(&Field{Abbrev: "infiniband.atomicacketh", Name: "Atomic ACK Extended Transport Header", Type: TBytes})
	fAtOrig    = Register(&Field{Abbrev: "infiniband.atomicacketh.orig_rem_dt", Name: "Original Remote Data", Type: TUint64, Base: BaseHex})
	fImmDt     = Register(&Field{Abbrev: "infiniband.immdt", Name: "Immediate Data", Type: TUint32, Base: BaseHex})
	fIETH      = Register(&Field{Abbrev: "infiniband.ieth", Name: "RKey", Type: TUint32, Base: BaseHex})
	fFETH      = Register(&Field{Abbrev: "infiniband.feth", Name: "FLUSH Extended Transport Header", Type: TUint32, Base: BaseHex})
	fCNPRsv    = Register(&Field{Abbrev: "infiniband.cnp.reserved", Name: "CNP Reserved", Type: TBytes})
	fPayload   = Register(&Field{Abbrev: "infiniband.payload", Name: "Payload", Type: TBytes})
	fPayLen    = Register(&Field{Abbrev: "infiniband.payload.len", Name: "Payload length", Type: TUint32})
	fPad       = Register(&Field{Abbrev: "infiniband.pad", Name: "Pad", Type: TBytes})

	// CRCs.
	fICRC        = Register(&Field{Abbrev: "infiniband.invariant.crc", Name: "Invariant CRC", Type: TUint32, Base: BaseHex, Desc: "the 4 ICRC octets read big-endian, as tshark shows them (the CRC itself is sent least significant octet first)"})
	fICRCCalc    = Register(&Field{Abbrev: "infiniband.icrc.computed", Name: "Computed ICRC", Type: TUint32, Base: BaseHex, Desc: "in the same octet order as infiniband.invariant.crc"})
	fICRCStatus  = Register(&Field{Abbrev: "infiniband.icrc.status", Name: "ICRC status", Type: TUint8, Names: crcStatusNames})
	fVCRC        = Register(&Field{Abbrev: "infiniband.variant.crc", Name: "Variant CRC", Type: TUint16, Base: BaseHex})
	fVCRCCalc    = Register(&Field{Abbrev: "infiniband.vcrc.computed", Name: "Computed VCRC", Type: TUint16, Base: BaseHex})
	fVCRCStatus  = Register(&Field{Abbrev: "infiniband.vcrc.status", Name: "VCRC status", Type: TUint8, Names: crcStatusNames})
	fVCRCSwapped = Register(&Field{Abbrev: "infiniband.vcrc.swapped", Name: "VCRC octets in swapped order", Type: TBool, Desc: "the VCRC matched only with its octets swapped"})

	// ERF.
	fERFType  = Register(&Field{Abbrev: "infiniband.erf.type", Name: "ERF record type", Type: TUint8})
	fERFFlags = Register(&Field{Abbrev: "infiniband.erf.flags", Name: "ERF flags", Type: TUint8, Base: BaseHex})
	fERFRlen  = Register(&Field{Abbrev: "infiniband.erf.rlen", Name: "ERF record length", Type: TUint16})
	fERFWlen  = Register(&Field{Abbrev: "infiniband.erf.wlen", Name: "ERF wire length", Type: TUint16})

	// Analysis.
	fPSNExpected = Register(&Field{Abbrev: "infiniband.analysis.psn_expected", Name: "Expected PSN", Type: TUint24, Desc: "next PSN expected on this direction and QP when this packet broke the order"})
)
