package nfs

import (
	"math/bits"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/oncrpc"
	"github.com/rdx-project/rdx/dissect/xdr"
)

// NFSv4.1 (RFC 8881 §18, §20) and NFSv4.2 (RFC 7862 §15, §16, RFC 8276)
// operations and the fattr4 attributes whose values are structures, with
// Wireshark's field names where it has one. Every operation's XDR is
// defined, type-specific bodies (layouts, device addresses) being opaque,
// so a COMPOUND is decoded to its end whatever it holds.

var layoutTypeNames = map[uint64]string{1: "LAYOUT4_NFSV4_1_FILES", 2: "LAYOUT4_OSD2_OBJECTS", 3: "LAYOUT4_BLOCK_VOLUME",
	4: "LAYOUT4_FLEX_FILES", 5: "LAYOUT4_SCSI"}

var (
	fNumAces      = reg("nfs.num_aces", "ACE count", tU32, dec, nil)
	fACLFlags     = reg("nfs.acl.flags", "ACL flags", tU32, dec, nil)
	fPathCount    = reg("nfs.pathname.component.count", "pathname components", tU32, dec, nil)
	fServer       = reg("nfs.server", "server", dissect.TString, dec, nil)
	fFsLocation   = reg("nfs.fattr4.fs_location", "fs_location4", dissect.TNone, dec, nil)
	fLayoutType   = reg("nfs.layouttype", "layout type", tU32, dec, layoutTypeNames)
	fLayoutBody   = reg("nfs.layout", "layout", dissect.TBytes, dec, nil)
	fA4LayoutAlgn = reg("nfs.fattr4.layout_alignment", "layout_alignment", tU32, dec, nil)
	fA4Charset    = reg("nfs.fattr4.fs_charset_cap", "fs_charset_cap", tU32, hex, nil)
	fA4CloneBlk   = reg("nfs.fattr4.clone_block_size", "clone block size", tU32, dec, nil)
	fA4SpaceFreed = reg("nfs.fattr4.space_freed", "space freed", tU64, dec, nil)
	fA4ChgAttrTyp = reg("nfs.fattr4.change_attr_type", "change attr type", tU32, dec, nil)
	fA4LabelLFS   = reg("nfs.fattr4.security_label.lfs", "label_format", tU32, dec, nil)
	fA4LabelPI    = reg("nfs.fattr4.security_label.pi", "policy_id", tU32, dec, nil)
	fA4LabelCtx   = reg("nfs.fattr4.security_label.context", "context", dissect.TString, dec, nil)
	fA4XattrSupp  = reg("nfs.fattr4_xattr_support", "fattr4_xattr_support", dissect.TBool, dec, nil)
	fThreshItem   = reg("nfs.fattr4.threshold_item", "threshold_item4", dissect.TNone, dec, nil)
	fThreshMask   = reg("nfs.fattr4.threshold_item.hint_mask", "hint mask", tU32, hex, nil)
	fThreshHint   = reg("nfs.fattr4.threshold_item.hint", "hint", tU32, dec,
		map[uint64]string{0: "Read_Size", 1: "Write_Size", 2: "Read_IO_Size", 3: "Write_IO_Size"})
	fThreshHints = reg("nfs.fattr4.threshold_item.hint_count", "hint", tU32, dec, nil)
	fThreshMasks = reg("nfs.fattr4.threshold_item.mask_count", "number of masks", tU32, dec, nil)
	fThreshVals  = reg("nfs.fattr4.threshold_item.values", "hint values (rdx)", dissect.TBytes, dec, nil)
	fServers     = reg("nfs.servers", "servers", dissect.TNone, dec, nil)
	fFlavorsInfo = reg("nfs.flavors.info", "Flavors Info", dissect.TNone, dec, nil)
	fContents    = reg("nfs.contents", "Contents", dissect.TNone, dec, nil)
	fAcePerm     = reg("nfs.ace_perm4", "perm", tU32, hex, map[uint64]string{0x1: "READ_DATA / LIST_DIRECTORY",
		0x2: "WRITE_DATA / ADD_FILE", 0x4: "APPEND_DATA / ADD_SUBDIRECTORY", 0x8: "READ_NAMED_ATTRS", 0x10: "WRITE_NAMED_ATTRS",
		0x20: "EXECUTE", 0x40: "DELETE_CHILD", 0x80: "READ_ATTRIBUTES", 0x100: "WRITE_ATTRIBUTES", 0x200: "WRITE_RETENTION",
		0x400: "WRITE_RETENTION_HOLD", 0x10000: "DELETE", 0x20000: "READ_ACL", 0x40000: "WRITE_ACL", 0x80000: "WRITE_OWNER",
		0x100000: "SYNCHRONIZE"})
	fOpMask     = reg("nfs.op_mask", "op_mask", tU32, hex, nil)
	fNotifyType = reg("nfs.notify_type", "notify_type", tU32, dec, nil)
	fHintCount  = reg("nfs.hint.count", "Hint count", tU32, dec, nil)
	fHintHint   = reg("nfs.hint.hint", "Hint", tU32, dec, nil)
	fReclaim4   = reg("nfs.reclaim4", "reclaim", dissect.TBool, dec, nil)
	fDevNum     = reg("nfs.devicenum4", "num devices", tU32, dec, nil)
	fTSStateids = reg("nfs.test_stateid.stateids", "StateID List", dissect.TNone, dec, nil)
	fTSResults  = reg("nfs.test_stateid.results", "StateID Result List", dissect.TNone, dec, nil)
	fUAddrIPv4  = reg("nfs.universal_address.ipv4", "universal_address", dissect.TIPv4, dec, nil)

	aceFlagBits = []*dissect.Field{bit("nfs.aceflag4.file_inherit", "File_Inherit", 0x1),
		bit("nfs.aceflag4.dir_inherit", "Directory_Inherit", 0x2),
		bit("nfs.aceflag4.no_prop_inherit", "No_Propagate_Inherit", 0x4),
		bit("nfs.aceflag4.inherit_only", "Inherit_Only", 0x8),
		bit("nfs.aceflag4.successful_access", "Successful_Access", 0x10),
		bit("nfs.aceflag4.failed_access", "Failed_access", 0x20),
		bit("nfs.aceflag4.id_group", "Identifier_Group", 0x40),
		bit("nfs.aceflag4.inherited_ace", "Inherited_ACE", 0x80)}
	aclFlagBits = []*dissect.Field{bit("nfs.acl.flags.auto_inherit", "AUTO_INHERIT", 0x1),
		bit("nfs.acl.flags.protected", "PROTECTED", 0x2), bit("nfs.acl.flags.defaulted", "DEFAULTED", 0x4)}
	aclSupportBits = []*dissect.Field{bit("nfs.fattr4.aclsupport.allow_acl", "ALLOW", 0x1),
		bit("nfs.fattr4.aclsupport.deny_acl", "DENY", 0x2), bit("nfs.fattr4.aclsupport.audit_acl", "AUDIT", 0x4),
		bit("nfs.fattr4.aclsupport.alarm_acl", "ALARM", 0x8)}
	charsetBits = []*dissect.Field{bit("nfs.fattr4.fs_charset_cap.nonutf8", "CONTAINS_NON_UTF8", 0x1),
		bit("nfs.fattr4.fs_charset_cap.utf8", "ALLOWS_ONLY_UTF8", 0x2)}
	eidFlagBits = []*dissect.Field{bit("nfs.exchange_id.flags.confirmed_r", "EXCHGID4_FLAG_CONFIRMED_R", 0x80000000),
		bit("nfs.exchange_id.flags.confirmed_rec_a", "EXCHGID4_FLAG_UPD_CONFIRMED_REC_A", 0x40000000),
		bit("nfs.exchange_id.flags.pnfs_ds", "EXCHGID4_FLAG_USE_PNFS_DS", 0x40000),
		bit("nfs.exchange_id.flags.pnfs_mds", "EXCHGID4_FLAG_USE_PNFS_MDS", 0x20000),
		bit("nfs.exchange_id.flags.non_pnfs", "EXCHGID4_FLAG_USE_NON_PNFS", 0x10000),
		bit("nfs.exchange_id.flags.bind_princ", "EXCHGID4_FLAG_BIND_PRINC_STATEID", 0x100),
		bit("nfs.exchange_id.flags.moved_migr", "EXCHGID4_FLAG_SUPP_MOVED_MIGR", 0x2),
		bit("nfs.exchange_id.flags.moved_refer", "EXCHGID4_FLAG_SUPP_MOVED_REFER", 0x1)}
	csFlagBits = []*dissect.Field{bit("nfs.create_session.flags.persist", "CREATE_SESSION4_FLAG_PERSIST", 0x1),
		bit("nfs.create_session.flags.conn_back_chan", "CREATE_SESSION4_FLAG_CONN_BACK_CHAN", 0x2),
		bit("nfs.create_session.flags.conn_rdma", "CREATE_SESSION4_FLAG_CONN_RDMA", 0x4)}
	fA4Value = reg("nfs.fattr4.value", "value of an attribute rdx does not know (the last one set: its length is the rest)",
		dissect.TBytes, dec, nil)
	// Attributes Wireshark 4.0 shows as undecoded data: rdx's names.
	fA4ChgPolicy  = reg("nfs.fattr4.change_policy", "change_policy", tU64, dec, nil)
	fA4FssAbsent  = reg("nfs.fattr4.fs_status.absent", "fss_absent", dissect.TBool, dec, nil)
	fA4FssType    = reg("nfs.fattr4.fs_status.type", "fss_type", tU32, dec, nil)
	fA4FssSource  = reg("nfs.fattr4.fs_status.source", "fss_source", dissect.TString, dec, nil)
	fA4FssCurrent = reg("nfs.fattr4.fs_status.current", "fss_current", dissect.TString, dec, nil)
	fA4FssAge     = reg("nfs.fattr4.fs_status.age", "fss_age", dissect.TInt32, dec, nil)
	fA4FliFlags   = reg("nfs.fattr4.fs_locations_info.flags", "fli_flags", tU32, hex, nil)
	fA4FliValid   = reg("nfs.fattr4.fs_locations_info.valid_for", "fli_valid_for", dissect.TInt32, dec, nil)
	fA4FlsCurr    = reg("nfs.fattr4.fs_locations_info.currency", "fls_currency", dissect.TInt32, dec, nil)
	fA4FlsInfo    = reg("nfs.fattr4.fs_locations_info.info", "fls_info", dissect.TBytes, dec, nil)
	fA4RetDur     = reg("nfs.fattr4.retention.duration", "duration", tU64, dec, nil)
	fA4RetEnable  = reg("nfs.fattr4.retention.enable", "enable", dissect.TBool, dec, nil)
	fA4RetHold    = reg("nfs.fattr4.retention_hold", "retention_hold", tU64, hex, nil)
	fA4ModeMask   = reg("nfs.fattr4.mode_set_masked.mask", "mask bits", tU32, dec, nil)

	// EXCHANGE_ID, CREATE_SESSION, BACKCHANNEL_CTL, SET_SSV.
	fEIAFlags     = reg("nfs.exchange_id.call_flags", "flags", tU32, hex, nil)
	fEIRFlags     = reg("nfs.exchange_id.reply_flags", "flags", tU32, hex, nil)
	fStateProt    = reg("nfs.exchange_id.state_protect", "eia_state_protect", tU32, dec, map[uint64]string{0: "SP4_NONE", 1: "SP4_MACH_CRED", 2: "SP4_SSV"})
	fSPHashAlgs   = reg("nfs.sp_parms4_hash_algs", "State Protect hash algorithms", dissect.TNone, dec, nil)
	fSPEncrAlgs   = reg("nfs.sp_parms4_encr_algs", "State Protect encryption algorithms", dissect.TNone, dec, nil)
	fSecOID       = reg("nfs.secinfo.flavor_info.rpcsec_gss_info.oid", "oid", dissect.TBytes, dec, nil)
	fSPWindow     = reg("nfs.state_protect_window", "State Protect window", tU32, hex, nil)
	fSPNumGSS     = reg("nfs.state_protect_num_gss_handles", "State Protect num gss handles", tU32, hex, nil)
	fSPHashAlg    = reg("nfs.prot_info4_hash_alg", "Prot Info hash algorithm", tU32, hex, nil)
	fSPEncrAlg    = reg("nfs.prot_info4_encr_alg", "Prot Info encryption algorithm", tU32, hex, nil)
	fSPSSVLen     = reg("nfs.prot_info4_svv_length", "Prot Info svv_length", tU32, hex, nil)
	fSPSpiWindow  = reg("nfs.prot_info4_spi_window", "Prot Info spi window", tU32, hex, nil)
	fGSSHandle    = reg("nfs.gsshandle4", "gsshandle4", dissect.TBytes, dec, nil)
	fNiiDomain    = reg("nfs.nii_domain4", "Implementor DNS domain name(nii_domain)", dissect.TString, dec, nil)
	fNiiName      = reg("nfs.nii_name4", "Implementation product name(nii_name)", dissect.TString, dec, nil)
	fMinorID      = reg("nfs.minorid4", "minor ID", tU64, dec, nil)
	fMajorID      = reg("nfs.majorid4", "major ID", dissect.TBytes, dec, nil)
	fScope        = reg("nfs.scope", "server scope", dissect.TBytes, dec, nil)
	fCSFlags      = reg("nfs.create_session_flags", "csa_flags", tU32, hex, nil)
	fPadSize      = reg("nfs.padsize4", "hdr pad size", tU32, dec, nil)
	fMaxReqSize   = reg("nfs.maxreqsize4", "max req size", tU32, dec, nil)
	fMaxRespSize  = reg("nfs.maxrespsize4", "max resp size", tU32, dec, nil)
	fMaxRespCache = reg("nfs.maxrespsizecached4", "max resp size cached", tU32, dec, nil)
	fMaxOps       = reg("nfs.maxops4", "max ops", tU32, dec, nil)
	fMaxReqs      = reg("nfs.maxreqs4", "max reqs", tU32, dec, nil)
	fRDMAIrd      = reg("nfs.rdmachanattrs4", "RDMA chan attrs", tU32, dec, nil)
	fFlavor4      = reg("nfs.flavor4", "flavor", tU32, dec, flavorNames)
	fStamp4       = reg("nfs.stamp4", "stamp", tU32, dec, nil)
	fMachine4     = reg("nfs.machinename4", "machine name", dissect.TString, dec, nil)
	fUID4         = reg("nfs.uid4", "uid", tU32, dec, nil)
	fGID4         = reg("nfs.gid4", "gid", tU32, dec, nil)
	fService4     = reg("nfs.service4", "gid", tU32, dec, nil)
	fSSV          = reg("nfs.ssv", "SSV", dissect.TBytes, dec, nil)
	fSSVDigest    = reg("nfs.ssv.digest", "digest", dissect.TBytes, dec, nil)
	fBCTSADir     = reg("nfs.bctsa_dir", "bctsa_dir", tU32, hex, nil)
	fBCTSAUseRDMA = reg("nfs.bctsa_use_conn_in_rdma_mode", "bctsa_use_conn_in_rdma_mode", dissect.TBool, dec, nil)
	fBCTSRDir     = reg("nfs.bctsr_dir", "bctsr_dir", tU32, hex, nil)
	fBCTSRUseRDMA = reg("nfs.bctsr_use_conn_in_rdma_mode", "bctsr_use_conn_in_rdma_mode", dissect.TBool, dec, nil)

	// SECINFO, SECINFO_NO_NAME.
	fSecInfoFlav = reg("nfs.secinfo.flavor", "flavor", tU32, dec, flavorNames)
	fGSSQop      = reg("nfs.secinfo.flavor_info.rpcsec_gss_info.qop", "qop", tU32, dec, nil)
	fGSSService  = reg("nfs.secinfo.rpcsec_gss_info.service", "service", tU32, dec,
		map[uint64]string{1: "rpcsec_gss_svc_none", 2: "rpcsec_gss_svc_integrity", 3: "rpcsec_gss_svc_privacy"})

	// pNFS.
	fDeviceID    = reg("nfs.deviceid", "device ID", dissect.TBytes, dec, nil)
	fIOMode      = reg("nfs.iomode", "IO mode", tU32, dec, map[uint64]string{1: "IOMODE_READ", 2: "IOMODE_RW", 3: "IOMODE_ANY"})
	fMinLength   = reg("nfs.minlength4", "min length", tU64, dec, nil)
	fLayoutAvail = reg("nfs.layoutavail", "layout available?", dissect.TBool, dec, nil)
	fRetClose    = reg("nfs.retclose4", "return on close?", dissect.TBool, dec, nil)
	fReturnType  = reg("nfs.returntype", "return type", tU32, dec, map[uint64]string{1: "RETURN_FILE", 2: "RETURN_FSID", 3: "RETURN_ALL"})
	fLrfBody     = reg("nfs.lrf_body_content", "lrf_body_content", dissect.TBytes, dec, nil)
	fLrsPresent  = reg("nfs.lrs_present", "StateID present?", dissect.TBool, dec, nil)
	fNewTime     = reg("nfs.newtime", "new time?", dissect.TBool, dec, nil)
	fNewOffset   = reg("nfs.newoffset", "new offset?", dissect.TBool, dec, nil)
	fNewSize     = reg("nfs.newsize", "new size?", dissect.TBool, dec, nil)
	fLayoutUpd   = reg("nfs.layoutupdate", "layout update", dissect.TBytes, dec, nil)
	fNotifyMask  = reg("nfs.notify_mask", "notify_mask", tU32, hex, nil)
	fDevAddr     = reg("nfs.devinfo", "dev info", dissect.TBytes, dec, nil)
	fMinCount    = reg("nfs.mincount", "mincount", tU32, dec, nil)
	fRecallType  = reg("nfs.recalltype", "recall type", tU32, dec, map[uint64]string{1: "RECALL_FILE", 2: "RECALL_FSID", 3: "RECALL_ALL"})
	fClorChanged = reg("nfs.clorachanged", "Clora changed", dissect.TBool, dec, nil)
	fDevErrCount = reg("nfs.device_error_count", "Device Error count", tU32, dec, nil)
	fDevErrIdx   = reg("nfs.device_errors_index", "Device Error index", tU32, dec, nil)
	fIOErrOp     = reg("nfs.ff_ioerrs_op", "OP", tU32, dec, op4Names)
	fIOCount     = reg("nfs.io_count", "count", tU64, dec, nil)
	fIOBytes     = reg("nfs.io_bytes", "bytes", tU64, dec, nil)
	fLayoutStats = reg("nfs.layoutstats", "Layout Stats", dissect.TBytes, dec, nil)

	// Layout-type bodies: files (RFC 8881 §13.3-13.4), flexible files (RFC 8435 §5.1, §4.1).
	fDevIdx       = reg("nfs.deviceidx", "device index", tU32, dec, nil)
	fNflUtil      = reg("nfs.nfl_util", "nfl_util", tU32, hex, nil)
	fNflStripe    = reg("nfs.nfl_util.stripe_size", "stripe size", tU32, dec, nil)
	fNflCommitMDS = reg("nfs.nfl_util.commit_thru_mds", "commit thru mds", tU32, dec, nil)
	fNflDense     = reg("nfs.nfl_util.dense", "dense layout", tU32, dec, nil)
	fNflFirst     = reg("nfs.nfl_first_stripe_index", "first stripe to use index", tU32, dec, nil)
	fNflFhs       = reg("nfs.nfl_fhs", "file handles", tU32, hex, nil)
	fStripeUnit   = reg("nfs.stripeunit", "stripe unit", tU64, dec, nil)
	fNflMirrors   = reg("nfs.nfl_mirrors", "Mirror", tU32, dec, nil)
	fMirrorEff    = reg("nfs.nff_mirror_eff", "mirror efficiency", tU32, hex, nil)
	fFFOwner      = reg("nfs.ff.synthetic_owner", "synthetic owner", dissect.TString, dec, nil)
	fFFGroup      = reg("nfs.ff.synthetic_owner_group", "synthetic group", dissect.TString, dec, nil)
	fFFFlags      = reg("nfs.ff.layout_flags", "layout flags", tU32, hex, nil)
	fFFStatsHint  = reg("nfs.ff.stats_collect_hint", "stats collect hint", tU32, dec, nil)
	fFFVersion    = reg("nfs.ff.version", "version", tU32, dec, nil)
	fFFMinor      = reg("nfs.ff.minorversion", "minorversion", tU32, dec, nil)
	fFFRsize      = reg("nfs.ff.rsize", "max_rsize", tU32, dec, nil)
	fFFWsize      = reg("nfs.ff.wsize", "max_wsize", tU32, dec, nil)
	fFFTight      = reg("nfs.ff.tightly_coupled", "tightly coupled", dissect.TBool, dec, nil)
	ffFlagBits    = []*dissect.Field{bit("nfs.ff.layout_flags.no_layoutcommit", "FLAG_NO_LAYOUTCOMMIT", 0x1),
		bit("nfs.ff.layout_flags.no_io_thru_mds", "FLAG_NO_IO_THRU_MDS", 0x2),
		bit("nfs.ff.layout_flags.no_read_io", "FLAG_NO_READ_IO", 0x4)}

	// Delegations and directory delegations.
	fWant        = reg("nfs.want", "wants", tU32, hex, nil)
	fSignalAvail = reg("nfs.signal_deleg_avail", "signal delegation available?", dissect.TBool, dec, nil)
	fGDDStatus   = reg("nfs.gddr_status", "status", tU32, dec, map[uint64]string{0: "GDD4_OK", 1: "GDD4_UNAVAIL"})
	fWillSignal  = reg("nfs.will_signal_deleg_avail", "will signal delegation available?", dissect.TBool, dec, nil)
	fWillPush    = reg("nfs.will_push_deleg", "server will push delegation?", dissect.TBool, dec, nil)
	fCancelCont  = reg("nfs.wants_cancelled.contended", "contended wants cancelled?", dissect.TBool, dec, nil)
	fCancelRes   = reg("nfs.wants_cancelled.resourced", "resourced wants cancelled?", dissect.TBool, dec, nil)
	fNotifyVals  = reg("nfs.notify_vals", "notify values", dissect.TBytes, dec, nil)

	// NFSv4.2.
	fConsecutive  = reg("nfs.consecutive", "copy consecutively?", dissect.TBool, dec, nil)
	fSynchronous  = reg("nfs.synchronous", "copy synchronous?", dissect.TBool, dec, nil)
	fNetlocType   = reg("nfs.netloctype", "netloc type", tU32, dec, map[uint64]string{1: "NL4_NAME", 2: "NL4_URL", 3: "NL4_NETADDR"})
	fNlName       = reg("nfs.nl_name", "net loc name", dissect.TString, dec, nil)
	fNlURL        = reg("nfs.nl_url", "net loc url", dissect.TString, dec, nil)
	fSourceSrvs   = reg("nfs.source_servers", "Source Server count", tU32, dec, nil)
	fCallbackIDs  = reg("nfs.callback_ids", "Callback StateIds", tU32, dec, nil)
	fBytesCopied  = reg("nfs.bytes_copied", "bytes copied", tU64, dec, nil)
	fNumOffStat   = reg("nfs.num_offload_status", "Number of offload status", tU32, dec, nil)
	fOffloadStat  = reg("nfs.offload_status", "nfsstat4", tU32, dec, nfs4StatNames)
	fHintMask     = reg("nfs.hint.mask", "Hint mask", tU32, hex, nil)
	fContentType  = reg("nfs.content.type", "Content Type", tU32, dec, map[uint64]string{0: "DATA", 1: "HOLE"})
	fADBBlockSize = reg("nfs.adb.block_size", "block size", tU64, dec, nil)
	fADBCount     = reg("nfs.adb.block_count", "block count", tU64, dec, nil)
	fADBRelBlock  = reg("nfs.adb.reloff_blocknum", "relative block number offset", tU64, dec, nil)
	fADBBlockNum  = reg("nfs.adb.block.num", "Block Number", tU32, dec, nil)
	fADBRelPat    = reg("nfs.adb.reloff_pattern", "relative pattern offset", tU64, dec, nil)
	fADBPattern   = reg("nfs.adb.pattern", "pattern", dissect.TBytes, dec, nil)
	fXattrOption  = reg("nfs.setxattr.options", "setxattr options", tU32, dec, map[uint64]string{0: "EITHER", 1: "CREATE", 2: "REPLACE"})
	fLxaCookie    = reg("nfs.lisxtattr.cookie", "cookie", tU64, dec, nil)
	fLxaMaxCount  = reg("nfs.lisxtattr.maxcount", "maxcount", tU32, dec, nil)
	fLxaNames     = reg("nfs.listxattr.names.count", "xattr names count", tU32, dec, nil)
	fLxaEOF       = reg("nfs.lisxtattr.eof", "eof", tU32, dec, nil)
)

