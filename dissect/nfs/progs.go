package nfs

import (
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/oncrpc"
	"github.com/rdx-project/rdx/dissect/xdr"
)

// program is a table-driven RPC program decoder: tree decodes a call's
// arguments or a matched reply's results.
type program struct {
	proto *dissect.ProtoInfo
	proc  *dissect.Field
	tree  func(x *d, m *oncrpc.Msg)
	sum   func(dst []byte, m *oncrpc.Msg) []byte // optional extra summary text
}

func (p *program) Proto() *dissect.ProtoInfo { return p.proto }

func (p *program) Summary(dst []byte, m *oncrpc.Msg) []byte {
	dst = oncrpc.AppendProc(dst, m)
	if p.sum != nil {
		dst = p.sum(dst, m)
	}
	return dst
}

func (p *program) Tree(t *dissect.Tree, m *oncrpc.Msg) {
	b := m.Data()
	t.Proto(p.proto, m.BodyOff(), len(b)-m.BodyOff(), "")
	t.Uint(oncrpc.FProgVers, -1, 0, uint64(m.Vers))
	t.UintLabel(p.proc, -1, 0, uint64(m.Proc), u32Label(t, p.proc.Names, uint64(m.Proc)))
	if m.Type != oncrpc.Call && !m.Matched() {
		return
	}
	r := xdr.NewReader(b)
	r.Off = m.BodyOff()
	p.tree(&d{t: t, r: &r}, m)
}

// register makes the decoder of a program version and adds it to vs.
func register(vs oncrpc.Versions, prog, vers uint32, proto *dissect.ProtoInfo, procAbbrev string, tree func(*d, *oncrpc.Msg)) *program {
	p := &program{proto: proto, proc: lookupOr(procAbbrev, "V"+strconv.Itoa(int(vers))+" Procedure", procNamesOf(prog, vers)), tree: tree}
	vs[vers] = p
	return p
}

// addProgram registers the decoders of program prog in the rpc.program table.
func addProgram(prog uint32, proto string, vs oncrpc.Versions) {
	dissect.AddHandler(oncrpc.Programs.Name(), proto, oncrpc.Keys(prog), vs.Handle)
}

// MOUNT (RFC 1813 appendix I).

var mountStatNames = map[uint64]string{0: "OK", 1: "ERR_PERM", 2: "ERR_NOENT", 5: "ERR_IO", 13: "ERR_ACCESS", 20: "ERR_NOTDIR",
	22: "ERR_INVAL", 63: "ERR_NAMETOOLONG", 10004: "ERR_NOTSUPP", 10006: "ERR_SERVERFAULT"}
var flavorNames = map[uint64]string{0: "AUTH_NULL", 1: "AUTH_UNIX", 2: "AUTH_SHORT", 3: "AUTH_DES", 6: "RPCSEC_GSS",
	390003: "RPCSEC_GSS_KRB5", 390004: "RPCSEC_GSS_KRB5I", 390005: "RPCSEC_GSS_KRB5P"}

var (
	PMount        = lookupProto("mount", "Mount Service")
	fMountPath    = reg("mount.path", "Path", dissect.TString, dec, nil)
	fMountStatus  = reg("mount.status", "Status", tU32, dec, mountStatNames)
	fMountFlavs   = reg("mount.flavors", "Flavors", tU32, dec, nil)
	fMountFlav    = reg("mount.flavor", "Flavor", tU32, dec, flavorNames)
	fMountHost    = reg("mount.dump.hostname", "Hostname", dissect.TString, dec, nil)
	fMountDir     = reg("mount.dump.directory", "Directory", dissect.TString, dec, nil)
	fMountExDir   = reg("mount.export.directory", "Directory", dissect.TString, dec, nil)
	fMountDumpEnt = reg("mount.dump.entry", "Mount List Entry", dissect.TNone, dec, nil)
	fMountExEnt   = reg("mount.export.entry", "Export List Entry", dissect.TNone, dec, nil)
	fMountExGrps  = reg("mount.export.groups", "Groups", dissect.TNone, dec, nil)
	fMountExGrp   = reg("mount.export.group", "Group", dissect.TString, dec, nil)
)

