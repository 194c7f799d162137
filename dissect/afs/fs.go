package afs

// Fileserver (RXAFS, port 7000, service 1) decoders, after OpenAFS
// afsint.xg. Streamed calls (FetchData, StoreData) carry their file data
// between the fixed arguments and results: FetchData's reply starts with a
// length (4 octets, 8 for FetchData64) and that many octets, then the
// results; StoreData's request has the fixed arguments, then Length octets.

const (
	maxName   = 256  // AFSNAMEMAX
	maxPath   = 1024 // AFSPATHMAX
	maxOpaque = 1024 // AFSOPAQUEMAX (ACLs, offline message, motd)
)

var fsOps = map[uint32]op{
	130:   {fsFetchDataReq, fsFetchDataRep},
	131:   {fsFidReq, fsFetchACLRep},
	132:   {fsFidReq, fsFetchStatusRep},
	133:   {fsStoreDataReq, fsStatusVolSync},
	134:   {fsStoreACLReq, fsStatusVolSync},
	135:   {fsStoreStatusReq, fsStatusVolSync},
	136:   {fsDirName, fsDirStatusVolSync},
	137:   {fsDirNameStore, fsCreateRep},
	138:   {fsRenameReq, fsRenameRep},
	139:   {fsSymlinkReq, fsSymlinkRep},
	140:   {fsLinkReq, fsLinkRep},
	141:   {fsDirNameStore, fsCreateRep},
	142:   {fsDirName, fsDirStatusVolSync},
	147:   {fsGiveUpCallBacksReq, nothing},
	149:   {fsGetVolumeStatusReq, fsGetVolumeStatusRep},
	153:   {nothing, fsGetTimeRep},
	155:   {fsFidArray, fsBulkStatusRep},
	150:   {fsSetVolumeStatusReq, nothing},
	151:   {nothing, fsRootVolumeRep},
	156:   {fsSetLockReq, fsVolSyncOnly},
	157:   {fsFidReq, fsVolSyncOnly},
	158:   {fsFidReq, fsVolSyncOnly},
	159:   {nothing, fsXStatsVersionRep},
	164:   {fsStoreACLReq, fsStatusVolSync}, // the new StoreACL, same arguments as 134
	65536: {fsFidArray, fsBulkStatusRep},
	65537: {fsFetchData64Req, fsFetchData64Rep},
	65538: {fsStoreData64Req, fsStatusVolSync},
	65539: {nothing, nothing},
	65540: {nothing, fsGetCapabilitiesRep},
	65541: {fsCallBackRxConnAddrReq, nothing},
	65542: {fsGetStatistics64Req, fsGetStatistics64Rep},
}

// nothing decodes a direction that carries no data.
func nothing(d *dec) {}

func fsFidReq(d *dec) { d.fid(fsFid, "FileID") }

func fsFidArray(d *dec) { d.fidArray(fsFid, fFSCount) }

func fsFetchDataReq(d *dec) {
	d.fid(fsFid, "FileID")
	d.u32(fFSOffset)
	d.u32(fFSLength)
}

func fsFetchData64Req(d *dec) {
	d.fid(fsFid, "FileID")
	d.u64(fFSOffset64)
	d.u64(fFSLength64)
}

// fsFetchDataRep: the stream comes first, then the fixed results. (tshark
// decodes an AFSFetchStatus from the reply's first octets, so in
// afsio-fetch frame 41 its "interface version" is the length word and the
// rest of the status is file content.)
func fsFetchDataRep(d *dec) {
	d.stream(fFSLength, fFSData, false)
	fsFetchStatusRep(d)
}

func fsFetchData64Rep(d *dec) {
	d.stream(fFSLength64, fFSData, true)
	fsFetchStatusRep(d)
}

// fsFetchStatusRep is AFSFetchStatus, AFSCallBack, AFSVolSync.
func fsFetchStatusRep(d *dec) {
	if !d.ok() {
		return
	}
	d.fetchStatus("Status")
	d.callback(fsCallback)
	d.volSync()
}

func fsFetchACLRep(d *dec) {
	d.str(fFSACL, maxOpaque)
	fsStatusVolSync(d)
}

func fsStatusVolSync(d *dec) {
	d.fetchStatus("Status")
	d.volSync()
}

func fsVolSyncOnly(d *dec) { d.volSync() }

func fsDirStatusVolSync(d *dec) {
	d.fetchStatus("Directory Status")
	d.volSync()
}

func fsStoreDataReq(d *dec) {
	d.fid(fsFid, "FileID")
	d.storeStatus()
	d.u32(fFSOffset)
	n := d.u32(fFSLength)
	d.u32(fFSFLength)
	if d.ok() {
		d.raw(fFSData, uint64(n))
	}
}

func fsStoreData64Req(d *dec) {
	d.fid(fsFid, "FileID")
	d.storeStatus()
	d.u64(fFSOffset64)
	n := d.u64(fFSLength64)
	d.u64(fFSFLength64)
	if d.ok() {
		d.raw(fFSData, n)
	}
}

func fsStoreACLReq(d *dec) {
	d.fid(fsFid, "FileID")
	d.str(fFSACL, maxOpaque)
}

func fsStoreStatusReq(d *dec) {
	d.fid(fsFid, "FileID")
	d.storeStatus()
}

// fsDirName is (directory fid, name): RemoveFile, RemoveDir.
func fsDirName(d *dec) {
	d.fid(fsFid, "Directory FileID")
	d.str(fFSName, maxName)
}

