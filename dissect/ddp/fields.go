package ddp

import "github.com/rdx-project/rdx/dissect"

// RDMAP opcodes (RFC 5040 §4.3, RFC 7306 §4).
const (
	OpWrite        = 0x0
	OpReadRequest  = 0x1
	OpReadResponse = 0x2
	OpSend         = 0x3
	OpSendInv      = 0x4
	OpSendSE       = 0x5
	OpSendSEInv    = 0x6
	OpTerminate    = 0x7
	OpImmediate    = 0x8
	OpImmediateSE  = 0x9
	OpAtomicReq    = 0xa
	OpAtomicResp   = 0xb
)

var opNames = map[uint64]string{0: "Write", 1: "Read Request", 2: "Read Response", 3: "Send", 4: "Send with Invalidate",
	5: "Send with SE", 6: "Send with SE and Invalidate", 7: "Terminate", 8: "Immediate Data", 9: "Immediate Data with SE",
	10: "Atomic Request", 11: "Atomic Response"}

var layerNames = map[uint64]string{0: "RDMA", 1: "DDP", 2: "LLP"}

var rdmaEtype = map[uint64]string{0: "Local Catastrophic", 1: "Remote Protection", 2: "Remote Operation"}
var ddpEtype = map[uint64]string{0: "Local Catastrophic", 1: "Tagged Buffer", 2: "Untagged Buffer", 3: "Rsvd"}
var llpEtype = map[uint64]string{0: "MPA"}

var rdmaErr = map[uint64]string{0: "Invalid STag", 1: "Base or bounds violation", 2: "Access rights violation",
	3: "STag not associated with RDMAP Stream", 4: "TO wrap", 5: "Invalid RDMAP version", 6: "Unexpected OpCode",
	7: "Catastrophic error, localized to RDMAP Stream", 8: "Catastrophic error, global", 9: "STag cannot be invalidated",
	0xff: "General Error"}
var ddpTagErr = map[uint64]string{0: "Invalid STag", 1: "Base or bounds violation", 2: "STag not associated with DDP Stream",
	3: "TO wrap", 4: "Invalid DDP version"}
var ddpUntagErr = map[uint64]string{1: "Invalid QN", 2: "Invalid MSN - no buffer available", 3: "Invalid MSN - MSN range is not valid",
	4: "Invalid MO", 5: "DDP Message too long for available buffer", 6: "Invalid DDP version"}
var llpErr = map[uint64]string{1: "TCP connection closed", 2: "MPA CRC error", 3: "MPA marker and ULPDU length disagree",
	4: "Invalid MPA Request or Reply", 5: "Local catastrophic", 6: "Insufficient IRD", 7: "No matching RTR"}