// pathname adds a pathname4 (component4<>).
func (x *d) pathname() {
	n := x.count(fPathCount, 4)
	for i := 0; i < n && x.ok(); i++ {
		x.str(fComponent)
	}
}

// acl adds an nfsace4<> with its count.
func (x *d) acl() {
	n := x.count(fNumAces, 16)
	for i := 0; i < n && x.ok(); i++ {
		x.ace()
	}
}

// layoutTypes adds a layouttype4<>.
func (x *d) layoutTypes() {
	n := x.r.Count(4)
	for i := 0; i < n && x.ok(); i++ {
		x.u32(fLayoutType)
	}
}

func (x *d) nfstime() {
	x.u64(fTime4Sec)
	x.u32(fTime4Nsec)
}

// settime adds a settime4 (time_access_set, time_modify_set).
func (x *d) settime() {
	if x.u32(fSetIt) == 1 {
		x.nfstime()
	}
}

// attr4More decodes the attributes attr4 has no case for; false if rdx
// does not know a's layout.
func (x *d) attr4More(a int) bool {
	switch a {
	case 11: // rdattr_error
		x.status4()
	case 13:
		x.flags(fA4ACLSupport, aclSupportBits)
	case 12: // acl
		x.acl()
	case 19: // filehandle
		x.fh("filehandle")
	case 24: // fs_locations: fs_root, fs_location4<>
		x.pathname()
		n := x.r.Count(8)
		for i := 0; i < n && x.ok(); i++ {
			x.node(fFsLocation)
			x.node(fServers)
			k := x.r.Count(4)
			for j := 0; j < k && x.ok(); j++ {
				x.str(fServer)
			}
			x.close()
			x.pathname()
			x.close()
		}
	case 48, 54: // time_access_set, time_modify_set
		x.settime()
	case 56, 57: // dir_notif_delay, dirent_notif_delay
		x.nfstime()
	case 58, 59: // dacl, sacl: nfsacl41
		x.flags(fACLFlags, aclFlagBits)
		x.acl()
	case 60: // change_policy
		x.u64(fA4ChgPolicy)
		x.u64(fA4ChgPolicy)
	case 61: // fs_status
		x.u32(fA4FssAbsent)
		x.u32(fA4FssType)
		x.str(fA4FssSource)
		x.str(fA4FssCurrent)
		x.i32(fA4FssAge)
		x.nfstime()
	case 62, 64: // fs_layout_type, layout_types
		x.layoutTypes()
	case 63: // layout_hint: layouthint4
		x.u32(fLayoutType)
		x.opaque(fLayoutBody, 0)
	case 66:
		x.u32(fA4LayoutAlgn)
	case 67: // fs_locations_info
		x.u32(fA4FliFlags)
		x.i32(fA4FliValid)
		x.pathname()
		n := x.r.Count(8)
		for i := 0; i < n && x.ok(); i++ {
			x.node(fFsLocation)
			k := x.r.Count(12)
			for j := 0; j < k && x.ok(); j++ {
				x.i32(fA4FlsCurr)
				x.opaque(fA4FlsInfo, 0)
				x.str(fServer)
			}
			x.pathname()
			x.close()
		}
	case 68: // mdsthreshold: threshold_item4<>
		n := x.count(fThreshHints, 12)
		for i := 0; i < n && x.ok(); i++ {
			x.node(fThreshItem)
			x.u32(fLayoutType)
			w := x.bitmapAs(fThreshMasks, fThreshMask, nil, fThreshHint)
			x.thresholdHints(w[0])
			x.close()
		}
	case 69, 71: // retention_get, retentevt_get
		x.u64(fA4RetDur)
		if x.r.Count(12) > 0 {
			x.nfstime()
		}
	case 70, 72: // retention_set, retentevt_set
		x.u32(fA4RetEnable)
		if x.r.Count(8) > 0 {
			x.u64(fA4RetDur)
		}
	case 73:
		x.u64(fA4RetHold)
	case 74: // mode_set_masked
		x.u32(fMode4)
		x.u32(fA4ModeMask)
	case 76:
		x.flags(fA4Charset, charsetBits)
	case 77:
		x.u32(fA4CloneBlk)
	case 78:
		x.u64(fA4SpaceFreed)
	case 79:
		x.u32(fA4ChgAttrTyp)
	case 80: // sec_label
		x.u32(fA4LabelLFS)
		x.u32(fA4LabelPI)
		x.str(fA4LabelCtx)
	case 82:
		x.u32(fA4XattrSupp)
	default:
		return false
	}
	return true
}

