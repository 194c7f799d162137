package nfs

import (
	"encoding/binary"
	"hash/crc32"
	"math/bits"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/oncrpc"
	"github.com/rdx-project/rdx/dissect/xdr"
)

// NFSv4.0 (RFC 7530), 4.1 (RFC 8881) and 4.2 (RFC 7862) operations.
var op4Names = map[uint64]string{3: "ACCESS", 4: "CLOSE", 5: "COMMIT", 6: "CREATE", 7: "DELEGPURGE", 8: "DELEGRETURN",
	9: "GETATTR", 10: "GETFH", 11: "LINK", 12: "LOCK", 13: "LOCKT", 14: "LOCKU", 15: "LOOKUP", 16: "LOOKUPP", 17: "NVERIFY",
	18: "OPEN", 19: "OPENATTR", 20: "OPEN_CONFIRM", 21: "OPEN_DOWNGRADE", 22: "PUTFH", 23: "PUTPUBFH", 24: "PUTROOTFH",
	25: "READ", 26: "READDIR", 27: "READLINK", 28: "REMOVE", 29: "RENAME", 30: "RENEW", 31: "RESTOREFH", 32: "SAVEFH",
	33: "SECINFO", 34: "SETATTR", 35: "SETCLIENTID", 36: "SETCLIENTID_CONFIRM", 37: "VERIFY", 38: "WRITE",
	39: "RELEASE_LOCKOWNER", 40: "BACKCHANNEL_CTL", 41: "BIND_CONN_TO_SESSION", 42: "EXCHANGE_ID", 43: "CREATE_SESSION",
	44: "DESTROY_SESSION", 45: "FREE_STATEID", 46: "GET_DIR_DELEGATION", 47: "GETDEVICEINFO", 48: "GETDEVICELIST",
	49: "LAYOUTCOMMIT", 50: "LAYOUTGET", 51: "LAYOUTRETURN", 52: "SECINFO_NO_NAME", 53: "SEQUENCE", 54: "SET_SSV",
	55: "TEST_STATEID", 56: "WANT_DELEGATION", 57: "DESTROY_CLIENTID", 58: "RECLAIM_COMPLETE", 59: "ALLOCATE", 60: "COPY",
	61: "COPY_NOTIFY", 62: "DEALLOCATE", 63: "IO_ADVISE", 64: "LAYOUTERROR", 65: "LAYOUTSTATS", 66: "OFFLOAD_CANCEL",
	67: "OFFLOAD_STATUS", 68: "READ_PLUS", 69: "SEEK", 70: "WRITE_SAME", 71: "CLONE", 72: "GETXATTR", 73: "SETXATTR",
	74: "LISTXATTRS", 75: "REMOVEXATTR", 10044: "ILLEGAL"}

// Callback operations (RFC 7530 §16, RFC 8881 §20, RFC 7862 §16).
var cbOpNames = map[uint64]string{3: "CB_GETATTR", 4: "CB_RECALL", 5: "CB_LAYOUTRECALL", 6: "CB_NOTIFY",
	7: "CB_PUSH_DELEG", 8: "CB_RECALL_ANY", 9: "CB_RECALLABLE_OBJ_AVAIL", 10: "CB_RECALL_SLOT", 11: "CB_SEQUENCE",
	12: "CB_WANTS_CANCELLED", 13: "CB_NOTIFY_LOCK", 14: "CB_NOTIFY_DEVICEID", 15: "CB_OFFLOAD", 10044: "CB_ILLEGAL"}

var nfs4StatNames = map[uint64]string{0: "NFS4_OK", 1: "NFS4ERR_PERM", 2: "NFS4ERR_NOENT", 5: "NFS4ERR_IO", 6: "NFS4ERR_NXIO",
	13: "NFS4ERR_ACCESS", 17: "NFS4ERR_EXIST", 18: "NFS4ERR_XDEV", 20: "NFS4ERR_NOTDIR", 21: "NFS4ERR_ISDIR",
	22: "NFS4ERR_INVAL", 27: "NFS4ERR_FBIG", 28: "NFS4ERR_NOSPC", 30: "NFS4ERR_ROFS", 31: "NFS4ERR_MLINK",
	63: "NFS4ERR_NAMETOOLONG", 66: "NFS4ERR_NOTEMPTY", 69: "NFS4ERR_DQUOT", 70: "NFS4ERR_STALE",
	10001: "NFS4ERR_BADHANDLE", 10003: "NFS4ERR_BAD_COOKIE", 10004: "NFS4ERR_NOTSUPP", 10005: "NFS4ERR_TOOSMALL",
	10006: "NFS4ERR_SERVERFAULT", 10007: "NFS4ERR_BADTYPE", 10008: "NFS4ERR_DELAY", 10009: "NFS4ERR_SAME",
	10010: "NFS4ERR_DENIED", 10011: "NFS4ERR_EXPIRED", 10012: "NFS4ERR_LOCKED", 10013: "NFS4ERR_GRACE",
	10014: "NFS4ERR_FHEXPIRED", 10015: "NFS4ERR_SHARE_DENIED", 10016: "NFS4ERR_WRONGSEC", 10017: "NFS4ERR_CLID_INUSE",
	10018: "NFS4ERR_RESOURCE", 10019: "NFS4ERR_MOVED", 10020: "NFS4ERR_NOFILEHANDLE", 10021: "NFS4ERR_MINOR_VERS_MISMATCH",
	10022: "NFS4ERR_STALE_CLIENTID", 10023: "NFS4ERR_STALE_STATEID", 10024: "NFS4ERR_OLD_STATEID",
	10025: "NFS4ERR_BAD_STATEID", 10026: "NFS4ERR_BAD_SEQID", 10027: "NFS4ERR_NOT_SAME", 10028: "NFS4ERR_LOCK_RANGE",
	10029: "NFS4ERR_SYMLINK", 10030: "NFS4ERR_RESTOREFH", 10031: "NFS4ERR_LEASE_MOVED", 10032: "NFS4ERR_ATTRNOTSUPP",
	10033: "NFS4ERR_NO_GRACE", 10034: "NFS4ERR_RECLAIM_BAD", 10035: "NFS4ERR_RECLAIM_CONFLICT", 10036: "NFS4ERR_BADXDR",
	10037: "NFS4ERR_LOCKS_HELD", 10038: "NFS4ERR_OPENMODE", 10039: "NFS4ERR_BADOWNER", 10040: "NFS4ERR_BADCHAR",
	10041: "NFS4ERR_BADNAME", 10042: "NFS4ERR_BAD_RANGE", 10043: "NFS4ERR_LOCK_NOTSUPP", 10044: "NFS4ERR_OP_ILLEGAL",
	10045: "NFS4ERR_DEADLOCK", 10046: "NFS4ERR_FILE_OPEN", 10047: "NFS4ERR_ADMIN_REVOKED", 10048: "NFS4ERR_CB_PATH_DOWN",
	10049: "NFS4ERR_BADIOMODE", 10050: "NFS4ERR_BADLAYOUT", 10051: "NFS4ERR_BAD_SESSION_DIGEST", 10052: "NFS4ERR_BADSESSION",
	10053: "NFS4ERR_BADSLOT", 10054: "NFS4ERR_COMPLETE_ALREADY", 10055: "NFS4ERR_CONN_NOT_BOUND_TO_SESSION",
	10056: "NFS4ERR_DELEG_ALREADY_WANTED", 10057: "NFS4ERR_BACK_CHAN_BUSY", 10058: "NFS4ERR_LAYOUTTRYLATER",
	10059: "NFS4ERR_LAYOUTUNAVAILABLE", 10060: "NFS4ERR_NOMATCHING_LAYOUT", 10061: "NFS4ERR_RECALLCONFLICT",
	10062: "NFS4ERR_UNKNOWN_LAYOUTTYPE", 10063: "NFS4ERR_SEQ_MISORDERED", 10064: "NFS4ERR_SEQUENCE_POS",
	10065: "NFS4ERR_REQ_TOO_BIG", 10066: "NFS4ERR_REP_TOO_BIG", 10067: "NFS4ERR_REP_TOO_BIG_TO_CACHE",
	10068: "NFS4ERR_RETRY_UNCACHED_REP", 10069: "NFS4ERR_UNSAFE_COMPOUND", 10070: "NFS4ERR_TOO_MANY_OPS",
	10071: "NFS4ERR_OP_NOT_IN_SESSION", 10072: "NFS4ERR_HASH_ALG_UNSUPP", 10074: "NFS4ERR_CLIENTID_BUSY",
	10075: "NFS4ERR_PNFS_IO_HOLE", 10076: "NFS4ERR_SEQ_FALSE_RETRY", 10077: "NFS4ERR_BAD_HIGH_SLOT",
	10078: "NFS4ERR_DEADSESSION", 10079: "NFS4ERR_ENCR_ALG_UNSUPP", 10080: "NFS4ERR_PNFS_NO_LAYOUT",
	10081: "NFS4ERR_NOT_ONLY_OP", 10082: "NFS4ERR_WRONG_CRED", 10083: "NFS4ERR_WRONG_TYPE", 10084: "NFS4ERR_DIRDELEG_UNAVAIL",
	10085: "NFS4ERR_REJECT_DELEG", 10086: "NFS4ERR_RETURNCONFLICT", 10087: "NFS4ERR_DELEG_REVOKED",
	10088: "NFS4ERR_PARTNER_NOTSUPP", 10089: "NFS4ERR_PARTNER_NO_AUTH", 10090: "NFS4ERR_UNION_NOTSUPP",
	10091: "NFS4ERR_OFFLOAD_DENIED", 10092: "NFS4ERR_WRONG_LFS", 10093: "NFS4ERR_BADLABEL", 10094: "NFS4ERR_OFFLOAD_NO_REQS",
	10095: "NFS4ERR_NOXATTR", 10096: "NFS4ERR_XATTR2BIG"}