func mountTree(x *d, m *oncrpc.Msg) {
	if m.Type == oncrpc.Call {
		if m.Proc == 1 || m.Proc == 3 { // MNT, UMNT: dirpath
			x.str(fMountPath)
		}
		return
	}
	switch m.Proc {
	case 1: // MNT
		if m.Vers == 3 {
			if x.u32(fMountStatus) != 0 {
				return
			}
			x.fh("fhandle")
			n := x.r.Count(4)
			x.t.Uint(fMountFlavs, x.r.Off-4, 4, uint64(n))
			for i := 0; i < n && x.ok(); i++ {
				x.u32(fMountFlav)
			}
			return
		}
		if x.u32(fMountStatus) == 0 {
			x.fhFixed("fhandle")
		}
	case 2: // DUMP: mountlist
		for i := 0; i < maxEntries && x.follows(); i++ {
			x.node(fMountDumpEnt)
			x.str(fMountHost)
			x.str(fMountDir)
			x.close()
		}
	case 5: // EXPORT: exports
		for i := 0; i < maxEntries && x.follows(); i++ {
			x.node(fMountExEnt)
			x.str(fMountExDir)
			x.node(fMountExGrps)
			for j := 0; j < maxEntries && x.follows(); j++ {
				x.str(fMountExGrp)
			}
			x.close()
			x.close()
		}
	}
}

// Portmapper v2 (RFC 1833 §3) and rpcbind v3/v4 (RFC 1833 §2).

var protoNames = map[uint64]string{6: "TCP", 17: "UDP"}

var (
	PPortmap     = lookupProto("portmap", "Portmap")
	fPmProg      = reg("portmap.prog", "Program", tU32, dec, nil)
	fPmVers      = reg("portmap.version", "Version", tU32, dec, nil)
	fPmProto     = reg("portmap.proto", "Protocol", tU32, dec, protoNames)
	fPmPort      = reg("portmap.port", "Port", tU32, dec, nil)
	fPmProc      = reg("portmap.proc", "Procedure", tU32, dec, nil)
	fPmAnswer    = reg("portmap.answer", "Answer", dissect.TBool, dec, nil)
	fPmArgs      = reg("portmap.args", "Arguments", dissect.TBytes, dec, nil)
	fPmResult    = reg("portmap.result", "Result", dissect.TBytes, dec, nil)
	fPmMap       = reg("portmap.map", "Map Entry", dissect.TNone, dec, nil)
	fRpcb        = reg("portmap.rpcb", "RPCB", dissect.TNone, dec, nil)
	fRpcbProg    = reg("portmap.rpcb.prog", "Program", tU32, dec, nil)
	fRpcbVers    = reg("portmap.rpcb.version", "Version", tU32, dec, nil)
	fRpcbNetid   = reg("portmap.rpcb.netid", "Network Id", dissect.TString, dec, nil)
	fRpcbAddr    = reg("portmap.rpcb.addr", "Universal Address", dissect.TString, dec, nil)
	fRpcbOwner   = reg("portmap.rpcb.owner", "Owner of this Service", dissect.TString, dec, nil)
	fRpcbUaddr   = reg("portmap.uaddr", "Universal Address", dissect.TString, dec, nil)
	fRpcbTime    = reg("portmap.rpcb.time", "Time", dissect.TAbsTime, dec, nil)
	fRpcbTaddr   = reg("portmap.rpcb.taddr", "Transport Address", dissect.TBytes, dec, nil)
	fRpcbFailure = reg("portmap.rpcb.failure", "Failure", tU32, dec, nil)
)

func (x *d) pmapping() {
	x.u32(fPmProg)
	x.u32(fPmVers)
	x.u32(fPmProto)
	x.u32(fPmPort)
}

func (x *d) rpcb() {
	o := x.r.Off
	x.t.Uint(fRpcb, o, 0, 0)
	x.t.Open()
	x.u32(fRpcbProg)
	x.u32(fRpcbVers)
	x.str(fRpcbNetid)
	x.str(fRpcbAddr)
	x.str(fRpcbOwner)
	x.t.Close()
}

