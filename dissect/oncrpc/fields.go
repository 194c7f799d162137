package oncrpc

import . "github.com/rdx-project/rdx/dissect"

// Message types, reply states (RFC 5531 §9).
const (
	Call  = 0
	Reply = 1

	MsgAccepted = 0
	MsgDenied   = 1

	Success      = 0
	ProgUnavail  = 1
	ProgMismatch = 2
	ProcUnavail  = 3
	GarbageArgs  = 4
	SystemErr    = 5

	RPCMismatch = 0
	AuthError   = 1

	AuthNone  = 0
	AuthSys   = 1
	AuthShort = 2
	AuthDH    = 3
	RPCSecGSS = 6
)

var msgTypeNames = map[uint64]string{Call: "Call", Reply: "Reply"}
var replyStatNames = map[uint64]string{MsgAccepted: "accepted", MsgDenied: "denied"}
var acceptNames = map[uint64]string{Success: "RPC executed successfully", ProgUnavail: "remote hasn't exported program",
	ProgMismatch: "remote can't support version #", ProcUnavail: "program can't support procedure",
	GarbageArgs: "procedure can't decode params", SystemErr: "system error"}
var rejectNames = map[uint64]string{RPCMismatch: "RPC_MISMATCH", AuthError: "AUTH_ERROR"}
var flavorNames = map[uint64]string{AuthNone: "AUTH_NULL", AuthSys: "AUTH_UNIX", AuthShort: "AUTH_SHORT", AuthDH: "AUTH_DES",
	RPCSecGSS: "RPCSEC_GSS"}
var authStatNames = map[uint64]string{0: "AUTH_OK", 1: "AUTH_BADCRED", 2: "AUTH_REJECTEDCRED", 3: "AUTH_BADVERF",
	4: "AUTH_REJECTEDVERF", 5: "AUTH_TOOWEAK", 6: "AUTH_INVALIDRESP", 7: "AUTH_FAILED"}
var gssProcNames = map[uint64]string{0: "RPCSEC_GSS_DATA", 1: "RPCSEC_GSS_INIT", 2: "RPCSEC_GSS_CONTINUE_INIT", 3: "RPCSEC_GSS_DESTROY"}
var gssServiceNames = map[uint64]string{1: "rpcsec_gss_svc_none", 2: "rpcsec_gss_svc_integrity", 3: "rpcsec_gss_svc_privacy"}

var programNames = func() map[uint64]string {
	m := map[uint64]string{}
	for p, info := range programs {
		m[uint64(p)] = info.name
	}
	return m
}()