// fattr4 attribute numbers (RFC 7530 §5, RFC 8881 §5, RFC 7862 §12).
var attr4Names = map[uint64]string{0: "supported_attrs", 1: "type", 2: "fh_expire_type", 3: "change", 4: "size",
	5: "link_support", 6: "symlink_support", 7: "named_attr", 8: "fsid", 9: "unique_handles", 10: "lease_time",
	11: "rdattr_error", 12: "acl", 13: "aclsupport", 14: "archive", 15: "cansettime", 16: "case_insensitive",
	17: "case_preserving", 18: "chown_restricted", 19: "filehandle", 20: "fileid", 21: "files_avail", 22: "files_free",
	23: "files_total", 24: "fs_locations", 25: "hidden", 26: "homogeneous", 27: "maxfilesize", 28: "maxlink",
	29: "maxname", 30: "maxread", 31: "maxwrite", 32: "mimetype", 33: "mode", 34: "no_trunc", 35: "numlinks",
	36: "owner", 37: "owner_group", 38: "quota_avail_hard", 39: "quota_avail_soft", 40: "quota_used", 41: "rawdev",
	42: "space_avail", 43: "space_free", 44: "space_total", 45: "space_used", 46: "system", 47: "time_access",
	48: "time_access_set", 49: "time_backup", 50: "time_create", 51: "time_delta", 52: "time_metadata",
	53: "time_modify", 54: "time_modify_set", 55: "mounted_on_fileid", 56: "dir_notif_delay",
	57: "dirent_notif_delay", 58: "dacl", 59: "sacl", 60: "change_policy", 61: "fs_status", 62: "fs_layout_type",
	63: "layout_hint", 64: "layout_type", 65: "layout_blksize", 66: "layout_alignment", 67: "fs_locations_info",
	68: "mdsthreshold", 69: "retention_get", 70: "retention_set", 71: "retentevt_get", 72: "retentevt_set",
	73: "retention_hold", 74: "mode_set_masked", 75: "suppattr_exclcreat", 76: "fs_charset_cap", 77: "clone_blksize",
	78: "space_freed", 79: "change_attr_type", 80: "sec_label", 81: "mode_umask", 82: "xattr_support"}