// status4 adds an nfsstat4 as Wireshark does: nfs.nfsstat4 and nfs.status.
func (x *d) status4() uint32 {
	o := x.r.Off
	st := x.u32(fStatus4)
	if x.t != nil && x.ok() {
		x.t.Uint(fStatus, o, 4, uint64(st))
	}
	return st
}

// bitmapAs adds a bitmap4 of something other than attributes: the word
// count (wc, if not nil), each non-zero word (mask) with its number of bits
// set (count, if not nil) and each bit number (item). It returns the first
// three words.
func (x *d) bitmapAs(wc, mask, count, item *dissect.Field) (words [3]uint32) {
	n := x.r.Count(4)
	if wc != nil && x.t != nil && x.ok() {
		x.t.Uint(wc, x.r.Off-4, 4, uint64(n))
	}
	for w := 0; w < n && x.ok(); w++ {
		o := x.r.Off
		v := x.r.U32()
		if !x.ok() {
			break
		}
		if w < len(words) {
			words[w] = v
		}
		if x.t == nil || v == 0 {
			continue
		}
		x.t.Uint(mask, o, 4, uint64(v))
		x.t.Open()
		if count != nil {
			x.t.Uint(count, o, 4, uint64(bits.OnesCount32(v)))
		}
		for b := 0; b < 32; b++ {
			if v&(1<<uint(b)) != 0 {
				x.t.Uint(item, o, 4, uint64(w*32+b))
			}
		}
		x.t.Close()
	}
	return words
}

