package nfs

import (
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/oncrpc"
)

// Field abbreviations follow Wireshark's packet-nfs.c, packet-mount.c,
// packet-nlm.c, packet-portmap.c and packet-nfsacl.c so that `-e` and
// `-T fields` line up with tshark 4.0.

func reg(abbrev, name string, t dissect.Type, b dissect.Base, names map[uint64]string) *dissect.Field {
	return dissect.Register(&dissect.Field{Abbrev: abbrev, Name: name, Type: t, Base: b, Names: names})
}

func bit(abbrev, name string, mask uint64) *dissect.Field {
	return dissect.Register(&dissect.Field{Abbrev: abbrev, Name: name, Type: dissect.TBool, Mask: mask, Bits: 32})
}

func accessFields(prefix string) []*dissect.Field {
	var fs []*dissect.Field
	for i, n := range []string{"read", "lookup", "modify", "extend", "delete", "execute", "xattr_read", "xattr_write", "xattr_list"} {
		label := []string{"READ", "LOOKUP", "MODIFY", "EXTEND", "DELETE", "EXECUTE", "XATTR READ", "XATTR WRITE", "XATTR LIST"}[i]
		fs = append(fs, dissect.Register(&dissect.Field{Abbrev: prefix + n, Name: "0x" + strconv.FormatUint(1<<i|0x1000, 16)[1:] + " " + label,
			Type: dissect.TBool, Mask: 1 << i, Bits: 8}))
	}
	return fs
}

// lookupOr returns the registered field abbrev (oncrpc registers the
// procedure fields of the programs it names) or registers it.
func lookupOr(abbrev, name string, names map[uint64]string) *dissect.Field {
	if f := dissect.Lookup(abbrev); f != nil {
		return f
	}
	return reg(abbrev, name, dissect.TUint32, dissect.BaseDec, names)
}

func lookupProto(abbrev, name string) *dissect.ProtoInfo {
	if p := dissect.LookupProto(abbrev); p != nil {
		return p
	}
	return dissect.RegisterProto(abbrev, name, "")
}

func procNamesOf(prog, vers uint32) map[uint64]string {
	m := map[uint64]string{}
	for p := uint32(0); p < 64; p++ {
		if n := oncrpc.ProcName(prog, vers, p); n != "" {
			m[uint64(p)] = n
		}
	}
	return m
}

const (
	tU32 = dissect.TUint32
	tU64 = dissect.TUint64
	dec  = dissect.BaseDec
	hex  = dissect.BaseHex
)

var stableNames = map[uint64]string{0: "UNSTABLE", 1: "DATA_SYNC", 2: "FILE_SYNC"}

var nfs3StatNames = map[uint64]string{0: "NFS3_OK", 1: "NFS3ERR_PERM", 2: "NFS3ERR_NOENT", 5: "NFS3ERR_IO", 6: "NFS3ERR_NXIO",
	13: "NFS3ERR_ACCES", 17: "NFS3ERR_EXIST", 18: "NFS3ERR_XDEV", 19: "NFS3ERR_NODEV", 20: "NFS3ERR_NOTDIR", 21: "NFS3ERR_ISDIR",
	22: "NFS3ERR_INVAL", 27: "NFS3ERR_FBIG", 28: "NFS3ERR_NOSPC", 30: "NFS3ERR_ROFS", 31: "NFS3ERR_MLINK",
	63: "NFS3ERR_NAMETOOLONG", 66: "NFS3ERR_NOTEMPTY", 69: "NFS3ERR_DQUOT", 70: "NFS3ERR_STALE", 71: "NFS3ERR_REMOTE",
	10001: "NFS3ERR_BADHANDLE", 10002: "NFS3ERR_NOT_SYNC", 10003: "NFS3ERR_BAD_COOKIE", 10004: "NFS3ERR_NOTSUPP",
	10005: "NFS3ERR_TOOSMALL", 10006: "NFS3ERR_SERVERFAULT", 10007: "NFS3ERR_BADTYPE", 10008: "NFS3ERR_JUKEBOX"}