func portmapTree(x *d, m *oncrpc.Msg) {
	call := m.Type == oncrpc.Call
	if m.Vers == 2 {
		switch m.Proc {
		case 1, 2, 3: // SET UNSET GETPORT
			if call {
				x.pmapping()
			} else if m.Proc == 3 {
				x.u32(fPmPort)
			} else {
				x.u32(fPmAnswer)
			}
		case 4: // DUMP
			if !call {
				for i := 0; i < maxEntries && x.follows(); i++ {
					x.t.Uint(fPmMap, x.r.Off, min(16, x.r.Remaining()), 0) // a last entry may be cut short
					x.t.Open()
					x.pmapping()
					x.t.Close()
				}
			}
		case 5: // CALLIT
			if call {
				x.u32(fPmProg)
				x.u32(fPmVers)
				x.u32(fPmProc)
				x.opaque(fPmArgs, 0)
			} else {
				x.u32(fPmPort)
				x.opaque(fPmResult, 0)
			}
		}
		return
	}
	switch m.Proc {
	case 1, 2: // SET UNSET
		if call {
			x.rpcb()
		} else {
			x.u32(fPmAnswer)
		}
	case 3, 9: // GETADDR, GETVERSADDR
		if call {
			x.rpcb()
		} else {
			x.str(fRpcbUaddr)
		}
	case 4: // DUMP
		if !call {
			for i := 0; i < maxEntries && x.follows(); i++ {
				x.rpcb()
			}
		}
	case 6: // GETTIME
		if !call {
			o := x.r.Off
			v := x.r.U32()
			if x.ok() {
				x.t.Uint(fRpcbTime, o, 4, uint64(v)*1e9)
			}
		}
	case 7: // UADDR2TADDR
		if call {
			x.str(fRpcbUaddr)
		} else {
			x.u32(fRpcbFailure) // maxlen
			x.opaque(fRpcbTaddr, 0)
		}
	case 8: // TADDR2UADDR
		if call {
			x.u32(fRpcbFailure)
			x.opaque(fRpcbTaddr, 0)
		} else {
			x.str(fRpcbUaddr)
		}
	}
}

// NFS_ACL v3 (the Solaris/Linux side protocol, program 100227).

var aclTypeNames = map[uint64]string{0x1: "USER_OBJ", 0x2: "USER", 0x4: "GROUP_OBJ", 0x8: "GROUP", 0x10: "CLASS_OBJ",
	0x20: "OTHER_OBJ", 0x1001: "DEF_USER_OBJ", 0x1002: "DEF_USER", 0x1004: "DEF_GROUP_OBJ", 0x1008: "DEF_GROUP",
	0x1010: "DEF_CLASS_OBJ", 0x1020: "DEF_OTHER_OBJ"}

var (
	PNFSACL     = lookupProto("nfsacl", "NFSACL")
	fAclMask    = reg("nfsacl.mask", "Mask", tU32, hex, nil)
	aclMaskBits = []*dissect.Field{bit("nfsacl.mask.acl_entry", "ACL entry", 1), bit("nfsacl.mask.acl_count", "ACL count", 2), bit("nfsacl.mask.default_acl_entry", "Default ACL entry", 4), bit("nfsacl.mask.default_acl_count", "Default ACL count", 8)}
	fAcl        = reg("nfsacl.acl", "ACL", dissect.TNone, dec, nil)
	fAclCnt     = reg("nfsacl.aclcnt", "ACL count", tU32, dec, nil)
	fDfAclCnt   = reg("nfsacl.dfaclcnt", "Default ACL count", tU32, dec, nil)
	fAclEnt     = reg("nfsacl.aclent", "ACL Entry", dissect.TNone, dec, nil)
	fAclEntType = reg("nfsacl.aclent.type", "Type", tU32, dec, aclTypeNames)
	fAclEntUID  = reg("nfsacl.aclent.uid", "UID", tU32, dec, nil)
	fAclEntPerm = reg("nfsacl.aclent.perm", "Permissions", tU32, dec, nil)
	aclPermBits = []*dissect.Field{bit("nfsacl.aclent.perm.read", "READ", 4), bit("nfsacl.aclent.perm.write", "WRITE", 2), bit("nfsacl.aclent.perm.exec", "EXEC", 1)}
)

func (x *d) aclEntries(cnt *dissect.Field) {
	n := x.r.Count(12)
	if !x.ok() {
		return
	}
	x.t.Uint(cnt, x.r.Off-4, 4, uint64(n))
	// an array of aclent: the count is repeated as the XDR array length
	for i := 0; i < n && x.ok(); i++ {
		if i == 0 {
			x.r.U32() // XDR array length of the entries
		}
		o := x.r.Off
		if x.r.Remaining() < 12 {
			x.r.Fixed(12) // an entry cut short: the reader's error ends the decode
			break
		}
		x.t.Uint(fAclEnt, o, 12, 0)
		x.t.Open()
		x.u32(fAclEntType)
		x.u32(fAclEntUID)
		x.flags(fAclEntPerm, aclPermBits)
		x.t.Close()
	}
	if n == 0 {
		x.r.U32()
	}
}