// copyRange adds what COPY and CLONE start with (RFC 7862 §15.2, §15.13):
// source and destination stateids, source and destination offsets, and the
// length.
func (x *d) copyRange() {
	x.stateid()
	x.stateid()
	x.u64(fOffset4)
	x.u64(fOffset4)
	x.u64(fLength4)
}

// thresholdHints adds a threshold_item4's thi_hintlist: one length4 per
// hint set (RFC 8881 §5.12.11, all four hints are length4).
func (x *d) thresholdHints(set uint32) {
	s := x.r.Off
	b := x.r.Opaque(0)
	if x.t == nil || !x.ok() {
		return
	}
	r := xdrReader(x.r.B[:s+4+len(b)], s+4)
	h := d{t: x.t, r: &r}
	for i := 0; i < 4 && h.ok() && h.r.Remaining() > 0; i++ {
		if set&(1<<uint(i)) != 0 {
			h.u64(fLength4)
		}
	}
	if h.r.Remaining() > 0 {
		h.fixed(fThreshVals, h.r.Remaining())
	}
}

// aceMask adds an acemask4 and each permission set (nfs.ace_perm4).
func (x *d) aceMask() {
	o := x.r.Off
	v := x.u32(fAceMask)
	if x.t == nil || !x.ok() {
		return
	}
	for b := 0; b < 32; b++ {
		if v&(1<<uint(b)) != 0 {
			x.t.Uint(fAcePerm, o, 4, uint64(1)<<uint(b))
		}
	}
}