var ftype3Names = map[uint64]string{1: "Regular File", 2: "Directory", 3: "Block Special Device", 4: "Character Special Device",
	5: "Symbolic Link", 6: "Socket", 7: "Named Pipe"}
var createModeNames = map[uint64]string{0: "UNCHECKED", 1: "GUARDED", 2: "EXCLUSIVE"}

// NFS (all versions).
var (
	PNFS = dissect.RegisterProto("nfs", "Network File System", "NFSv3 (RFC 1813) and NFSv4.x COMPOUND (RFC 7530/8881/7862)")

	fProc3  = reg("nfs.procedure_v3", "V3 Procedure", tU32, dec, procNamesOf(100003, 3))
	fProc4  = reg("nfs.procedure_v4", "V4 Procedure", tU32, dec, procNamesOf(100003, 4))
	fFH     = reg("nfs.fhandle", "FileHandle", dissect.TBytes, dec, nil)
	fFHLen  = reg("nfs.fh.length", "length", tU32, dec, nil)
	fFHHash = reg("nfs.fh.hash", "hash (CRC-32)", tU32, hex, nil)
	fStatus = reg("nfs.status", "Status", tU32, dec, nil)

	fStatus3   = reg("nfs.status3", "Status", tU32, dec, nfs3StatNames)
	fOffset    = reg("nfs.offset3", "offset", tU64, dec, nil)
	fCount     = reg("nfs.count3", "count", tU32, dec, nil)
	fStable    = reg("nfs.write.stable", "Stable", tU32, dec, stableNames)
	fCommitted = reg("nfs.write.committed", "Committed", tU32, dec, stableNames)
	fName      = reg("nfs.name", "Name", dissect.TString, dec, nil)
	fCookie    = reg("nfs.cookie3", "cookie", tU64, dec, nil)
	fVerifier  = reg("nfs.verifier", "Verifier", dissect.TBytes, dec, nil)
	fDirCount  = reg("nfs.count3_dircount", "dircount", tU32, dec, nil)
	fMaxCount  = reg("nfs.count3_maxcount", "maxcount", tU32, dec, nil)
	fData      = reg("nfs.data", "Data", dissect.TBytes, dec, nil)
	fDDP       = dissect.Register(&dissect.Field{Abbrev: "nfs.data_ddp_length", Name: "Data moved by RDMA (write chunk)", Type: tU32,
		Desc: "READ data length found in the RPC-over-RDMA write chunk (rdx)"})
	fReadEOF    = reg("nfs.read.eof", "EOF", dissect.TBool, dec, nil)
	fCreateMode = reg("nfs.createmode", "Create Mode", tU32, dec, createModeNames)
	fSetIt      = reg("nfs.set_it", "set_it", tU32, dec, nil)
	fSetSize    = reg("nfs.set_size", "size", tU64, dec, nil)
	fUID3       = reg("nfs.uid3", "uid", tU32, dec, nil)
	fGID3       = reg("nfs.gid3", "gid", tU32, dec, nil)
	fGuard      = reg("nfs.sattrguard3", "check", tU32, dec, map[uint64]string{0: "no value", 1: "value follows"})
	fAttrFollow = reg("nfs.attributes_follow", "attributes_follow", tU32, dec, nil)
	fFHFollow   = reg("nfs.handle_follow", "handle_follow", tU32, dec, nil)
	fSymlinkTo  = reg("nfs.symlink.to", "To", dissect.TString, dec, nil)
	fReadlink   = reg("nfs.readlink.data", "Data", dissect.TString, dec, nil)
	fWccSize    = reg("nfs.wcc_attr.size", "size", tU64, dec, nil)

	fType   = reg("nfs.fattr3.type", "Type", tU32, dec, ftype3Names)
	fNlink  = reg("nfs.fattr3.nlink", "nlink", tU32, dec, nil)
	fUID    = reg("nfs.fattr3.uid", "uid", tU32, dec, nil)
	fGID    = reg("nfs.fattr3.gid", "gid", tU32, dec, nil)
	fSize   = reg("nfs.fattr3.size", "size", tU64, dec, nil)
	fUsed   = reg("nfs.fattr3.used", "used", tU64, dec, nil)
	fSpec1  = reg("nfs.specdata1", "specdata1", tU32, dec, nil)
	fSpec2  = reg("nfs.specdata2", "specdata2", tU32, dec, nil)
	fFsid   = reg("nfs.fattr3.fsid", "fsid", tU64, dissect.BaseHexDec, nil)
	fFileid = reg("nfs.fattr3.fileid", "fileid", tU64, dec, nil)

	fAtime     = reg("nfs.atime", "atime", dissect.TAbsTime, dec, nil)
	fAtimeSec  = reg("nfs.atime.sec", "seconds", tU32, dec, nil)
	fAtimeNsec = reg("nfs.atime.nsec", "nano seconds", tU32, dec, nil)
	fMtime     = reg("nfs.mtime", "mtime", dissect.TAbsTime, dec, nil)
	fMtimeSec  = reg("nfs.mtime.sec", "seconds", tU32, dec, nil)
	fMtimeNsec = reg("nfs.mtime.nsec", "nano seconds", tU32, dec, nil)
	fCtime     = reg("nfs.ctime", "ctime", dissect.TAbsTime, dec, nil)
	fCtimeSec  = reg("nfs.ctime.sec", "seconds", tU32, dec, nil)
	fCtimeNsec = reg("nfs.ctime.nsec", "nano seconds", tU32, dec, nil)
	fDtime     = reg("nfs.dtime", "time delta", dissect.TRelTime, dec, nil)
	fDtimeSec  = reg("nfs.dtime.sec", "seconds", tU32, dec, nil)
	fDtimeNsec = reg("nfs.dtime.nsec", "nano seconds", tU32, dec, nil)

	fMode    = reg("nfs.mode3", "Mode", tU32, dissect.BaseOct, nil)
	modeBits = []*dissect.Field{bit("nfs.mode3.suid", "S_ISUID", 0o4000), bit("nfs.mode3.sgid", "S_ISGID", 0o2000),
		bit("nfs.mode3.sticky", "S_ISVTX", 0o1000), bit("nfs.mode3.rusr", "S_IRUSR", 0o400), bit("nfs.mode3.wusr", "S_IWUSR", 0o200),
		bit("nfs.mode3.xusr", "S_IXUSR", 0o100), bit("nfs.mode3.rgrp", "S_IRGRP", 0o40), bit("nfs.mode3.wgrp", "S_IWGRP", 0o20),
		bit("nfs.mode3.xgrp", "S_IXGRP", 0o10), bit("nfs.mode3.roth", "S_IROTH", 0o4), bit("nfs.mode3.woth", "S_IWOTH", 0o2),
		bit("nfs.mode3.xoth", "S_IXOTH", 0o1)}

	fAccessCheck  = reg("nfs.access_check", "Check access", dissect.TUint8, hex, nil)
	fAccessRights = reg("nfs.access_rights", "Access rights (of requested)", dissect.TUint8, hex, nil)
	fAccessSupp   = reg("nfs.access_supported", "Supported types (of requested)", dissect.TUint8, hex, nil)
	// The ACCESS rights of RFC 1813, RFC 7530 and RFC 8276 (xattr), as
	// Wireshark shows them: 8 bits wide although XATTR_LIST is 0x100.
	accessBits     = accessFields("nfs.access_")
	accessSuppBits = accessFields("nfs.access_supp_")

	fRdEntry       = reg("nfs.readdir.entry", "Entry", dissect.TNone, dec, nil)
	fRdEOF         = reg("nfs.readdir.eof", "EOF", dissect.TUint32, dec, nil)
	fRdFileid      = reg("nfs.readdir.entry3.fileid", "File ID", tU64, dec, nil)
	fRdName        = reg("nfs.readdir.entry3.name", "Name", dissect.TString, dec, nil)
	fRdCookie      = reg("nfs.readdir.entry3.cookie", "Cookie", tU64, dec, nil)
	fRdpFileid     = reg("nfs.readdirplus.entry.fileid", "File ID", tU64, dec, nil)
	fRdpName       = reg("nfs.readdirplus.entry.name", "Name", dissect.TString, dec, nil)
	fRdpCookie     = reg("nfs.readdirplus.entry.cookie", "Cookie", tU64, dec, nil)
	fFsTbytes      = reg("nfs.fsstat3_resok.tbytes", "Total bytes", tU64, dec, nil)
	fFsFbytes      = reg("nfs.fsstat3_resok.fbytes", "Free bytes", tU64, dec, nil)
	fFsAbytes      = reg("nfs.fsstat3_resok.abytes", "Available free bytes", tU64, dec, nil)
	fFsTfiles      = reg("nfs.fsstat3_resok.tfiles", "Total file slots", tU64, dec, nil)
	fFsFfiles      = reg("nfs.fsstat3_resok.ffiles", "Free file slots", tU64, dec, nil)
	fFsAfiles      = reg("nfs.fsstat3_resok.afiles", "Available free file slots", tU64, dec, nil)
	fFsInvarsec    = reg("nfs.fsstat.invarsec", "invarsec", tU32, dec, nil)
	fFiRtmax       = reg("nfs.fsinfo.rtmax", "rtmax", tU32, dec, nil)
	fFiRtpref      = reg("nfs.fsinfo.rtpref", "rtpref", tU32, dec, nil)
	fFiRtmult      = reg("nfs.fsinfo.rtmult", "rtmult", tU32, dec, nil)
	fFiWtmax       = reg("nfs.fsinfo.wtmax", "wtmax", tU32, dec, nil)
	fFiWtpref      = reg("nfs.fsinfo.wtpref", "wtpref", tU32, dec, nil)
	fFiWtmult      = reg("nfs.fsinfo.wtmult", "wtmult", tU32, dec, nil)
	fFiDtpref      = reg("nfs.fsinfo.dtpref", "dtpref", tU32, dec, nil)
	fFiMaxfilesize = reg("nfs.fsinfo.maxfilesize", "maxfilesize", tU64, dec, nil)
	fFiProps       = reg("nfs.fsinfo.properties", "Properties", tU32, hex, nil)
	fsinfoBits     = []*dissect.Field{bit("nfs.fsinfo.properties.setattr", "SETATTR can set time on server", 0x10),
		bit("nfs.fsinfo.properties.pathconf", "PATHCONF", 0x08), bit("nfs.fsinfo.properties.symlinks", "File System supports symbolic links", 0x02),
		bit("nfs.fsinfo.properties.hardlinks", "File System supports hard links", 0x01)}
	fPcLinkmax   = reg("nfs.pathconf.linkmax", "linkmax", tU32, dec, nil)
	fPcNameMax   = reg("nfs.pathconf.name_max", "name_max", tU32, dec, nil)
	fPcNoTrunc   = reg("nfs.pathconf.no_trunc", "no_trunc", dissect.TBool, dec, nil)
	fPcChown     = reg("nfs.pathconf.chown_restricted", "chown_restricted", dissect.TBool, dec, nil)
	fPcCaseInsen = reg("nfs.pathconf.case_insensitive", "case_insensitive", dissect.TBool, dec, nil)
	fPcCasePres  = reg("nfs.pathconf.case_preserving", "case_preserving", dissect.TBool, dec, nil)
)

func u32Label(t *dissect.Tree, names map[uint64]string, v uint64) string {
	if !t.Labels() {
		return ""
	}
	if n, ok := names[v]; ok {
		return n + " (" + strconv.FormatUint(v, 10) + ")"
	}
	return ""
}