// fsDirNameStore is CreateFile's and MakeDir's arguments.
func fsDirNameStore(d *dec) {
	fsDirName(d)
	d.storeStatus()
}

// fsCreateRep is CreateFile's and MakeDir's results.
func fsCreateRep(d *dec) {
	d.fid(fsFid, "New FileID")
	d.fetchStatus("Status")
	d.fetchStatus("Directory Status")
	d.callback(fsCallback)
	d.volSync()
}

func fsRenameReq(d *dec) {
	d.fid(fsFid, "Old Directory FileID")
	d.str(fFSOldName, maxName)
	d.fid(fsFid, "New Directory FileID")
	d.str(fFSNewName, maxName)
}

func fsRenameRep(d *dec) {
	d.fetchStatus("Old Directory Status")
	d.fetchStatus("New Directory Status")
	d.volSync()
}

func fsSymlinkReq(d *dec) {
	fsDirName(d)
	d.str(fFSSymlink, maxPath)
	d.storeStatus()
}

func fsSymlinkRep(d *dec) {
	d.fid(fsFid, "New FileID")
	d.fetchStatus("Status")
	d.fetchStatus("Directory Status")
	d.volSync()
}

func fsLinkReq(d *dec) {
	fsDirName(d)
	d.fid(fsFid, "Existing FileID")
}

func fsLinkRep(d *dec) {
	d.fetchStatus("Status")
	d.fetchStatus("Directory Status")
	d.volSync()
}

// fsGiveUpCallBacksReq is AFSCBFids then AFSCBs.
func fsGiveUpCallBacksReq(d *dec) {
	d.fidArray(fsFid, fFSCount)
	n := d.countMax(fFSCount, callbackLen, afsCBMax)
	for i := 0; i < n && d.ok(); i++ {
		d.callback(fsCallback)
	}
}

func fsGetVolumeStatusReq(d *dec) { d.u32(fFSVolID) }

// fsGetVolumeStatusRep is AFSFetchVolumeStatus (its char members are XDR
// words), then Name<AFSNAMEMAX>, OfflineMsg<AFSOPAQUEMAX> and
// Motd<AFSOPAQUEMAX> (afsint.xg).
func fsGetVolumeStatusRep(d *dec) {
	d.group(12*4, "Volume Status")
	d.u32(fVolStVid)
	d.u32(fVolStParent)
	d.u32(fVolStOnline)
	d.u32(fVolStInServ)
	d.u32(fVolStBlessed)
	d.u32(fVolStSalv)
	d.u32(fVolStType)
	d.u32(fVolStMinQ)
	d.u32(fVolStMaxQ)
	d.u32(fVolStInUse)
	d.u32(fVolStAvail)
	d.u32(fVolStPMax)
	d.end()
	d.str(fFSVolName, maxName)
	d.str(fFSOffMsg, maxOpaque)
	d.str(fFSMotd, maxOpaque)
}

func fsGetTimeRep(d *dec) {
	d.time32(fFSTimeSec)
	d.u32(nil) // microseconds
}

func fsBulkStatusRep(d *dec) {
	n := d.countMax(fFSCount, fetchStatusLen, afsCBMax)
	for i := 0; i < n && d.ok(); i++ {
		d.fetchStatus("Status")
	}
	n = d.countMax(fFSCount, callbackLen, afsCBMax)
	for i := 0; i < n && d.ok(); i++ {
		d.callback(fsCallback)
	}
	d.volSync()
}

func fsSetLockReq(d *dec) {
	d.fid(fsFid, "FileID")
	d.u32(fFSLockType)
}

func fsRootVolumeRep(d *dec) { d.str(fFSVolName, maxName) }

func fsXStatsVersionRep(d *dec) { d.u32(fFSXStatsVer) }

// fsSetVolumeStatusReq: Volumeid, AFSStoreVolumeStatus {Mask, MinQuota,
// MaxQuota}, then Name<AFSNAMEMAX>, OfflineMsg and Motd <AFSOPAQUEMAX>.
func fsSetVolumeStatusReq(d *dec) {
	d.u32(fFSVolID)
	d.group(3*4, "Store Volume Status")
	d.u32(fFSVSMask)
	d.u32(fFSVSMinQ)
	d.u32(fFSVSMaxQ)
	d.end()
	d.str(fFSVolName, maxName)
	d.str(fFSOffMsg, maxOpaque)
	d.str(fFSMotd, maxOpaque)
}

// fsCallBackRxConnAddrReq: the address the fileserver should call back.
func fsCallBackRxConnAddrReq(d *dec) { d.ipv4(fFSIPAddr) }

const stats64Max = 16 // STATS64_VERSION: ViceStatistics64<STATS64_VERSION>

func fsGetStatistics64Req(d *dec) { d.u32(fFSStatsVer) }

func fsGetStatistics64Rep(d *dec) {
	n := d.countMax(fFSCount, 8, stats64Max)
	for i := 0; i < n && d.ok(); i++ {
		d.u64(fFSStat64)
	}
}

// capabilitiesMax is AFSCAPABILITIESMAX: Capabilities<AFSCAPABILITIESMAX>.
const capabilitiesMax = 196

func fsGetCapabilitiesRep(d *dec) { d.u32ArrayMax(fFSCount, fFSCaps, capabilitiesMax) }