func (x *d) i32(f *dissect.Field) int32 {
	o := x.r.Off
	v := x.r.I32()
	if x.t != nil && x.ok() {
		x.t.Int(f, o, 4, int64(v))
	}
	return v
}

// stateProtOps adds a state_protect_ops4: must-enforce and must-allow
// operation bitmaps.
func (x *d) stateProtOps() {
	x.bitmapAs(nil, fOpMask, nil, fOp)
	x.bitmapAs(nil, fOpMask, nil, fOp)
}

func (x *d) implID() {
	if x.r.Count(20) > 0 { // nfs_impl_id4<1>
		x.str(fNiiDomain)
		x.str(fNiiName)
		x.nfstime()
	}
}

func (x *d) oids(f *dissect.Field) {
	x.node(f)
	n := x.r.Count(4)
	for i := 0; i < n && x.ok(); i++ {
		x.opaque(fSecOID, maxName)
	}
	x.close()
}

func (x *d) channelAttrs(label string) {
	g := x.group(label)
	x.u32(fPadSize)
	x.u32(fMaxReqSize)
	x.u32(fMaxRespSize)
	x.u32(fMaxRespCache)
	x.u32(fMaxOps)
	x.u32(fMaxReqs)
	if x.r.Count(4) > 0 { // ca_rdma_ird<1>
		x.u32(fRDMAIrd)
	}
	x.end(g)
}

