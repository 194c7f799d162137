package oncrpc

import "github.com/rdx-project/rdx/dissect"

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
	PRPC = dissect.RegisterProto("rpc", "Remote Procedure Call", "ONC RPC (RFC 5531) over TCP record marking, UDP and RPC-over-RDMA")

	fLastFrag    = dissect.Register(&dissect.Field{Abbrev: "rpc.lastfrag", Name: "Last Fragment", Type: dissect.TBool, Mask: 0x80000000, Bits: 32})
	fFragLen     = dissect.Register(&dissect.Field{Abbrev: "rpc.fraglen", Name: "Fragment Length", Type: dissect.TUint32, Mask: 0x7FFFFFFF, Bits: 32})
	fXID         = dissect.Register(&dissect.Field{Abbrev: "rpc.xid", Name: "XID", Type: dissect.TUint32, Base: dissect.BaseHexDec})
	fMsgType     = dissect.Register(&dissect.Field{Abbrev: "rpc.msgtyp", Name: "Message Type", Type: dissect.TUint32, Names: msgTypeNames})
	fVersion     = dissect.Register(&dissect.Field{Abbrev: "rpc.version", Name: "RPC Version", Type: dissect.TUint32})
	fProgram     = dissect.Register(&dissect.Field{Abbrev: "rpc.program", Name: "Program", Type: dissect.TUint32, Names: programNames})
	FProgVers    = dissect.Register(&dissect.Field{Abbrev: "rpc.programversion", Name: "Program Version", Type: dissect.TUint32})
	fProcedure   = dissect.Register(&dissect.Field{Abbrev: "rpc.procedure", Name: "Procedure", Type: dissect.TUint32})
	fReplyStat   = dissect.Register(&dissect.Field{Abbrev: "rpc.replystat", Name: "Reply State", Type: dissect.TUint32, Names: replyStatNames})
	fAccept      = dissect.Register(&dissect.Field{Abbrev: "rpc.state_accept", Name: "Accept State", Type: dissect.TUint32, Names: acceptNames})
	fReject      = dissect.Register(&dissect.Field{Abbrev: "rpc.state_reject", Name: "Reject State", Type: dissect.TUint32, Names: rejectNames})
	fAuthState   = dissect.Register(&dissect.Field{Abbrev: "rpc.state_auth", Name: "Auth State", Type: dissect.TUint32, Names: authStatNames})
	fVersLow     = dissect.Register(&dissect.Field{Abbrev: "rpc.version.min", Name: "Low RPC Version", Type: dissect.TUint32})
	fVersHigh    = dissect.Register(&dissect.Field{Abbrev: "rpc.version.max", Name: "High RPC Version", Type: dissect.TUint32})
	fProgLow     = dissect.Register(&dissect.Field{Abbrev: "rpc.programversion.min", Name: "Program Version (Minimum)", Type: dissect.TUint32})
	fProgHigh    = dissect.Register(&dissect.Field{Abbrev: "rpc.programversion.max", Name: "Program Version (Maximum)", Type: dissect.TUint32})
	fCred        = dissect.Register(&dissect.Field{Abbrev: "rpc.cred", Name: "Credentials", Type: dissect.TNone})
	fVerf        = dissect.Register(&dissect.Field{Abbrev: "rpc.verf", Name: "Verifier", Type: dissect.TNone})
	fFlavor      = dissect.Register(&dissect.Field{Abbrev: "rpc.auth.flavor", Name: "Flavor", Type: dissect.TUint32, Names: flavorNames})
	fAuthLen     = dissect.Register(&dissect.Field{Abbrev: "rpc.auth.length", Name: "Length", Type: dissect.TUint32})
	fStamp       = dissect.Register(&dissect.Field{Abbrev: "rpc.auth.stamp", Name: "Stamp", Type: dissect.TUint32, Base: dissect.BaseHex})
	fMachine     = dissect.Register(&dissect.Field{Abbrev: "rpc.auth.machinename", Name: "Machine Name", Type: dissect.TString})
	fUID         = dissect.Register(&dissect.Field{Abbrev: "rpc.auth.uid", Name: "UID", Type: dissect.TUint32})
	fGID         = dissect.Register(&dissect.Field{Abbrev: "rpc.auth.gid", Name: "GID", Type: dissect.TUint32})
	fAuxGIDs     = dissect.Register(&dissect.Field{Abbrev: "rpc.auth.gids", Name: "Auxiliary GIDs", Type: dissect.TUint32, Desc: "count of auxiliary GIDs (rdx)"})
	fAuthBody    = dissect.Register(&dissect.Field{Abbrev: "rpc.auth.body", Name: "Body", Type: dissect.TBytes})
	fGSSVers     = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.version", Name: "GSS Version", Type: dissect.TUint32})
	fGSSProc     = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.procedure", Name: "GSS Procedure", Type: dissect.TUint32, Names: gssProcNames})
	fGSSSeq      = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.seqnum", Name: "GSS Sequence Number", Type: dissect.TUint32})
	fGSSService  = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.service", Name: "GSS Service", Type: dissect.TUint32, Names: gssServiceNames})
	fGSSContext  = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.context", Name: "GSS Context", Type: dissect.TBytes})
	fGSSChecksum = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.checksum", Name: "GSS Checksum", Type: dissect.TBytes})
	fGSSDataLen  = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.data.length", Name: "Databody length", Type: dissect.TUint32})
	fGSSData     = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.data", Name: "GSS Data", Type: dissect.TBytes})
	fGSSTokenLen = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.token_length", Name: "GSS Token Length", Type: dissect.TUint32})
	fGSSToken    = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.token", Name: "GSS Token", Type: dissect.TBytes})
	fGSSMajor    = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.major", Name: "GSS Major Status", Type: dissect.TUint32})
	fGSSMinor    = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.minor", Name: "GSS Minor Status", Type: dissect.TUint32})
	fGSSWindow   = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.window", Name: "GSS Sequence Window", Type: dissect.TUint32})
	fGSSCtxLen   = dissect.Register(&dissect.Field{Abbrev: "rpc.authgss.context.length", Name: "GSS Context Length", Type: dissect.TUint32})
	fRepFrame    = dissect.Register(&dissect.Field{Abbrev: "rpc.repframe", Name: "Request In", Type: dissect.TFrameNum, Desc: "in a reply: the frame of its call"})
	fReqFrame    = dissect.Register(&dissect.Field{Abbrev: "rpc.reqframe", Name: "Reply In", Type: dissect.TFrameNum, Desc: "in a call: the frame of its reply (second pass)", Later: true})
	fTime        = dissect.Register(&dissect.Field{Abbrev: "rpc.time", Name: "Time from request", Type: dissect.TRelTime})
	fFrames      = dissect.Register(&dissect.Field{Abbrev: "rpc.frames", Name: "Carried in frames", Type: dissect.TString, Desc: "frames whose bytes make up the message (rdx)"})
	// FOpaqueLen, FFillBytes and FValueFollows are shared with program dissectors (NFS), as in Wireshark.
	FOpaqueLen    = dissect.Register(&dissect.Field{Abbrev: "rpc.opaque_length", Name: "length", Type: dissect.TUint32})
	FFillBytes    = dissect.Register(&dissect.Field{Abbrev: "rpc.fill_bytes", Name: "fill bytes", Type: dissect.TBytes})
	FValueFollows = dissect.Register(&dissect.Field{Abbrev: "rpc.value_follows", Name: "Value Follows", Type: dissect.TBool})
	FOpaqueData   = dissect.Register(&dissect.Field{Abbrev: "rpc.opaque_data", Name: "contents", Type: dissect.TBytes})
	fArgs         = dissect.Register(&dissect.Field{Abbrev: "rpc.args", Name: "Arguments", Type: dissect.TBytes, Desc: "undecoded procedure arguments or results (rdx)"})
)

// Checks.
var checkMatch = dissect.RegisterCheck("rpc.reply_matched", "rpc", "every RPC reply answers a call seen in the capture")