var (
	fTag         = reg("nfs.tag", "Tag", dissect.TString, dec, nil)
	fMinorVers   = reg("nfs.minorversion", "minorversion", tU32, dec, nil)
	fOpsCount    = reg("nfs.ops.count", "Operations", tU32, dec, nil)
	fOp          = reg("nfs.opcode", "Opcode", tU32, dec, op4Names)
	fCBOp        = reg("nfs.cb.operation", "Opcode", tU32, dec, cbOpNames)
	fCBIdent     = reg("nfs.callback.ident", "callback_ident", tU32, hex, nil)
	fStatus4     = reg("nfs.nfsstat4", "Status", tU32, dec, nfs4StatNames)
	fAttr        = reg("nfs.attr", "reqd_attr", tU32, dec, attr4Names)
	fStateSeq    = reg("nfs.stateid.seqid", "StateID seqid", tU32, dec, nil)
	fStateOther  = reg("nfs.stateid.other", "StateID Other", dissect.TBytes, dec, nil)
	fOffset4     = reg("nfs.offset4", "offset", tU64, dec, nil)
	fCount4      = reg("nfs.count4", "count", tU32, dec, nil)
	fLength4     = reg("nfs.length4", "length", tU64, dec, nil)
	fStable4     = reg("nfs.stable_how4", "stable_how4", tU32, dec, stableNames)
	fEOF4        = reg("nfs.eof", "eof", tU32, dec, nil)
	fDirEOF4     = reg("nfs.dirlist4.eof", "EOF", dissect.TBool, dec, nil)
	fVerifier4   = reg("nfs.verifier4", "verifier", tU64, hex, nil)
	fAttrMask    = reg("nfs.attr_mask", "Attr mask", tU32, hex, nil)
	fStateid     = reg("nfs.stateid", "StateID", dissect.TBytes, dec, nil)
	fStateHash   = reg("nfs.stateid.hash", "StateID Hash", dissect.TUint16, hex, nil)
	fOtherHash   = reg("nfs.stateid.other_hash", "StateID Other hash", tU32, hex, nil)
	fOpenOwner   = reg("nfs.open_owner4", "owner", dissect.TBytes, dec, nil)
	fLockReclaim = reg("nfs.lock.reclaim", "reclaim?", dissect.TBool, dec, nil)
	fComponent   = reg("nfs.pathname.component", "Name", dissect.TString, dec, nil)
	fLinkText    = reg("nfs.symlink.linktext", "Link Contents", dissect.TString, dec, nil)
	fClientID    = reg("nfs.clientid", "clientid", tU64, hex, nil)
	fOwner4      = reg("nfs.lock_owner4", "owner", dissect.TBytes, dec, nil)
	fSeqid4      = reg("nfs.seqid", "seqid", tU32, hex, nil)
	fSessionID   = reg("nfs.session_id4", "sessionid", dissect.TBytes, dec, nil)
	fSlotID      = reg("nfs.slotid", "slot id", tU32, dec, nil)
	fHighSlot    = reg("nfs.high_slotid", "high slot id", tU32, dec, nil)
	fTargetSlot  = reg("nfs.target_high_slotid", "target high slot id", tU32, dec, nil)
	fCacheThis   = reg("nfs.cachethis4", "cache this?", dissect.TBool, dec, nil)
	fSeqFlags    = reg("nfs.sequence.flags", "status flags", tU32, hex, nil)
	fLockType    = reg("nfs.locktype4", "locktype", tU32, dec, nil)
	fNewOwner    = reg("nfs.lock.locker.new_lock_owner", "new lock owner?", dissect.TBool, dec, nil)
	fShareAcc    = reg("nfs.open4.share_access", "share_access", tU32, dec, nil)
	fShareDeny   = reg("nfs.open4.share_deny", "share_deny", tU32, dec, nil)
	fOpenType    = reg("nfs.open.opentype", "Open Type", tU32, dec, map[uint64]string{0: "OPEN4_NOCREATE", 1: "OPEN4_CREATE"})
	fCreateMd4   = reg("nfs.createmode4", "Create Mode", tU32, dec, map[uint64]string{0: "UNCHECKED4", 1: "GUARDED4", 2: "EXCLUSIVE4", 3: "EXCLUSIVE4_1"})
	fClaimType   = reg("nfs.open.claim_type", "Claim Type", tU32, dec, map[uint64]string{0: "CLAIM_NULL", 1: "CLAIM_PREVIOUS", 2: "CLAIM_DELEGATE_CUR", 3: "CLAIM_DELEGATE_PREV", 4: "CLAIM_FH", 5: "CLAIM_DELEG_CUR_FH", 6: "CLAIM_DELEG_PREV_FH"})
	fDelegType   = reg("nfs.open.delegation_type", "Delegation Type", tU32, dec, map[uint64]string{0: "OPEN_DELEGATE_NONE", 1: "OPEN_DELEGATE_READ", 2: "OPEN_DELEGATE_WRITE", 3: "OPEN_DELEGATE_NONE_EXT"})
	fRflags      = reg("nfs.open_rflags", "result flags", tU32, hex, nil)
	fAtomic      = reg("nfs.change_info.atomic", "Atomic", dissect.TBool, dec, nil)
	fChgBefore   = reg("nfs.changeid4.before", "changeid (before)", tU64, dec, nil)
	fChgAfter    = reg("nfs.changeid4.after", "changeid (after)", tU64, dec, nil)
	fFtype4      = reg("nfs.nfs_ftype4", "ftype4", tU32, dec, map[uint64]string{1: "NF4REG", 2: "NF4DIR", 3: "NF4BLK", 4: "NF4CHR", 5: "NF4LNK", 6: "NF4SOCK", 7: "NF4FIFO", 8: "NF4ATTRDIR", 9: "NF4NAMEDATTR"})
	fRecall      = reg("nfs.recall", "Recall", dissect.TBool, dec, nil)
	fAceType     = reg("nfs.acetype4", "acetype", tU32, dec, nil)
	fAceFlag     = reg("nfs.aceflags4", "ACE flags", tU32, hex, nil)
	fAceMask     = reg("nfs.acemask4", "ACE mask", tU32, hex, nil)
	fAceWho      = reg("nfs.who", "Who", dissect.TString, dec, nil)
	fLimitBy     = reg("nfs.open.limit_by", "Space Limit", tU32, dec, nil)
	fFileSize    = reg("nfs.filesize", "filesize", tU64, dec, nil)
	fNumBlocks   = reg("nfs.num_blocks", "num_blocks", tU32, dec, nil)
	fBytesPer    = reg("nfs.bytes_per_block", "bytes_per_block", tU32, dec, nil)
	fWhyNoDeleg  = reg("nfs.open.why_no_delegation", "why no delegation", tU32, dec, nil)
	fCookie4     = reg("nfs.cookie4", "cookie", tU64, dec, nil)
	fCbProgram   = reg("nfs.cb_program", "cb_program", tU32, hex, nil)
	fNetid       = reg("nfs.r_netid", "r_netid", dissect.TString, dec, nil)
	fAddr        = reg("nfs.r_addr", "r_addr", dissect.TString, dec, nil)
	fClientName  = reg("nfs.nfs_client_id4.id", "id", dissect.TBytes, dec, nil)
	fSecFlavor   = reg("nfs.secinfo.style", "Secinfo Style", tU32, dec, nil)
	fOneFS       = reg("nfs.reclaim_one_fs4", "reclaim one fs?", dissect.TBool, dec, nil)
	fCreateDir   = reg("nfs.openattr4.createdir", "attribute dir create", dissect.TBool, dec, nil)
	fSeekWhat    = reg("nfs.data_content", "data content", tU32, dec, map[uint64]string{0: "DATA", 1: "HOLE"})
	fXattrName   = reg("nfs.xattr.key", "Name", dissect.TString, dec, nil)
	fTruncate    = reg("nfs.truncate", "Truncate?", dissect.TBool, dec, nil)
	fObjsKeep    = reg("nfs.objects_to_keep", "objects to keep", tU32, dec, nil)
	fOp4Node     = reg("nfs.opnode", "Operation", dissect.TNone, dec, nil)
	fOpsUndec    = reg("nfs.ops.undecoded", "Operations not decoded", dissect.TBytes, dec, nil)
	fCBProc      = reg("nfs.cb_procedure", "CB Procedure", tU32, dec, map[uint64]string{0: "CB_NULL", 1: "CB_COMPOUND"})
)