// cbSecParms adds a callback_sec_parms4<>.
func (x *d) cbSecParms() {
	n := x.r.Count(4)
	for i := 0; i < n && x.ok(); i++ {
		switch x.u32(fFlavor4) {
		case 1: // AUTH_SYS: authsys_parms
			x.u32(fStamp4)
			x.str(fMachine4)
			x.u32(fUID4)
			x.u32(fGID4)
			k := x.r.Count(4)
			for j := 0; j < k && x.ok(); j++ {
				x.u32(fGID4)
			}
		case 6: // RPCSEC_GSS: gss_cb_handles4
			x.u32(fService4)
			x.opaque(fData, maxName) // the handles: Wireshark's nfs.data
			x.opaque(fData, maxName)
		}
	}
}

// secinfo adds a SECINFO4resok: secinfo4<>.
func (x *d) secinfo() {
	x.node(fFlavorsInfo)
	defer x.close()
	n := x.r.Count(4)
	for i := 0; i < n && x.ok(); i++ {
		if x.u32(fSecInfoFlav) == 6 {
			x.opaque(fSecOID, maxName)
			x.u32(fGSSQop)
			x.u32(fGSSService)
		}
	}
}

// openDelegation adds an open_delegation4 (OPEN, WANT_DELEGATION,
// CB_PUSH_DELEG).
func (x *d) openDelegation() {
	switch x.u32(fDelegType) {
	case 1:
		x.stateid()
		x.u32(fRecall)
		x.ace()
	case 2:
		x.stateid()
		x.u32(fRecall)
		switch x.u32(fLimitBy) {
		case 1:
			x.u64(fFileSize)
		case 2:
			x.u32(fNumBlocks)
			x.u32(fBytesPer)
		}
		x.ace()
	case 3:
		switch x.u32(fWhyNoDeleg) {
		case 1:
			x.u32(fWillPush)
		case 2:
			x.u32(fWillSignal)
		}
	}
}

// netloc adds a netloc4.
func (x *d) netloc() {
	switch x.u32(fNetlocType) {
	case 1:
		x.str(fNlName)
	case 2:
		x.str(fNlURL)
	case 3:
		x.str(fNetid)
		x.uaddr(x.str(fAddr))
	}
}

// uaddr adds the IPv4 address of an IPv4 universal address
// ("h1.h2.h3.h4.p1.p2", RFC 5665 §5.2.3.3).
func (x *d) uaddr(a []byte) {
	if x.t == nil || !x.ok() {
		return
	}
	var ip [6]uint
	k, dig := 0, false
	for _, c := range a {
		switch {
		case c >= '0' && c <= '9' && ip[k] < 256:
			ip[k], dig = ip[k]*10+uint(c-'0'), true
		case c == '.' && dig && k < 5:
			k, dig = k+1, false
		default:
			return
		}
	}
	if k != 5 || !dig || ip[0] > 255 || ip[1] > 255 || ip[2] > 255 || ip[3] > 255 {
		return
	}
	x.t.Bytes(fUAddrIPv4, x.r.Off-len(a)-(4-len(a)%4)%4, len(a), []byte{byte(ip[0]), byte(ip[1]), byte(ip[2]), byte(ip[3])})
}

// writeResponse adds a write_response4 (COPY, WRITE_SAME, CB_OFFLOAD).
func (x *d) writeResponse() {
	n := x.count(fCallbackIDs, 16)
	for i := 0; i < n && x.ok(); i++ {
		x.stateid()
	}
	x.u64(fLength4)
	x.u32(fStable4)
	x.u64(fVerifier4)
}

func (x *d) layoutUpdate() {
	x.u32(fLayoutType)
	x.opaque(fLayoutUpd, 0)
}

// notify4s adds a notify4<> (CB_NOTIFY, CB_NOTIFY_DEVICEID).
func (x *d) notify4s() {
	n := x.r.Count(8)
	for i := 0; i < n && x.ok(); i++ {
		x.notifyBitmap()
		x.opaque(fNotifyVals, 0)
	}
}

func (x *d) notifyBitmap() { x.bitmapAs(nil, fNotifyMask, nil, fNotifyType) }

func xdrReader(b []byte, off int) xdr.Reader {
	r := xdr.NewReader(b)
	r.Off = off
	return r
}

// typedBody adds a layout or device address body of layout type lt: decoded
// when rdx knows the type and the body is exactly that structure, else as
// opaque f.
func (x *d) typedBody(f *dissect.Field, lt uint32, dev bool) {
	s := x.r.Off
	b := x.r.Opaque(0)
	if x.t == nil || !x.ok() {
		return
	}
	end := s + 4 + len(b)
	if lt == 1 || lt == 4 {
		r := xdrReader(x.r.B[:end], s+4)
		y := d{r: &r}
		y.layoutBody(lt, dev)
		if r.Err() == nil && r.Off == end {
			r = xdrReader(x.r.B[:end], s+4)
			y.t = x.t
			y.layoutBody(lt, dev)
			return
		}
	}
	x.t.Bytes(f, s+4, len(b), b)
	x.t.Open()
	oncrpc.TreeOpaqueParts(x.t, s, b, x.r.B[end:x.r.Off])
	x.t.Close()
}

func (x *d) layoutBody(lt uint32, dev bool) {
	switch {
	case lt == 1 && dev:
		x.filesDevAddr()
	case lt == 1:
		x.filesLayout()
	case lt == 4 && dev:
		x.ffDevAddr()
	default:
		x.ffLayout()
	}
}

// multipath adds a multipath_list4 (netaddr4<>).
func (x *d) multipath() {
	n := x.r.Count(8)
	for i := 0; i < n && x.ok(); i++ {
		x.str(fNetid)
		x.str(fAddr) // Wireshark shows no nfs.universal_address here
	}
}

// filesDevAddr: nfsv4_1_file_layout_ds_addr4.
func (x *d) filesDevAddr() {
	n := x.r.Count(4)
	for i := 0; i < n && x.ok(); i++ {
		x.u32(fDevIdx)
	}
	n = x.r.Count(4)
	for i := 0; i < n && x.ok(); i++ {
		x.multipath()
	}
}

