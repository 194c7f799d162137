package rpcrdma

import . "github.com/rdx-project/rdx/dissect"

var procNames = map[uint64]string{MSG: "RDMA_MSG", NOMSG: "RDMA_NOMSG", MSGP: "RDMA_MSGP", DONE: "RDMA_DONE", ERROR: "RDMA_ERROR"}
var errNames = map[uint64]string{ErrVers: "ERR_VERS", ErrChunk: "ERR_CHUNK"}

// Fields, with Wireshark's names (rpcordma.*) where it has them.
var (
	PRPCoRDMA = RegisterProto("rpcordma", "RPC over RDMA", "RFC 8166 v1 on InfiniBand/RoCE SEND messages")

	fXID       = Register(&Field{Abbrev: "rpcordma.xid", Name: "XID", Type: TUint32, Base: BaseHex})
	fVers      = Register(&Field{Abbrev: "rpcordma.version", Name: "Version", Type: TUint32})
	fCredit    = Register(&Field{Abbrev: "rpcordma.flow_control", Name: "Flow Control", Type: TUint32})
	fProc      = Register(&Field{Abbrev: "rpcordma.msg_type", Name: "Message Type", Type: TUint32, Names: procNames})
	fReads     = Register(&Field{Abbrev: "rpcordma.reads_count", Name: "Read list (count)", Type: TUint32})
	fWrites    = Register(&Field{Abbrev: "rpcordma.writes_count", Name: "Write list (count)", Type: TUint32})
	fReplies   = Register(&Field{Abbrev: "rpcordma.reply_count", Name: "Reply chunk (count)", Type: TUint32})
	fChunk     = Register(&Field{Abbrev: "rpcordma.read_chunk", Name: "Read chunk", Type: TNone, Desc: "read segments sharing one position (rdx)"})
	fSegCount  = Register(&Field{Abbrev: "rpcordma.segment_count", Name: "Write chunk segment count", Type: TUint32})
	fPosition  = Register(&Field{Abbrev: "rpcordma.position", Name: "Position in XDR", Type: TUint32})
	fHandle    = Register(&Field{Abbrev: "rpcordma.rdma_handle", Name: "RDMA handle", Type: TUint32, Base: BaseHex})
	fLength    = Register(&Field{Abbrev: "rpcordma.rdma_length", Name: "RDMA length", Type: TUint32})
	fOffset    = Register(&Field{Abbrev: "rpcordma.rdma_offset", Name: "RDMA offset", Type: TUint64, Base: BaseHex})
	fAlign     = Register(&Field{Abbrev: "rpcordma.rdma_align", Name: "RDMA align", Type: TUint32})
	fThresh    = Register(&Field{Abbrev: "rpcordma.rdma_thresh", Name: "RDMA threshold", Type: TUint32})
	fErrCode   = Register(&Field{Abbrev: "rpcordma.errcode", Name: "Error code", Type: TUint32, Names: errNames})
	fVersLow   = Register(&Field{Abbrev: "rpcordma.vers_low", Name: "Version low", Type: TUint32})
	fVersHigh  = Register(&Field{Abbrev: "rpcordma.vers_high", Name: "Version high", Type: TUint32})
	fFragments = Register(&Field{Abbrev: "rpcordma.fragments", Name: "Reassembled RPCoRDMA fragments", Type: TNone})
	fFragment  = Register(&Field{Abbrev: "rpcordma.fragment", Name: "RPCoRDMA fragment", Type: TFrameNum})
	fFragCount = Register(&Field{Abbrev: "rpcordma.fragment.count", Name: "Fragment count", Type: TUint32})
	fReasLen   = Register(&Field{Abbrev: "rpcordma.reassembled.length", Name: "Reassembled RPCoRDMA length", Type: TUint32})
	fReasData  = Register(&Field{Abbrev: "rpcordma.reassembled.data", Name: "Reassembled RPCoRDMA data", Type: TBytes})
	fDDPFrames = Register(&Field{Abbrev: "rpcordma.ddp.frames", Name: "Write chunk data in frames", Type: TString, Desc: "frames of the RDMA WRITEs that filled the write list (rdx)"})
	fDDPLen    = Register(&Field{Abbrev: "rpcordma.ddp.length", Name: "Write chunk data length", Type: TUint32, Desc: "octets found for the write list (rdx)"})
)

var checkHeader = RegisterCheck("rpcordma.header", "rpcordma", "RPC-over-RDMA header well formed (XID matches the RPC, lists parse, credits granted)")