// secattr: mask, aclcnt, aclent<>, dfaclcnt, dfaclent<>.
func (x *d) secattr() {
	x.flags(fAclMask, aclMaskBits)
	x.t.Uint(fAcl, x.r.Off, 0, 0)
	x.t.Open()
	x.aclEntries(fAclCnt)
	x.aclEntries(fDfAclCnt)
	x.t.Close()
}

// aclStatus is the nfsstat of NFS_ACL replies, shown as tshark does (nfs.status).
func (x *d) aclStatus() uint32 { return x.u32(fStatus) }

func nfsaclTree(x *d, m *oncrpc.Msg) {
	call := m.Type == oncrpc.Call
	switch m.Proc {
	case 1: // GETACL
		if call {
			x.fh("fhandle")
			x.flags(fAclMask, aclMaskBits)
			return
		}
		if x.aclStatus() == 0 {
			x.postOpAttr("attributes")
			x.secattr()
		}
	case 2: // SETACL
		if call {
			x.fh("fhandle")
			x.secattr()
			return
		}
		if x.aclStatus() == 0 {
			x.postOpAttr("attributes")
		}
	case 3: // GETATTR
		if call {
			x.fh("fhandle")
			return
		}
		if x.aclStatus() == 0 {
			x.postOpAttr("attributes")
		}
	case 4: // ACCESS
		if call {
			x.fh("fhandle")
			x.flags(fAccessCheck, setBits(accessBits, uint64(peekU32(x.r))))
			return
		}
		if x.aclStatus() == 0 {
			x.postOpAttr("attributes")
			x.accessReply(m, fAccessRights)
		}
	}
}

// NLM v1/v3/v4 (Open Group XNFS, RFC 1813 appendix II for v4).

var nlmStatNames = map[uint64]string{0: "NLM_GRANTED", 1: "NLM_DENIED", 2: "NLM_DENIED_NOLOCKS", 3: "NLM_BLOCKED",
	4: "NLM_DENIED_GRACE_PERIOD", 5: "NLM_DEADLCK", 6: "NLM_ROFS", 7: "NLM_STALE_FH", 8: "NLM_FBIG", 9: "NLM_FAILED"}

var (
	PNLM        = lookupProto("nlm", "Network Lock Manager Protocol")
	fNlmCookie  = reg("nlm.cookie", "cookie", dissect.TBytes, dec, nil)
	fNlmBlock   = reg("nlm.block", "block", dissect.TBool, dec, nil)
	fNlmExcl    = reg("nlm.exclusive", "exclusive", dissect.TBool, dec, nil)
	fNlmReclaim = reg("nlm.reclaim", "reclaim", dissect.TBool, dec, nil)
	fNlmState   = reg("nlm.state", "state", tU32, dec, nil)
	fNlmStat    = reg("nlm.stat", "stat", tU32, dec, nlmStatNames)
	fNlmLock    = reg("nlm.lock", "lock", dissect.TNone, dec, nil)
	fNlmCaller  = reg("nlm.lock.caller_name", "caller_name", dissect.TString, dec, nil)
	fNlmOwner   = reg("nlm.lock.owner", "owner", dissect.TBytes, dec, nil)
	fNlmSvid    = reg("nlm.lock.svid", "svid", tU32, dec, nil)
	fNlmOff     = reg("nlm.lock.l_offset", "l_offset", tU32, dec, nil)
	fNlmLen     = reg("nlm.lock.l_len", "l_len", tU32, dec, nil)
	fNlmOff64   = reg("nlm.lock.l_offset64", "l_offset", tU64, dec, nil)
	fNlmLen64   = reg("nlm.lock.l_len64", "l_len", tU64, dec, nil)
	fNlmShare   = reg("nlm.share", "share", dissect.TNone, dec, nil)
	fNlmMode    = reg("nlm.share.mode", "mode", tU32, dec, nil)
	fNlmAccess  = reg("nlm.share.access", "access", tU32, dec, nil)
	fNlmName    = reg("nlm.share.name", "name", dissect.TString, dec, nil)
	fNlmSeq     = reg("nlm.sequence", "sequence", dissect.TInt32, dec, nil)
	fNlmHolder  = reg("nlm.test_stat", "test_stat", dissect.TNone, dec, nil)
)

func (x *d) nlmRange(v4 bool) {
	if v4 {
		x.u64(fNlmOff64)
		x.u64(fNlmLen64)
	} else {
		x.u32(fNlmOff)
		x.u32(fNlmLen)
	}
}

func (x *d) nlmLock(v4 bool) {
	x.t.Uint(fNlmLock, x.r.Off, 0, 0)
	x.t.Open()
	x.str(fNlmCaller)
	x.fh("fh")
	x.opaque(fNlmOwner, maxName)
	x.u32(fNlmSvid)
	x.nlmRange(v4)
	x.t.Close()
}