// filesLayout: nfsv4_1_file_layout4.
func (x *d) filesLayout() {
	x.fixed(fDeviceID, 16)
	o := x.r.Off
	u := x.u32(fNflUtil)
	if x.t != nil && x.ok() {
		x.t.Open()
		x.t.Uint(fNflStripe, o, 4, uint64(u&^0x3f))
		x.t.Uint(fNflCommitMDS, o, 4, uint64(u>>1&1))
		x.t.Uint(fNflDense, o, 4, uint64(u&1))
		x.t.Close()
	}
	x.u32(fNflFirst)
	x.u64(fOffset4)
	n := x.count(fNflFhs, 4)
	for i := 0; i < n && x.ok(); i++ {
		x.fh("filehandle")
	}
}

// ffDevAddr: ff_device_addr4.
func (x *d) ffDevAddr() {
	x.multipath()
	n := x.r.Count(20)
	for i := 0; i < n && x.ok(); i++ {
		x.u32(fFFVersion)
		x.u32(fFFMinor)
		x.u32(fFFRsize)
		x.u32(fFFWsize)
		x.u32(fFFTight)
	}
}

// ffLayout: ff_layout4.
func (x *d) ffLayout() {
	x.u64(fStripeUnit)
	n := x.count(fNflMirrors, 4)
	for i := 0; i < n && x.ok(); i++ {
		k := x.r.Count(44)
		for j := 0; j < k && x.ok(); j++ {
			x.fixed(fDeviceID, 16)
			x.u32(fMirrorEff)
			x.stateid()
			m := x.r.Count(4)
			for l := 0; l < m && x.ok(); l++ {
				x.fh("filehandle")
			}
			x.str(fFFOwner)
			x.str(fFFGroup)
		}
	}
	x.flags(fFFFlags, ffFlagBits)
	x.u32(fFFStatsHint)
}

// op41Args decodes the arguments of the operations op4Args has no case for.
func op41Args(x *d, op uint32) bool {
	switch op {
	case 10044: // ILLEGAL: no arguments
	case 40: // BACKCHANNEL_CTL
		x.u32(fCbProgram)
		x.cbSecParms()
	case 42: // EXCHANGE_ID
		x.u64(fVerifier4)
		x.opaque(fData, maxName) // co_ownerid: Wireshark's nfs.data
		x.flags(fEIAFlags, eidFlagBits)
		switch x.u32(fStateProt) {
		case 1:
			x.stateProtOps()
		case 2:
			x.stateProtOps()
			x.oids(fSPHashAlgs)
			x.oids(fSPEncrAlgs)
			x.u32(fSPWindow)
			x.u32(fSPNumGSS)
		}
		x.implID()
	case 43: // CREATE_SESSION
		x.u64(fClientID)
		x.u32(fSeqid4)
		x.flags(fCSFlags, csFlagBits)
		x.channelAttrs("csa_fore_chan_attrs")
		x.channelAttrs("csa_back_chan_attrs")
		x.u32(fCbProgram)
		x.cbSecParms()
	case 46: // GET_DIR_DELEGATION
		x.u32(fSignalAvail)
		x.notifyBitmap()
		x.nfstime()
		x.nfstime()
		x.bitmap()
		x.bitmap()
	case 47: // GETDEVICEINFO
		x.fixed(fDeviceID, 16)
		x.u32(fLayoutType)
		x.u32(fMaxCount4)
		x.notifyBitmap()
	case 48: // GETDEVICELIST
		x.u32(fLayoutType)
		x.u32(fMaxCount4)
		x.u64(fCookie4)
		x.u64(fCookieVerf4)
	case 49: // LAYOUTCOMMIT
		x.u64(fOffset4)
		x.u64(fLength4)
		x.u32(fReclaim4)
		x.stateid()
		if x.u32(fNewOffset) != 0 {
			x.u64(fOffset4)
		}
		if x.u32(fNewTime) != 0 {
			x.nfstime()
		}
		x.layoutUpdate()
	case 50: // LAYOUTGET
		x.u32(fLayoutAvail)
		x.u32(fLayoutType)
		x.u32(fIOMode)
		x.u64(fOffset4)
		x.u64(fLength4)
		x.u64(fMinLength)
		x.stateid()
		x.u32(fMaxCount4)
	case 51: // LAYOUTRETURN
		x.u32(fReclaim4)
		x.u32(fLayoutType)
		x.u32(fIOMode)
		if x.u32(fReturnType) == 1 {
			x.u64(fOffset4)
			x.u64(fLength4)
			x.stateid()
			x.opaque(fLrfBody, 0)
		}
	case 54: // SET_SSV
		x.opaque(fSSV, 0)
		x.opaque(fSSVDigest, 0)
	case 56: // WANT_DELEGATION
		x.u32(fWant)
		if x.u32(fClaimType) == 1 {
			x.u32(fDelegType)
		}
	case 60: // COPY
		x.copyRange()
		x.u32(fConsecutive)
		x.u32(fSynchronous)
		n := x.count(fSourceSrvs, 4)
		for i := 0; i < n && x.ok(); i++ {
			x.netloc()
		}
	case 61: // COPY_NOTIFY
		x.stateid()
		x.netloc()
	case 63: // IO_ADVISE
		x.stateid()
		x.u64(fOffset4)
		x.u64(fLength4)
		x.bitmapAs(nil, fHintMask, fHintCount, fHintHint)
	case 64: // LAYOUTERROR
		x.u64(fOffset4)
		x.u64(fLength4)
		x.stateid()
		n := x.count(fDevErrCount, 24)
		for i := 0; i < n && x.ok(); i++ {
			if x.t != nil {
				x.t.Uint(fDevErrIdx, x.r.Off, 0, uint64(i))
			}
			x.fixed(fDeviceID, 16)
			x.status4()
			x.u32(fIOErrOp)
		}
	case 65: // LAYOUTSTATS
		x.u64(fOffset4)
		x.u64(fLength4)
		x.stateid()
		x.u64(fIOCount)
		x.u64(fIOBytes)
		x.u64(fIOCount)
		x.u64(fIOBytes)
		x.fixed(fDeviceID, 16)
		x.u32(fLayoutType)
		x.opaque(fLayoutStats, 0)
	case 66, 67: // OFFLOAD_CANCEL OFFLOAD_STATUS
		x.stateid()
	case 70: // WRITE_SAME
		x.stateid()
		x.u32(fStable4)
		x.u64(fOffset4)
		x.u64(fADBBlockSize)
		x.u64(fADBCount)
		x.u64(fADBRelBlock)
		x.u32(fADBBlockNum)
		x.u64(fADBRelPat)
		x.opaque(fADBPattern, 0)
	case 73: // SETXATTR
		x.u32(fXattrOption)
		x.str(fXattrName)
		x.opaque(fData, 0)
	case 74: // LISTXATTRS
		x.u64(fLxaCookie)
		x.u32(fLxaMaxCount)
	default:
		return false
	}
	return x.ok()
}

