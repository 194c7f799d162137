package rpcrdma

import "github.com/rdx-project/rdx/dissect"

var procNames = map[uint64]string{MSG: "RDMA_MSG", NOMSG: "RDMA_NOMSG", MSGP: "RDMA_MSGP", DONE: "RDMA_DONE", ERROR: "RDMA_ERROR"}
var errNames = map[uint64]string{ErrVers: "ERR_VERS", ErrChunk: "ERR_CHUNK"}

// Fields, with Wireshark's names (rpcordma.*) where it has them.
var (
	PRPCoRDMA = dissect.RegisterProto("rpcordma", "RPC over RDMA", "RFC 8166 v1 on InfiniBand/RoCE SEND messages")

	fXID       = dissect.Register(&dissect.Field{Abbrev: "rpcordma.xid", Name: "XID", Type: dissect.TUint32, Base: dissect.BaseHex})
	fVers      = dissect.Register(&dissect.Field{Abbrev: "rpcordma.version", Name: "Version", Type: dissect.TUint32})
	fCredit    = dissect.Register(&dissect.Field{Abbrev: "rpcordma.flow_control", Name: "Flow Control", Type: dissect.TUint32})
	fProc      = dissect.Register(&dissect.Field{Abbrev: "rpcordma.msg_type", Name: "Message Type", Type: dissect.TUint32, Names: procNames})
	fReads     = dissect.Register(&dissect.Field{Abbrev: "rpcordma.reads_count", Name: "Read list (count)", Type: dissect.TUint32})
	fWrites    = dissect.Register(&dissect.Field{Abbrev: "rpcordma.writes_count", Name: "Write list (count)", Type: dissect.TUint32})
	fReplies   = dissect.Register(&dissect.Field{Abbrev: "rpcordma.reply_count", Name: "Reply chunk (count)", Type: dissect.TUint32})
	fChunk     = dissect.Register(&dissect.Field{Abbrev: "rpcordma.read_chunk", Name: "Read chunk", Type: dissect.TNone, Desc: "read segments sharing one position (rdx)"})
	fSegCount  = dissect.Register(&dissect.Field{Abbrev: "rpcordma.segment_count", Name: "Write chunk segment count", Type: dissect.TUint32})
	fPosition  = dissect.Register(&dissect.Field{Abbrev: "rpcordma.position", Name: "Position in XDR", Type: dissect.TUint32})
	fHandle    = dissect.Register(&dissect.Field{Abbrev: "rpcordma.rdma_handle", Name: "RDMA handle", Type: dissect.TUint32, Base: dissect.BaseHex})
	fLength    = dissect.Register(&dissect.Field{Abbrev: "rpcordma.rdma_length", Name: "RDMA length", Type: dissect.TUint32})
	fOffset    = dissect.Register(&dissect.Field{Abbrev: "rpcordma.rdma_offset", Name: "RDMA offset", Type: dissect.TUint64, Base: dissect.BaseHex})
	fAlign     = dissect.Register(&dissect.Field{Abbrev: "rpcordma.rdma_align", Name: "RDMA align", Type: dissect.TUint32})
	fThresh    = dissect.Register(&dissect.Field{Abbrev: "rpcordma.rdma_thresh", Name: "RDMA threshold", Type: dissect.TUint32})
	fErrCode   = dissect.Register(&dissect.Field{Abbrev: "rpcordma.errcode", Name: "Error code", Type: dissect.TUint32, Names: errNames})
	fVersLow   = dissect.Register(&dissect.Field{Abbrev: "rpcordma.vers_low", Name: "Version low", Type: dissect.TUint32})
	fVersHigh  = dissect.Register(&dissect.Field{Abbrev: "rpcordma.vers_high", Name: "Version high", Type: dissect.TUint32})
	fFragments = dissect.Register(&dissect.Field{Abbrev: "rpcordma.fragments", Name: "Reassembled RPCoRDMA fragments", Type: dissect.TNone})
	fFragment  = dissect.Register(&dissect.Field{Abbrev: "rpcordma.fragment", Name: "RPCoRDMA fragment", Type: dissect.TFrameNum})
	fFragCount = dissect.Register(&dissect.Field{Abbrev: "rpcordma.fragment.count", Name: "Fragment count", Type: dissect.TUint32})
	fReasLen   = dissect.Register(&dissect.Field{Abbrev: "rpcordma.reassembled.length", Name: "Reassembled RPCoRDMA length", Type: dissect.TUint32})
	fReasData  = dissect.Register(&dissect.Field{Abbrev: "rpcordma.reassembled.data", Name: "Reassembled RPCoRDMA data", Type: dissect.TBytes})
	fDDPFrames = dissect.Register(&dissect.Field{Abbrev: "rpcordma.ddp.frames", Name: "Write chunk data in frames", Type: dissect.TString, Desc: "frames of the RDMA WRITEs that filled the write list (rdx)"})
	fDDPLen    = dissect.Register(&dissect.Field{Abbrev: "rpcordma.ddp.length", Name: "Write chunk data length", Type: dissect.TUint32, Desc: "octets found for the write list (rdx)"})
)

var checkHeader = dissect.RegisterCheck("rpcordma.header", "rpcordma", "RPC-over-RDMA header well formed (XID matches the RPC, lists parse, credits granted)")