var (
	PDDP = dissect.RegisterProto("iwarp_ddp_rdmap", "iWARP Direct Data Placement and Remote Direct Memory Access Protocol", "")

	fDDP       = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp", Name: "DDP header", Type: dissect.TNone})
	fDDPCtrl   = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.control_field", Name: "DDP control field", Type: dissect.TNone})
	fTagged    = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.tagged", Name: "Tagged buffer model", Type: dissect.TNone})
	fUntagged  = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.untagged", Name: "Untagged buffer model", Type: dissect.TNone})
	fTFlag     = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.tagged_flag", Name: "Tagged flag", Type: dissect.TBool, Mask: 0x80, Bits: 8})
	fLFlag     = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.last_flag", Name: "Last flag", Type: dissect.TBool, Mask: 0x40, Bits: 8})
	fDDPRsvd   = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.rsvd", Name: "Reserved", Type: dissect.TUint8, Base: dissect.BaseHex, Mask: 0x3c, Bits: 8})
	fDV        = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.dv", Name: "DDP protocol version", Type: dissect.TUint8, Mask: 0x3, Bits: 8})
	fRsvdULP   = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.rsvdulp", Name: "Reserved for use by the ULP", Type: dissect.TBytes, Desc: "5 octets from the RDMAP control octet, as tshark shows them"})
	fSTag      = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.stag", Name: "(Data Sink) Steering Tag", Type: dissect.TUint32, Base: dissect.BaseHex})
	fTO        = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.tagged_offset", Name: "(Data Sink) Tagged offset", Type: dissect.TUint64, Base: dissect.BaseHex})
	fQN        = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.qn", Name: "Queue number", Type: dissect.TUint32})
	fMSN       = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.msn", Name: "Message sequence number", Type: dissect.TUint32})
	fMO        = dissect.Register(&dissect.Field{Abbrev: "iwarp_ddp.mo", Name: "Message offset", Type: dissect.TUint32})
	fRDMA      = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma", Name: "RDMAP header", Type: dissect.TNone})
	fRDMACtrl  = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.control_field", Name: "RDMAP control field", Type: dissect.TNone})
	fRV        = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.version", Name: "Version", Type: dissect.TUint8, Mask: 0xc0, Bits: 8})
	fRDMARsv   = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.rsv", Name: "Reserved", Type: dissect.TUint8, Base: dissect.BaseHex, Mask: 0x30, Bits: 8})
	fOpcode    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.opcode", Name: "OpCode", Type: dissect.TUint8, Base: dissect.BaseHex, Mask: 0x0f, Bits: 8, Names: opNames})
	fReserved  = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.reserved", Name: "Reserved", Type: dissect.TBytes})
	fInvSTag   = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.inval_stag", Name: "Invalidate STag", Type: dissect.TUint32})
	fRR        = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.rr", Name: "Read request", Type: dissect.TNone})
	fSinkSTag  = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.sinkstag", Name: "Data Sink STag", Type: dissect.TUint32, Base: dissect.BaseHex})
	fSinkTO    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.sinkto", Name: "Data Sink Tagged Offset", Type: dissect.TUint64, Base: dissect.BaseHex})
	fRdSize    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.rdmardsz", Name: "RDMA Read Message Size", Type: dissect.TUint32})
	fSrcSTag   = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.srcstag", Name: "Data Source STag", Type: dissect.TUint32, Base: dissect.BaseHex})
	fSrcTO     = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.srcto", Name: "Data Source Tagged Offset", Type: dissect.TUint64, Base: dissect.BaseHex})
	fRespIn    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.response_in", Name: "Read Response in", Type: dissect.TFrameNum, Desc: "frame of the first Read Response (rdx)", Later: true})
	fReqIn     = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.request_in", Name: "Read Request in", Type: dissect.TFrameNum, Desc: "frame of the Read Request this response answers (rdx)"})
	fTerm      = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.terminate", Name: "Terminate", Type: dissect.TNone})
	fTermCtrl  = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_ctrl", Name: "Terminate Control", Type: dissect.TNone})
	fTermLayer = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_layer", Name: "Layer", Type: dissect.TUint8, Base: dissect.BaseHex, Mask: 0xf0, Bits: 8, Names: layerNames})
	fEtypeRDMA = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_etype_rdma", Name: "Error Types for RDMA layer", Type: dissect.TUint8, Base: dissect.BaseHex, Mask: 0x0f, Bits: 8, Names: rdmaEtype})
	fEtypeDDP  = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_etype_ddp", Name: "Error Types for DDP layer", Type: dissect.TUint8, Base: dissect.BaseHex, Mask: 0x0f, Bits: 8, Names: ddpEtype})
	fEtypeLLP  = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_etype_llp", Name: "Error Types for LLP layer", Type: dissect.TUint8, Base: dissect.BaseHex, Mask: 0x0f, Bits: 8, Names: llpEtype})
	fErrRDMA   = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_errcode_rdma", Name: "Error Code for RDMA layer", Type: dissect.TUint8, Base: dissect.BaseHex, Names: rdmaErr})
	fErrTag    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_errcode_ddp_tagged", Name: "Error Code for DDP Tagged Buffer", Type: dissect.TUint8, Base: dissect.BaseHex, Names: ddpTagErr})
	fErrUntag  = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_errcode_ddp_untagged", Name: "Error Code for DDP Untagged Buffer", Type: dissect.TUint8, Base: dissect.BaseHex, Names: ddpUntagErr})
	fErrLLP    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_errcode_llp", Name: "Error Code for LLP layer", Type: dissect.TUint8, Base: dissect.BaseHex, Names: llpErr})
	fErr       = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_errcode", Name: "Error Code", Type: dissect.TUint8, Base: dissect.BaseHex})
	fHdrct     = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_hdrct", Name: "Header control bits", Type: dissect.TNone})
	fHdrctM    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_hdrct_m", Name: "M bit", Type: dissect.TBool, Mask: 0x80, Bits: 8})
	fHdrctD    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.hdrct_d", Name: "D bit", Type: dissect.TBool, Mask: 0x40, Bits: 8})
	fHdrctR    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.hdrct_r", Name: "R bit", Type: dissect.TBool, Mask: 0x20, Bits: 8})
	fTermRsvd  = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_rsvd", Name: "Reserved", Type: dissect.TUint16, Base: dissect.BaseHex, Mask: 0x1fff, Bits: 16})
	fTermLen   = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_ddp_seg_len", Name: "DDP Segment Length", Type: dissect.TBytes})
	fTermDDP   = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_ddp_h", Name: "Terminated DDP Header", Type: dissect.TBytes})
	fTermRDMA  = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.term_rdma_h", Name: "Terminated RDMA Header", Type: dissect.TBytes})
	fImm       = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.immediate_data", Name: "Immediate Data", Type: dissect.TUint64, Base: dissect.BaseHex, Desc: "RFC 7306 Immediate Data (rdx)"})
	fAtOp      = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.opcode", Name: "OpCode", Type: dissect.TUint32, Mask: 0xf, Bits: 32, Names: map[uint64]string{0: "FetchAdd", 2: "CmpSwap"}})
	fAtReqID   = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.request_identifier", Name: "Request Identifier", Type: dissect.TUint32})
	fAtSTag    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.remote_stag", Name: "Remote STag", Type: dissect.TUint32})
	fAtTO      = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.remote_tagged_offset", Name: "Remote Tagged Offset", Type: dissect.TUint64})
	fAtAdd     = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.add_data", Name: "Add Data", Type: dissect.TUint64})
	fAtAddMask = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.add_mask", Name: "Add Mask", Type: dissect.TUint64, Base: dissect.BaseHex})
	fAtSwap    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.swap_data", Name: "Swap Data", Type: dissect.TUint64})
	fAtSwapM   = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.swap_mask", Name: "Swap Mask", Type: dissect.TUint64, Base: dissect.BaseHex})
	fAtCmp     = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.compare_data", Name: "Compare Data", Type: dissect.TUint64})
	fAtCmpM    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.compare_mask", Name: "Compare Mask", Type: dissect.TUint64, Base: dissect.BaseHex})
	fAtOrigID  = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.original_request_identifier", Name: "Original Request Identifier", Type: dissect.TUint32})
	fAtOrigVal = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.atomic.original_remote_data_value", Name: "Original Remote Data Value", Type: dissect.TUint64})
	fMsgLen    = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.send.reassembled.length", Name: "Reassembled iWarp RDMA Send length", Type: dissect.TUint32})
	fMsgFrames = dissect.Register(&dissect.Field{Abbrev: "iwarp_rdma.send.fragment.count", Name: "Fragment count", Type: dissect.TUint32})
)