// op41ErrRes decodes the results that follow an error status (the ones
// op4Res has no case for); false if none.
func op41ErrRes(x *d, op, st uint32) {
	switch {
	case op == 47 && st == 10005: // GETDEVICEINFO: NFS4ERR_TOOSMALL
		x.u32(fMinCount)
	case op == 50 && st == 10058: // LAYOUTGET: NFS4ERR_LAYOUTTRYLATER
		x.u32(fWillSignal)
	case (op == 60 || op == 70) && st == 10094: // COPY: NFS4ERR_OFFLOAD_NO_REQS
		x.u32(fConsecutive)
		x.u32(fSynchronous)
	}
}

// op41Res decodes the successful results of the operations op4Res has no
// case for.
func op41Res(x *d, m *oncrpc.Msg, op uint32) bool {
	switch op {
	case 40, 54, 64, 65, 66, 10044: // no results but SET_SSV's digest
		if op == 54 {
			x.opaque(fSSVDigest, 0)
		}
	case 33, 52: // SECINFO SECINFO_NO_NAME
		x.secinfo()
	case 42: // EXCHANGE_ID
		x.u64(fClientID)
		x.u32(fSeqid4)
		x.flags(fEIRFlags, eidFlagBits)
		switch x.u32(fStateProt) {
		case 1:
			x.stateProtOps()
		case 2:
			x.stateProtOps()
			x.u32(fSPHashAlg)
			x.u32(fSPEncrAlg)
			x.u32(fSPSSVLen)
			x.u32(fSPSpiWindow)
			n := x.r.Count(4)
			for i := 0; i < n && x.ok(); i++ {
				x.opaque(fGSSHandle, maxName)
			}
		}
		x.u64(fMinorID)
		x.opaque(fMajorID, maxName)
		x.opaque(fScope, maxName)
		x.implID()
	case 43: // CREATE_SESSION
		x.fixed(fSessionID, 16)
		x.u32(fSeqid4)
		x.flags(fCSFlags, csFlagBits)
		x.channelAttrs("csr_fore_chan_attrs")
		x.channelAttrs("csr_back_chan_attrs")
	case 46: // GET_DIR_DELEGATION
		if x.u32(fGDDStatus) == 0 {
			x.u64(fVerifier4)
			x.stateid()
			x.notifyBitmap()
			x.bitmap()
			x.bitmap()
		} else {
			x.u32(fWillSignal)
		}
	case 47: // GETDEVICEINFO
		x.typedBody(fDevAddr, x.u32(fLayoutType), true)
		x.notifyBitmap()
	case 48: // GETDEVICELIST
		x.u64(fCookie4)
		x.u64(fCookieVerf4)
		n := x.count(fDevNum, 16)
		for i := 0; i < n && x.ok(); i++ {
			x.fixed(fDeviceID, 16)
		}
		x.u32(fEOF4)
	case 49: // LAYOUTCOMMIT
		if x.u32(fNewSize) != 0 {
			x.u64(fLength4)
		}
	case 50: // LAYOUTGET
		x.u32(fRetClose)
		x.stateid()
		n := x.r.Count(28)
		for i := 0; i < n && x.ok(); i++ {
			x.u64(fOffset4)
			x.u64(fLength4)
			x.u32(fIOMode)
			x.typedBody(fLayoutBody, x.u32(fLayoutType), false)
		}
	case 51: // LAYOUTRETURN
		if x.u32(fLrsPresent) != 0 {
			x.stateid()
		}
	case 56: // WANT_DELEGATION
		x.openDelegation()
	case 60: // COPY
		x.writeResponse()
		x.u32(fConsecutive)
		x.u32(fSynchronous)
	case 61: // COPY_NOTIFY
		x.nfstime()
		x.stateid()
		n := x.count(fSourceSrvs, 4)
		for i := 0; i < n && x.ok(); i++ {
			x.netloc()
		}
	case 63: // IO_ADVISE
		x.bitmapAs(nil, fHintMask, fHintCount, fHintHint)
	case 67: // OFFLOAD_STATUS
		x.u64(fLength4)
		n := x.count(fNumOffStat, 4)
		if n > 0 { // osr_complete<1>: Wireshark shows it as both
			o := x.r.Off
			st := x.u32(fOffloadStat)
			if x.t != nil && x.ok() {
				x.t.Uint(fStatus4, o, 4, uint64(st))
			}
		}
	case 68: // READ_PLUS
		x.u32(fEOF4)
		x.node(fContents)
		defer x.close()
		n := x.r.Count(12)
		for i := 0; i < n && x.ok(); i++ {
			switch x.u32(fContentType) {
			case 0: // data4: as READ's, its data may have gone by RDMA
				x.u64(fOffset4)
				x.dataLen(fReadLen)
				x.data(m)
			case 1: // data_info4
				x.u64(fOffset4)
				x.u64(fLength4)
			}
		}
	case 70: // WRITE_SAME
		x.writeResponse()
	case 73: // SETXATTR
		x.changeInfo()
	case 74: // LISTXATTRS
		x.u64(fLxaCookie)
		n := x.count(fLxaNames, 4)
		for i := 0; i < n && x.ok(); i++ {
			x.str(fXattrName)
		}
		x.u32(fLxaEOF)
	default:
		return false
	}
	return x.ok()
}

// cb41Args decodes the callback arguments cbArgs has no case for.
func cb41Args(x *d, op uint32) bool {
	switch op {
	case 10044: // CB_ILLEGAL
	case 5: // CB_LAYOUTRECALL
		x.u32(fLayoutType)
		x.u32(fIOMode)
		x.u32(fClorChanged)
		switch x.u32(fRecallType) {
		case 1:
			x.fh("fh")
			x.u64(fOffset4)
			x.u64(fLength4)
			x.stateid()
			x.opaque(fLrfBody, 0)
		case 2:
			x.u64(fFsid4Major)
			x.u64(fFsid4Minor)
		}
	case 6: // CB_NOTIFY
		x.stateid()
		x.fh("fh")
		x.notify4s()
	case 7: // CB_PUSH_DELEG
		x.fh("fh")
		x.openDelegation()
	case 9: // CB_RECALLABLE_OBJ_AVAIL
		x.u32(fObjsKeep)
		x.bitmap()
	case 12: // CB_WANTS_CANCELLED
		x.u32(fCancelCont)
		x.u32(fCancelRes)
	case 14: // CB_NOTIFY_DEVICEID
		x.notify4s()
	case 15: // CB_OFFLOAD
		x.fh("fh")
		x.stateid()
		if x.status4() == 0 {
			x.writeResponse()
		} else {
			x.u64(fBytesCopied)
		}
	default:
		return false
	}
	return x.ok()
}