func nlmTree(x *d, m *oncrpc.Msg) {
	v4 := m.Vers == 4
	p := m.Proc
	if m.Type == oncrpc.Call {
		switch {
		case p >= 1 && p <= 5, p >= 6 && p <= 10:
			q := p
			if q >= 6 {
				q -= 5
			}
			x.opaque(fNlmCookie, maxName)
			switch q {
			case 1, 5: // TEST, GRANTED: testargs
				x.u32(fNlmExcl)
				x.nlmLock(v4)
			case 2: // LOCK
				x.u32(fNlmBlock)
				x.u32(fNlmExcl)
				x.nlmLock(v4)
				x.u32(fNlmReclaim)
				x.u32(fNlmState)
			case 3: // CANCEL
				x.u32(fNlmBlock)
				x.u32(fNlmExcl)
				x.nlmLock(v4)
			case 4: // UNLOCK
				x.nlmLock(v4)
			}
		case p == 11: // TEST_RES
			nlmTestRes(x, v4)
		case p >= 12 && p <= 15: // *_RES
			x.opaque(fNlmCookie, maxName)
			x.u32(fNlmStat)
		case p == 20, p == 21: // SHARE UNSHARE
			x.opaque(fNlmCookie, maxName)
			x.t.Uint(fNlmShare, x.r.Off, 0, 0)
			x.t.Open()
			x.str(fNlmCaller)
			x.fh("fh")
			x.opaque(fNlmOwner, maxName)
			x.u32(fNlmMode)
			x.u32(fNlmAccess)
			x.t.Close()
			x.u32(fNlmReclaim)
		case p == 22: // NM_LOCK
			x.opaque(fNlmCookie, maxName)
			x.u32(fNlmBlock)
			x.u32(fNlmExcl)
			x.nlmLock(v4)
			x.u32(fNlmReclaim)
			x.u32(fNlmState)
		case p == 23: // FREE_ALL
			x.str(fNlmName)
			x.u32(fNlmState)
		}
		return
	}
	switch {
	case p == 1: // TEST
		nlmTestRes(x, v4)
	case p >= 2 && p <= 5, p == 22:
		x.opaque(fNlmCookie, maxName)
		x.u32(fNlmStat)
	case p == 20, p == 21:
		x.opaque(fNlmCookie, maxName)
		x.u32(fNlmStat)
		x.u32(fNlmSeq)
	}
}

func nlmTestRes(x *d, v4 bool) {
	x.opaque(fNlmCookie, maxName)
	if x.u32(fNlmStat) == 1 { // DENIED: the holder
		x.t.Uint(fNlmHolder, x.r.Off, 0, 0)
		x.t.Open()
		x.u32(fNlmExcl)
		x.u32(fNlmSvid)
		x.opaque(fNlmOwner, maxName)
		x.nlmRange(v4)
		x.t.Close()
	}
}

// mountSummary appends the path of MNT/UMNT calls.
func mountSummary(dst []byte, m *oncrpc.Msg) []byte {
	if m.Type != oncrpc.Call || (m.Proc != 1 && m.Proc != 3) {
		return dst
	}
	r := xdr.NewReader(m.Body())
	p := r.Opaque(maxName)
	if r.Err() != nil {
		return dst
	}
	dst = append(dst, " Path: "...)
	return append(dst, p...)
}

func init() {
	mount, portmap, nfsacl, nlm := oncrpc.Versions{}, oncrpc.Versions{}, oncrpc.Versions{}, oncrpc.Versions{}
	for _, v := range []uint32{1, 3} {
		register(mount, 100005, v, PMount, "mount.procedure_v"+strconv.Itoa(int(v)), mountTree).sum = mountSummary
	}
	for _, v := range []uint32{2, 3, 4} {
		register(portmap, 100000, v, PPortmap, "portmap.procedure_v"+strconv.Itoa(int(v)), portmapTree)
	}
	register(nfsacl, 100227, 3, PNFSACL, "nfsacl.procedure_v3", nfsaclTree)
	for _, v := range []uint32{1, 3, 4} {
		register(nlm, 100021, v, PNLM, "nlm.procedure_v"+strconv.Itoa(int(v)), nlmTree)
	}
	addProgram(100005, "mount", mount)
	addProgram(100000, "portmap", portmap)
	addProgram(100227, "nfsacl", nfsacl)
	addProgram(100021, "nlm", nlm)
}