// stateid adds a stateid4 with Wireshark's hashes: CRC-16/X.25 of the 16
// octets, CRC-32 of "other".
var (
	fMainOp = dissect.Register(&dissect.Field{Abbrev: "nfs.main_opcode", Name: "Main Opcode", Type: tU32, Names: op4Names,
		Desc: "the COMPOUND's main operations (generated; ranked as Wireshark ranks them, see opTier)"})
	fAttrVals = dissect.Register(&dissect.Field{Abbrev: "nfs.fattr4.attr_vals", Name: "attr_vals", Type: dissect.TBytes,
		Desc: "the fattr4 attribute values (rdx), decoded below it in bit order; an attribute no RFC defines ends them (a finding when others follow)"})
	fAttrCount     = reg("nfs.attr_count", "Attr count", tU32, dec, nil)
	fChangeID      = reg("nfs.changeid4", "changeid", tU64, dec, nil)
	fA4Size        = reg("nfs.fattr4.size", "size", tU64, dec, nil)
	fA4Lease       = reg("nfs.fattr4.lease_time", "lease_time", tU32, dec, nil)
	fA4Fileid      = reg("nfs.fattr4.fileid", "fileid", tU64, dec, nil)
	fA4FilesAvail  = reg("nfs.fattr4.files_avail", "files_avail", tU64, dec, nil)
	fA4FilesFree   = reg("nfs.fattr4.files_free", "files_free", tU64, dec, nil)
	fA4FilesTotal  = reg("nfs.fattr4.files_total", "files_total", tU64, dec, nil)
	fA4MaxFileSize = reg("nfs.fattr4.maxfilesize", "maxfilesize", tU64, dec, nil)
	fA4MaxLink     = reg("nfs.fattr4.maxlink", "maxlink", tU32, dec, nil)
	fA4MaxName     = reg("nfs.fattr4.maxname", "maxname", tU32, dec, nil)
	fA4MaxRead     = reg("nfs.fattr4.maxread", "maxread", tU64, dec, nil)
	fA4MaxWrite    = reg("nfs.fattr4.maxwrite", "maxwrite", tU64, dec, nil)
	fA4Numlinks    = reg("nfs.fattr4.numlinks", "numlinks", tU32, dec, nil)
	fA4SpaceAvail  = reg("nfs.fattr4.space_avail", "space_avail", tU64, dec, nil)
	fA4SpaceFree   = reg("nfs.fattr4.space_free", "space_free", tU64, dec, nil)
	fA4SpaceTotal  = reg("nfs.fattr4.space_total", "space_total", tU64, dec, nil)
	fA4SpaceUsed   = reg("nfs.fattr4.space_used", "space_used", tU64, dec, nil)
	fA4MountedOn   = reg("nfs.fattr4.mounted_on_fileid", "fileid", tU64, dissect.BaseHex, nil)
	fA4FhExpire    = reg("nfs.fattr4_fh_expire_type", "fattr4_fh_expire_type", tU32, dissect.BaseHex,
		map[uint64]string{0: "FH4_PERSISTENT"})
	fA4ACLSupport = reg("nfs.fattr4.aclsupport", "aclsupport", tU32, dec, nil)
	fA4QuotaHard  = reg("nfs.fattr4.quota_hard", "quota_hard", tU64, dec, nil)
	fA4QuotaSoft  = reg("nfs.fattr4.quota_soft", "quota_soft", tU64, dec, nil)
	fA4QuotaUsed  = reg("nfs.fattr4.quota_used", "quota_used", tU64, dec, nil)
	fA4LayoutBlk  = reg("nfs.fattr4.layout_blksize", "blksize", tU32, dec, nil)
	fA4Umask      = reg("nfs.fattr4.umask", "umask", tU32, dissect.BaseOct, nil)
	fFsid4Major   = reg("nfs.fsid4.major", "fsid4.major", tU64, dec, nil)
	fFsid4Minor   = reg("nfs.fsid4.minor", "fsid4.minor", tU64, dec, nil)
	fMode4        = reg("nfs.mode", "mode", tU32, dissect.BaseOct, nil)
	fA4Owner      = reg("nfs.fattr4_owner", "fattr4_owner", dissect.TString, dec, nil)
	fA4OwnerGroup = reg("nfs.fattr4_owner_group", "fattr4_owner_group", dissect.TString, dec, nil)
	fA4Mimetype   = reg("nfs.fattr4_mimetype", "fattr4_mimetype", dissect.TString, dec, nil)
	fTime4Sec     = reg("nfs.nfstime4.seconds", "seconds", tU64, dec, nil)
	fTime4Nsec    = reg("nfs.nfstime4.nseconds", "nseconds", tU32, dec, nil)
	// The boolean attributes, by number.
	attr4Bool = func() map[int]*dissect.Field {
		m := map[int]*dissect.Field{}
		for a, n := range map[int]string{5: "link_support", 6: "symlink_support", 7: "named_attr", 9: "unique_handles",
			14: "archive", 15: "cansettime", 16: "case_insensitive", 17: "case_preserving", 18: "chown_restricted",
			25: "hidden", 26: "homogeneous", 34: "no_trunc", 46: "system"} {
			m[a] = reg("nfs.fattr4_"+n, "fattr4_"+n, dissect.TBool, dec, nil)
		}
		return m
	}()
)

func (x *d) stateid() {
	o := x.r.Off
	b := x.r.Fixed(16)
	if x.t == nil || !x.ok() {
		return
	}
	x.t.Bytes(fStateid, o, 16, b)
	x.t.Open()
	x.t.Uint(fStateHash, o, 16, uint64(crc16X25(b)))
	x.t.Uint(fStateSeq, o, 4, uint64(binary.BigEndian.Uint32(b)))
	x.t.Bytes(fStateOther, o+4, 12, b[4:])
	x.t.Uint(fOtherHash, o+4, 12, uint64(crc32.ChecksumIEEE(b[4:])))
	x.t.Close()
}