// Fields, with Wireshark's names.
var (
	PRPC = RegisterProto("rpc", "Remote Procedure Call", "ONC RPC (RFC 5531) over TCP record marking, UDP and RPC-over-RDMA")

	fLastFrag    = Register(&Field{Abbrev: "rpc.lastfrag", Name: "Last Fragment", Type: TBool, Mask: 0x80000000, Bits: 32})
	fFragLen     = Register(&Field{Abbrev: "rpc.fraglen", Name: "Fragment Length", Type: TUint32, Mask: 0x7FFFFFFF, Bits: 32})
	fXID         = Register(&Field{Abbrev: "rpc.xid", Name: "XID", Type: TUint32, Base: BaseHexDec})
	fMsgType     = Register(&Field{Abbrev: "rpc.msgtyp", Name: "Message Type", Type: TUint32, Names: msgTypeNames})
	fVersion     = Register(&Field{Abbrev: "rpc.version", Name: "RPC Version", Type: TUint32})
	fProgram     = Register(&Field{Abbrev: "rpc.program", Name: "Program", Type: TUint32, Names: programNames})
	FProgVers    = Register(&Field{Abbrev: "rpc.programversion", Name: "Program Version", Type: TUint32})
	fProcedure   = Register(&Field{Abbrev: "rpc.procedure", Name: "Procedure", Type: TUint32})
	fReplyStat   = Register(&Field{Abbrev: "rpc.replystat", Name: "Reply State", Type: TUint32, Names: replyStatNames})
	fAccept      = Register(&Field{Abbrev: "rpc.state_accept", Name: "Accept State", Type: TUint32, Names: acceptNames})
	fReject      = Register(&Field{Abbrev: "rpc.state_reject", Name: "Reject State", Type: TUint32, Names: rejectNames})
	fAuthState   = Register(&Field{Abbrev: "rpc.state_auth", Name: "Auth State", Type: TUint32, Names: authStatNames})
	fVersLow     = Register(&Field{Abbrev: "rpc.version.min", Name: "Low RPC Version", Type: TUint32})
	fVersHigh    = Register(&Field{Abbrev: "rpc.version.max", Name: "High RPC Version", Type: TUint32})
	fProgLow     = Register(&Field{Abbrev: "rpc.programversion.min", Name: "Program Version (Minimum)", Type: TUint32})
	fProgHigh    = Register(&Field{Abbrev: "rpc.programversion.max", Name: "Program Version (Maximum)", Type: TUint32})
	fCred        = Register(&Field{Abbrev: "rpc.cred", Name: "Credentials", Type: TNone})
	fVerf        = Register(&Field{Abbrev: "rpc.verf", Name: "Verifier", Type: TNone})
	fFlavor      = Register(&Field{Abbrev: "rpc.auth.flavor", Name: "Flavor", Type: TUint32, Names: flavorNames})
	fAuthLen     = Register(&Field{Abbrev: "rpc.auth.length", Name: "Length", Type: TUint32})
	fStamp       = Register(&Field{Abbrev: "rpc.auth.stamp", Name: "Stamp", Type: TUint32, Base: BaseHex})
	fMachine     = Register(&Field{Abbrev: "rpc.auth.machinename", Name: "Machine Name", Type: TString})
	fUID         = Register(&Field{Abbrev: "rpc.auth.uid", Name: "UID", Type: TUint32})
	fGID         = Register(&Field{Abbrev: "rpc.auth.gid", Name: "GID", Type: TUint32})
	fAuxGIDs     = Register(&Field{Abbrev: "rpc.auth.gids", Name: "Auxiliary GIDs", Type: TUint32, Desc: "count of auxiliary GIDs (rdx)"})
	fAuthBody    = Register(&Field{Abbrev: "rpc.auth.body", Name: "Body", Type: TBytes})
	fGSSVers     = Register(&Field{Abbrev: "rpc.authgss.version", Name: "GSS Version", Type: TUint32})
	fGSSProc     = Register(&Field{Abbrev: "rpc.authgss.procedure", Name: "GSS Procedure", Type: TUint32, Names: gssProcNames})
	fGSSSeq      = Register(&Field{Abbrev: "rpc.authgss.seqnum", Name: "GSS Sequence Number", Type: TUint32})
	fGSSService  = Register(&Field{Abbrev: "rpc.authgss.service", Name: "GSS Service", Type: TUint32, Names: gssServiceNames})
	fGSSContext  = Register(&Field{Abbrev: "rpc.authgss.context", Name: "GSS Context", Type: TBytes})
	fGSSChecksum = Register(&Field{Abbrev: "rpc.authgss.checksum", Name: "GSS Checksum", Type: TBytes})
	fGSSDataLen  = Register(&Field{Abbrev: "rpc.authgss.data.length", Name: "Databody length", Type: TUint32})
	fGSSData     = Register(&Field{Abbrev: "rpc.authgss.data", Name: "GSS Data", Type: TBytes})
	fGSSTokenLen = Register(&Field{Abbrev: "rpc.authgss.token_length", Name: "GSS Token Length", Type: TUint32})
	fGSSToken    = Register(&Field{Abbrev: "rpc.authgss.token", Name: "GSS Token", Type: TBytes})
	fGSSMajor    = Register(&Field{Abbrev: "rpc.authgss.major", Name: "GSS Major Status", Type: TUint32})
	fGSSMinor    = Register(&Field{Abbrev: "rpc.authgss.minor", Name: "GSS Minor Status", Type: TUint32})
	fGSSWindow   = Register(&Field{Abbrev: "rpc.authgss.window", Name: "GSS Sequence Window", Type: TUint32})
	fGSSCtxLen   = Register(&Field{Abbrev: "rpc.authgss.context.length", Name: "GSS Context Length", Type: TUint32})
	fRepFrame    = Register(&Field{Abbrev: "rpc.repframe", Name: "Request In", Type: TFrameNum, Desc: "in a reply: the frame of its call"})
	fReqFrame    = Register(&Field{Abbrev: "rpc.reqframe", Name: "Reply In", Type: TFrameNum, Desc: "in a call: the frame of its reply (second pass)"})
	fTime        = Register(&Field{Abbrev: "rpc.time", Name: "Time from request", Type: TRelTime})
	fFrames      = Register(&Field{Abbrev: "rpc.frames", Name: "Carried in frames", Type: TString, Desc: "frames whose bytes make up the message (rdx)"})
	// FOpaqueLen, FFillBytes and FValueFollows are shared with program dissectors (NFS), as in Wireshark.
	FOpaqueLen    = Register(&Field{Abbrev: "rpc.opaque_length", Name: "length", Type: TUint32})
	FFillBytes    = Register(&Field{Abbrev: "rpc.fill_bytes", Name: "fill bytes", Type: TBytes})
	FValueFollows = Register(&Field{Abbrev: "rpc.value_follows", Name: "Value Follows", Type: TBool})
	FOpaqueData   = Register(&Field{Abbrev: "rpc.opaque_data", Name: "contents", Type: TBytes})
	fArgs         = Register(&Field{Abbrev: "rpc.args", Name: "Arguments", Type: TBytes, Desc: "undecoded procedure arguments or results (rdx)"})
)

// Checks.
var checkMatch = RegisterCheck("rpc.reply_matched", "rpc", "every RPC reply answers a call seen in the capture")