func crc16X25(b []byte) uint16 {
	crc := uint16(0xffff)
	for _, c := range b {
		crc ^= uint16(c)
		for i := 0; i < 8; i++ {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x8408
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

// bitmap adds a bitmap4 of attributes: each word (nfs.attr_mask,
// nfs.attr_count) and each attribute set. It returns the first three words.
func (x *d) bitmap() (words [3]uint32) {
	return x.bitmapAs(nil, fAttrMask, fAttrCount, fAttr)
}

// attr4Fixed gives the field and size of the fattr4 attributes that are
// one number.
var attr4Fixed = map[int]struct {
	f    **dissect.Field
	size int
}{1: {&fFtype4, 4}, 2: {&fA4FhExpire, 4}, 3: {&fChangeID, 8}, 4: {&fA4Size, 8}, 10: {&fA4Lease, 4},
	20: {&fA4Fileid, 8}, 21: {&fA4FilesAvail, 8}, 22: {&fA4FilesFree, 8},
	23: {&fA4FilesTotal, 8}, 27: {&fA4MaxFileSize, 8}, 28: {&fA4MaxLink, 4}, 29: {&fA4MaxName, 4},
	30: {&fA4MaxRead, 8}, 31: {&fA4MaxWrite, 8}, 33: {&fMode4, 4}, 35: {&fA4Numlinks, 4}, 38: {&fA4QuotaHard, 8},
	39: {&fA4QuotaSoft, 8}, 40: {&fA4QuotaUsed, 8}, 42: {&fA4SpaceAvail, 8}, 43: {&fA4SpaceFree, 8},
	44: {&fA4SpaceTotal, 8}, 45: {&fA4SpaceUsed, 8}, 55: {&fA4MountedOn, 8}, 65: {&fA4LayoutBlk, 4}}

// fattr4 adds a bitmap and the attribute values rdx knows how to read.
func (x *d) fattr4() {
	bs := x.r.Off
	words := x.bitmap()
	high, first := highAttrs(x.r.B[bs:x.r.Off])
	s := x.r.Off
	vals := x.r.Opaque(0)
	if !x.ok() || (x.t == nil && !x.chk) {
		return
	}
	if x.t != nil {
		x.t.Bytes(fAttrVals, s+4, len(vals), vals)
		x.t.Open()
		defer x.t.Close()
	}
	r := xdr.NewReader(x.r.B[:s+4+len(vals)])
	r.Off = s + 4
	a4 := d{t: x.t, r: &r, chk: x.chk}
	for a := 0; a < 96; a++ {
		if words[a/32]&(1<<uint(a%32)) == 0 {
			continue
		}
		if !a4.attr4(a) {
			// Values have no lengths: an unknown one is skippable only
			// when it is the last one set (its value is the rest).
			if high == 0 && !laterAttrs(words, a) {
				if r.Remaining() > 0 {
					a4.fixed(fA4Value, r.Remaining())
				}
			} else if x.badAttr == 0 {
				x.badAttr, x.badLeft = a+1, r.Remaining()
			}
			return
		}
		if !a4.ok() {
			if x.shortAttr == 0 {
				x.shortAttr = a + 1
			}
			return
		}
	}
	// Attributes above 95: none is defined.
	switch {
	case high == 1 && r.Remaining() > 0:
		a4.fixed(fA4Value, r.Remaining())
	case high > 1 && r.Remaining() > 0 && x.badAttr == 0:
		x.badAttr, x.badLeft = first+1, r.Remaining()
	}
}

// highAttrs counts the attributes above 95 set in the bitmap4 b (count and
// words) and gives the first.
func highAttrs(b []byte) (n, first int) {
	for w := 3; 4+4*w+4 <= len(b); w++ {
		v := binary.BigEndian.Uint32(b[4+4*w:])
		if v != 0 && n == 0 {
			first = w*32 + bits.TrailingZeros32(v)
		}
		n += bits.OnesCount32(v)
	}
	return n, first
}

// laterAttrs tells whether an attribute after a is set.
func laterAttrs(words [3]uint32, a int) bool {
	for b := a + 1; b < 96; b++ {
		if words[b/32]&(1<<uint(b%32)) != 0 {
			return true
		}
	}
	return false
}

// attr4 adds the value of fattr4 attribute a (RFC 7530 §5.6-5.8, RFC 8881
// §5.6-5.8); false when rdx does not know its layout, which ends the
// decoding: values follow one another in bit order with no lengths.
func (x *d) attr4(a int) bool {
	if k, ok := attr4Fixed[a]; ok {
		if k.size == 4 {
			x.u32(*k.f)
		} else {
			x.u64(*k.f)
		}
		return true
	}
	if f := attr4Bool[a]; f != nil {
		x.u32(f)
		return true
	}
	switch a {
	case 0, 75: // supported_attrs, suppattr_exclcreat: bitmap4
		x.bitmap()
	case 8: // fsid4
		x.u64(fFsid4Major)
		x.u64(fFsid4Minor)
	case 32:
		x.str(fA4Mimetype)
	case 36:
		x.str(fA4Owner)
	case 37:
		x.str(fA4OwnerGroup)
	case 41: // rawdev: specdata4
		x.u32(fSpec1)
		x.u32(fSpec2)
	case 47, 49, 50, 51, 52, 53: // time_access, _backup, _create, _delta, _metadata, _modify: nfstime4
		x.u64(fTime4Sec)
		x.u32(fTime4Nsec)
	case 81: // mode_umask
		x.u32(fMode4)
		x.u32(fA4Umask)
	default:
		return x.attr4More(a)
	}
	return true
}

// entry4 adds one READDIR entry4 as Wireshark shows it: nfs.name (the
// entry's name) spanning it, with nfs.value_follows, the cookie,
// nfs.entry_name and the attributes; false after the list's last word.
func (x *d) entry4() bool {
	s := x.r.Off
	if !x.ok() {
		return false
	}
	if x.r.Remaining() >= 4 && peekU32(x.r) == 0 {
		x.u32(fFollows4)
		return false
	}
	i := -1
	if x.t != nil {
		n := xdr.NewReader(x.r.B)
		n.Off = s + 12 // after value_follows and the cookie
		name := n.Opaque(maxName)
		x.t.String(fName, s, 0, string(name))
		i = x.t.Last()
		x.t.Open()
	}
	x.u32(fFollows4)
	x.u64(fCookie4)
	x.str(fEntryName)
	x.fattr4()
	x.end(i)
	return x.ok()
}

func (x *d) changeInfo() {
	x.u32(fAtomic)
	x.u64(fChgBefore)
	x.u64(fChgAfter)
}

func (x *d) lockOwner() {
	x.u64(fClientID)
	x.opaque(fOwner4, maxName)
}

func (x *d) openOwner() {
	x.u64(fClientID)
	x.opaque(fOpenOwner, maxName)
}

func (x *d) ace() {
	x.u32(fAceType)
	x.flags(fAceFlag, aceFlagBits)
	x.aceMask()
	x.str(fAceWho)
}

func (x *d) sequenceArgs() {
	x.fixed(fSessionID, 16)
	x.u32(fSeqid4)
	x.u32(fSlotID)
	x.u32(fHighSlot)
	x.u32(fCacheThis)
}

func (x *d) sequenceRes() {
	x.fixed(fSessionID, 16)
	x.u32(fSeqid4)
	x.u32(fSlotID)
	x.u32(fHighSlot)
	x.u32(fTargetSlot)
}

// op4Args decodes one operation's arguments; false if rdx does not know
// their layout (the rest of the list cannot be found).
func op4Args(x *d, op uint32) bool {
	switch op {
	case 10, 16, 23, 24, 27, 31, 32: // GETFH LOOKUPP PUTPUBFH PUTROOTFH READLINK RESTOREFH SAVEFH: no arguments
	case 3: // ACCESS: only the rights asked about
		x.flags(fAccessCheck, setBits(accessBits, uint64(peekU32(x.r))))
	case 4: // CLOSE
		x.u32(fSeqid4)
		x.stateid()
	case 5: // COMMIT
		x.u64(fOffset4)
		x.u32(fCount4)
	case 6: // CREATE
		switch x.u32(fFtype4) {
		case 5:
			x.str(fLinkText)
		case 3, 4:
			x.u32(fSpec1)
			x.u32(fSpec2)
		}
		x.str(fComponent)
		x.fattr4()
	case 7, 30, 57: // DELEGPURGE RENEW DESTROY_CLIENTID
		x.u64(fClientID)
	case 8, 45: // DELEGRETURN FREE_STATEID
		x.stateid()
	case 9: // GETATTR
		x.bitmap()
	case 11, 15, 28, 33: // LINK LOOKUP REMOVE SECINFO
		x.str(fComponent)
	case 12: // LOCK
		x.u32(fLockType)
		x.u32(fLockReclaim)
		x.u64(fOffset4)
		x.u64(fLength4)
		if x.u32(fNewOwner) != 0 {
			x.u32(fSeqid4)
			x.stateid()
			x.u32(fSeqid4)
			x.lockOwner()
		} else {
			x.stateid()
			x.u32(fSeqid4)
		}
	case 13: // LOCKT
		x.u32(fLockType)
		x.u64(fOffset4)
		x.u64(fLength4)
		x.lockOwner()
	case 14: // LOCKU
		x.u32(fLockType)
		x.u32(fSeqid4)
		x.stateid()
		x.u64(fOffset4)
		x.u64(fLength4)
	case 17, 37: // NVERIFY VERIFY
		x.fattr4()
	case 18: // OPEN
		x.u32(fSeqid4)
		x.u32(fShareAcc)
		x.u32(fShareDeny)
		x.openOwner()
		if x.u32(fOpenType) == 1 {
			switch x.u32(fCreateMd4) {
			case 0, 1:
				x.fattr4()
			case 2:
				x.u64(fVerifier4)
			case 3:
				x.u64(fVerifier4)
				x.fattr4()
			}
		}
		switch x.u32(fClaimType) {
		case 0, 3:
			x.str(fComponent)
		case 1:
			x.u32(fDelegType)
		case 2:
			x.stateid()
			x.str(fComponent)
		case 5:
			x.stateid()
		}
	case 19: // OPENATTR
		x.u32(fCreateDir)
	case 20: // OPEN_CONFIRM
		x.stateid()
		x.u32(fSeqid4)
	case 21: // OPEN_DOWNGRADE
		x.stateid()
		x.u32(fSeqid4)
		x.u32(fShareAcc)
		x.u32(fShareDeny)
	case 22: // PUTFH
		x.fh("filehandle")
	case 25, 68: // READ READ_PLUS
		x.stateid()
		x.u64(fOffset4)
		x.u32(fCount4)
	case 26: // READDIR
		x.u64(fCookie4)
		x.u64(fCookieVerf4)
		x.u32(fDirCount4)
		x.u32(fMaxCount4)
		x.bitmap()
	case 29: // RENAME
		x.str(fComponent)
		x.str(fComponent)
	case 34: // SETATTR
		x.stateid()
		x.fattr4()
	case 35: // SETCLIENTID
		x.u64(fVerifier4)
		x.opaque(fClientName, maxName)
		x.u32(fCbProgram)
		x.str(fNetid)
		x.str(fAddr)
		x.u32(fCBIdent)
	case 36: // SETCLIENTID_CONFIRM
		x.u64(fClientID)
		x.u64(fVerifier4)
	case 38: // WRITE
		x.stateid()
		x.u64(fOffset4)
		x.u32(fStable4)
		x.dataLen(fWriteLen)
		x.opaque(fData, 0)
	case 39: // RELEASE_LOCKOWNER
		x.lockOwner()
	case 41: // BIND_CONN_TO_SESSION
		x.fixed(fSessionID, 16)
		x.u32(fBCTSADir)
		x.u32(fBCTSAUseRDMA)
	case 44: // DESTROY_SESSION
		x.fixed(fSessionID, 16)
	case 52: // SECINFO_NO_NAME
		x.u32(fSecFlavor)
	case 53: // SEQUENCE
		x.sequenceArgs()
	case 55: // TEST_STATEID
		x.node(fTSStateids)
		n := x.r.Count(16)
		for i := 0; i < n && x.ok(); i++ {
			x.stateid()
		}
		x.close()
	case 58: // RECLAIM_COMPLETE
		x.u32(fOneFS)
	case 59, 62: // ALLOCATE DEALLOCATE
		x.stateid()
		x.u64(fOffset4)
		x.u64(fLength4)
	case 69: // SEEK
		x.stateid()
		x.u64(fOffset4)
		x.u32(fSeekWhat)
	case 71: // CLONE
		x.copyRange()
	case 72, 75: // GETXATTR REMOVEXATTR
		x.str(fXattrName)
	default:
		return op41Args(x, op)
	}
	return x.ok()
}

func (x *d) lockDenied() {
	x.u64(fOffset4)
	x.u64(fLength4)
	x.u32(fLockType)
	x.lockOwner()
}

// op4Res decodes one operation's results after its status; false if rdx
// does not know their layout.
func op4Res(x *d, m *oncrpc.Msg, op, st uint32) bool {
	if st != 0 {
		switch {
		case (op == 12 || op == 13) && st == 10010: // LOCK, LOCKT: NFS4ERR_DENIED
			x.lockDenied()
		case op == 34: // SETATTR: attrsset
			x.bitmap()
		case op == 35 && st == 10017: // SETCLIENTID: NFS4ERR_CLID_INUSE
			x.str(fNetid)
			x.str(fAddr)
		default:
			op41ErrRes(x, op, st)
		}
		return x.ok()
	}
	switch op {
	case 7, 8, 10, 11, 13, 15, 16, 17, 19, 22, 23, 24, 30, 31, 32, 36, 37, 39, 44, 45, 57, 58, 59, 62, 71:
		switch op {
		case 10: // GETFH
			x.fh("filehandle")
		case 11: // LINK
			x.changeInfo()
		}
	case 3: // ACCESS: the rights the server can check, and which of them it grants
		supp := uint64(peekU32(x.r))
		x.flags(fAccessSupp, setBits(accessSuppBits, supp))
		x.flags(fAccessRights, setBits(accessBits, supp))
	case 4, 14, 20, 21: // CLOSE LOCKU OPEN_CONFIRM OPEN_DOWNGRADE
		x.stateid()
	case 12: // LOCK
		x.stateid()
	case 5: // COMMIT
		x.u64(fVerifier4)
	case 6: // CREATE
		x.changeInfo()
		x.bitmap()
	case 9: // GETATTR
		x.fattr4()
	case 18: // OPEN
		x.stateid()
		x.changeInfo()
		x.u32(fRflags)
		x.bitmap()
		x.openDelegation()
	case 25: // READ
		x.u32(fEOF4)
		x.dataLen(fReadLen)
		x.data(m)
	case 26: // READDIR
		x.u64(fVerifier4)
		for i := 0; i < maxEntries && x.entry4(); i++ {
		}
		x.u32(fDirEOF4)
	case 27: // READLINK
		x.str(fLinkText)
	case 28: // REMOVE
		x.changeInfo()
	case 29: // RENAME
		x.changeInfo()
		x.changeInfo()
	case 34: // SETATTR
		x.bitmap()
	case 35: // SETCLIENTID
		x.u64(fClientID)
		x.u64(fVerifier4)
	case 38: // WRITE
		x.u32(fCount4)
		x.u32(fStable4)
		x.u64(fVerifier4)
	case 41: // BIND_CONN_TO_SESSION
		x.fixed(fSessionID, 16)
		x.u32(fBCTSRDir)
		x.u32(fBCTSRUseRDMA)
	case 53: // SEQUENCE
		x.sequenceRes()
		x.u32(fSeqFlags)
	case 55: // TEST_STATEID
		x.node(fTSResults)
		n := x.r.Count(4)
		for i := 0; i < n && x.ok(); i++ {
			x.status4()
		}
		x.close()
	case 69: // SEEK
		x.u32(fEOF4)
		x.u64(fOffset4)
	case 72: // GETXATTR
		x.opaque(fData, 0) // the value: Wireshark's nfs.data
	case 75: // REMOVEXATTR
		x.changeInfo()
	default:
		return op41Res(x, m, op)
	}
	return x.ok()
}

func cbArgs(x *d, op uint32) bool {
	switch op {
	case 3: // CB_GETATTR
		x.fh("fh")
		x.bitmap()
	case 4: // CB_RECALL
		x.stateid()
		x.u32(fTruncate)
		x.fh("fh")
	case 8: // CB_RECALL_ANY
		x.u32(fObjsKeep)
		x.bitmap()
	case 10: // CB_RECALL_SLOT
		x.u32(fTargetSlot)
	case 11: // CB_SEQUENCE
		x.sequenceArgs()
		n := x.r.Count(20)
		for i := 0; i < n && x.ok(); i++ { // referring_call_list4
			x.fixed(fSessionID, 16)
			k := x.r.Count(8)
			for j := 0; j < k && x.ok(); j++ {
				x.u32(fSeqid4)
				x.u32(fSlotID)
			}
		}
	case 13: // CB_NOTIFY_LOCK
		x.fh("fh")
		x.lockOwner()
	default:
		return cb41Args(x, op)
	}
	return x.ok()
}

func cbRes(x *d, op, st uint32) bool {
	if st != 0 {
		return true
	}
	switch op {
	case 3:
		x.fattr4()
	case 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 10044: // no results
	case 11:
		x.sequenceRes()
	default:
		return false
	}
	return x.ok()
}

// compound4 is NFSv4 COMPOUND (program 100003 version 4) or CB_COMPOUND
// (the callback program, version 1 or 4).
type compound4 struct {
	cb bool
}

func (c compound4) Proto() *dissect.ProtoInfo { return PNFS }

func (c compound4) opField() *dissect.Field {
	if c.cb {
		return fCBOp
	}
	return fOp
}

// walk decodes the COMPOUND arguments or results of m into x (x.t may be
// nil: summaries), calling each for every operation with its status (0 in
// calls). It returns the COMPOUND status (replies) and whether the whole
// operation list was decoded.
func (c compound4) walk(x *d, m *oncrpc.Msg, each func(op, st uint32)) (uint32, bool) {
	call := m.Type == oncrpc.Call
	var status uint32
	if !call {
		status = x.u32(fStatus4)
		if x.t != nil && x.ok() {
			x.t.Uint(fStatus, x.r.Off-4, 4, uint64(status))
		}
	}
	x.str(fTag)
	if call {
		x.u32(fMinorVers)
		if c.cb {
			x.u32(fCBIdent)
		}
	}
	o := x.r.Off
	n := x.r.Count(4)
	if !x.ok() {
		return status, false
	}
	if x.t != nil && !c.cb { // tshark shows no count in CB_COMPOUND
		x.t.Uint(fOpsCount, o, 4, uint64(n))
	}
	for i := 0; i < min(n, MaxOps); i++ {
		s := x.r.Off
		x.curOp, x.opIdx = 0, i+1
		op := x.r.U32()
		if !x.ok() {
			return status, false
		}
		x.curOp = int64(op) + 1
		opNode := -1
		if x.t != nil {
			x.t.UintLabel(fOp4Node, s, 0, 0, opName(c.cb, op))
			opNode = x.t.Last()
			x.t.Open()
			x.t.Uint(c.opField(), s, 4, uint64(op))
		}
		var st uint32
		if !call {
			so := x.r.Off
			st = x.u32(fStatus4)
			if x.t != nil && x.ok() {
				x.t.Uint(fStatus, so, 4, uint64(st))
			}
		}
		if each != nil {
			each(op, st)
		}
		var ok bool
		switch {
		case c.cb && call:
			ok = cbArgs(x, op)
		case c.cb:
			ok = cbRes(x, op, st)
		case call:
			ok = op4Args(x, op)
		default:
			ok = op4Res(x, m, op, st)
		}
		if x.t != nil {
			x.t.Close()
			// the operation node spans its bytes
			if opNode >= 0 && x.t.Nodes[opNode].Off >= 0 {
				x.t.Nodes[opNode].Len = int32(x.r.Off - s)
			}
		}
		if !ok {
			if x.r.Err() == nil {
				x.badOp, x.badLeft = int64(op)+1, x.r.Remaining()
			}
			if x.t != nil && x.r.Remaining() > 0 && x.r.Err() == nil {
				x.t.Bytes(fOpsUndec, x.r.Off, x.r.Remaining(), x.r.B[x.r.Off:])
			}
			return status, false
		}
	}
	if n > MaxOps {
		if x.t != nil && x.r.Remaining() > 0 {
			x.t.Bytes(fOpsUndec, x.r.Off, x.r.Remaining(), x.r.B[x.r.Off:])
		}
		return status, false
	}
	return status, true
}

// MaxOps is the most operations of a COMPOUND decoded. Servers accept far
// fewer (Linux: 200; sessions negotiate ca_maxoperations, typically 16 to
// 50); a COMPOUND claiming more gets a finding (Validate) and the rest is
// left undecoded.
const MaxOps = 1024

// Validate implements oncrpc.Validator: the tag and the operation count of
// a COMPOUND must fit in what the message holds.
func (c compound4) Validate(f *dissect.Frame, idx int, m *oncrpc.Msg) {
	if m.Proc != 1 || (m.Type != oncrpc.Call && !m.Matched()) {
		return
	}
	r := xdr.NewReader(m.Body())
	bad := func(msg string) { f.AddFinding(idx, dissect.Error, dissect.GroupMalformed, fOpsCount, "nfs", msg) }
	if m.Type != oncrpc.Call {
		r.U32() // status
	}
	if r.Err() != nil {
		return
	}
	if n := r.U32(); r.Err() == nil && (n > maxName || int64(n) > int64(r.Remaining())) {
		bad("COMPOUND tag length " + strconv.FormatUint(uint64(n), 10) + " exceeds the " + strconv.Itoa(r.Remaining()) +
			" octets left (at most " + strconv.Itoa(maxName) + " decoded): not decoded further")
		return
	} else if r.Err() == nil {
		r.Skip((int(n) + 3) &^ 3)
	}
	if m.Type == oncrpc.Call {
		r.U32() // minorversion
		if c.cb {
			r.U32() // callback_ident
		}
	}
	if r.Err() != nil {
		return
	}
	n := r.U32()
	switch {
	case r.Err() != nil:
	case int64(n)*4 > int64(r.Remaining()):
		bad("COMPOUND claims " + strconv.FormatUint(uint64(n), 10) + " operations but only " + strconv.Itoa(r.Remaining()) +
			" octets follow: not decoded")
	case n > MaxOps:
		bad("COMPOUND of " + strconv.FormatUint(uint64(n), 10) + " operations: only the first " + strconv.Itoa(MaxOps) + " are decoded")
	default:
		c.check(f, idx, m)
	}
}

// check walks the operations and their attribute values and says where
// the decoding cannot go on: XDR carries no lengths, so past an operation
// or a (not last) attribute rdx does not know nothing can be found.
func (c compound4) check(f *dissect.Frame, idx int, m *oncrpc.Msg) {
	r := xdr.NewReader(m.Body())
	x := d{r: &r, chk: true}
	c.walk(&x, m, nil)
	what := "operation "
	if c.cb {
		what = "callback operation "
	}
	switch {
	case x.badOp != 0:
		f.AddFinding(idx, dissect.Warn, dissect.GroupUndecoded, c.opField(), "nfs", "unknown NFSv4 "+what+
			strconv.FormatInt(x.badOp-1, 10)+": the "+strconv.Itoa(x.badLeft)+
			" octets after it cannot be decoded (XDR gives no operation lengths)")
	case x.badAttr != 0:
		f.AddFinding(idx, dissect.Warn, dissect.GroupUndecoded, fAttr, "nfs", "unknown fattr4 attribute "+
			strconv.Itoa(x.badAttr-1)+" followed by others: the last "+strconv.Itoa(x.badLeft)+
			" octets of attr_vals cannot be decoded (values carry no lengths)")
	case x.shortAttr != 0:
		f.AddFinding(idx, dissect.Warn, dissect.GroupMalformed, fAttr, "nfs", "fattr4 attr_vals end inside attribute "+
			strconv.Itoa(x.shortAttr-1)+" ("+attr4Names[uint64(x.shortAttr-1)]+"): the attributes after it are not decoded")
	case r.Err() != nil:
		where := "before operation " + strconv.Itoa(x.opIdx)
		if x.curOp != 0 {
			where = "in operation " + strconv.Itoa(x.opIdx) + " (" + opName(c.cb, uint32(x.curOp-1)) + ")"
		}
		f.AddFinding(idx, dissect.Warn, dissect.GroupMalformed, c.opField(), "nfs", "COMPOUND cut short "+where+
			": "+r.Err().Error()+" (RPC body offsets); the operations after it are not decoded")
	}
}

// opTier ranks operations as Wireshark's nfs.main_opcode does; the
// operations of the best tier in a COMPOUND are its main ones. Wireshark's
// table, as tshark 4.0.17 applies it to every pair of operations
// (TestMainOpcodeAgainstTshark): ILLEGAL above all; then every other
// operation; then ACCESS and NVERIFY; then GETATTR, PUTPUBFH and
// PUTROOTFH; then GETFH, PUTFH, RESTOREFH, SAVEFH and SEQUENCE. It never
// names GET_DIR_DELEGATION, SET_SSV, WANT_DELEGATION or an opcode it does
// not know (tier 0).
func opTier(op uint32) int {
	switch op {
	case 10044: // ILLEGAL
		return 5
	case 3, 17: // ACCESS NVERIFY
		return 3
	case 9, 23, 24: // GETATTR PUTPUBFH PUTROOTFH
		return 2
	case 10, 22, 31, 32, 53: // GETFH PUTFH RESTOREFH SAVEFH SEQUENCE
		return 1
	case 46, 54, 56: // GET_DIR_DELEGATION SET_SSV WANT_DELEGATION
		return 0
	}
	if op >= 3 && op <= 75 {
		return 4
	}
	return 0
}

// mainOps adds nfs.main_opcode (generated) for the operations of the
// best tier.
func mainOps(t *dissect.Tree, ops []uint32) {
	top := 0
	for _, op := range ops {
		top = max(top, opTier(op))
	}
	if top == 0 {
		return
	}
	for _, op := range ops {
		if opTier(op) == top {
			t.Uint(fMainOp, -1, 0, uint64(op))
		}
	}
}

func opName(cb bool, op uint32) string {
	if cb {
		return cbOpNames[uint64(op)]
	}
	return op4Names[uint64(op)]
}

func (c compound4) Tree(t *dissect.Tree, m *oncrpc.Msg) {
	b := m.Data()
	t.Proto(PNFS, m.BodyOff(), len(b)-m.BodyOff(), "")
	t.Uint(oncrpc.FProgVers, -1, 0, uint64(m.Vers))
	pf := fProc4
	if c.cb {
		pf = fCBProc
	}
	t.UintLabel(pf, -1, 0, uint64(m.Proc), u32Label(t, pf.Names, uint64(m.Proc)))
	if m.Proc != 1 || (m.Type != oncrpc.Call && !m.Matched()) {
		return
	}
	r := xdr.NewReader(b)
	r.Off = m.BodyOff()
	var ops []uint32
	c.walk(&d{t: t, r: &r}, m, func(op, st uint32) { ops = append(ops, op) })
	if !c.cb {
		mainOps(t, ops)
	}
}

// Summary implements oncrpc.Program: "V4 COMPOUND Call SEQUENCE | PUTFH |
// GETATTR" or, for a failed reply, "... Status: NFS4ERR_NOENT".
func (c compound4) Summary(dst []byte, m *oncrpc.Msg) []byte {
	dst = oncrpc.AppendProc(dst, m)
	if m.Proc != 1 || (m.Type != oncrpc.Call && !m.Matched()) {
		return dst
	}
	r := xdr.NewReader(m.Body())
	x := d{r: &r}
	first := true
	st, whole := c.walk(&x, m, func(op, _ uint32) {
		if first {
			dst = append(dst, ' ')
			first = false
		} else {
			dst = append(dst, " | "...)
		}
		if n := opName(c.cb, op); n != "" {
			dst = append(dst, n...)
		} else {
			dst = appendName(dst, nil, uint64(op))
		}
	})
	if !whole && r.Err() == nil && !first {
		dst = append(dst, " ..."...)
	}
	if st != 0 {
		dst = append(dst, " Status: "...)
		dst = appendName(dst, nfs4StatNames, uint64(st))
	}
	return dst
}

// CallbackProgram is the ONC RPC program number the Linux server uses for
// NFSv4.0 callbacks (the client picks it in SETCLIENTID; 4.1 uses the fore
// channel's program on the back channel).
const CallbackProgram = 0x40000000

func init() {
	addProgram(100003, "nfs", oncrpc.Versions{3: nfs3{}, 4: compound4{}})
	addProgram(CallbackProgram, "nfs_cb", oncrpc.Versions{1: compound4{cb: true}, 4: compound4{cb: true}})
}
