package afs

// volserver (AFSVOL, port 7005, service 4) decoders, after OpenAFS
// volint.xg. Most volserver calls work on a transaction that TransCreate
// opens; Dump streams the volume dump to the end of the reply.

var volOps = map[uint32]op{
	100:   {volCreateVolumeReq, volCreateVolumeRep},
	101:   {volTransReq, nothing},
	102:   {volRestoreReq, nothing},
	104:   {volTransReq, volRCodeRep},
	105:   {volCloneReq, volIDRep},
	106:   {volSetFlagsReq, nothing},
	107:   {volTransReq, volFlagsRep},
	108:   {volTransCreateReq, volTransRep},
	109:   {volDumpReq, volDumpRep},
	110:   {volGetNthVolumeReq, volGetNthVolumeRep},
	111:   {volSetForwardingReq, nothing},
	112:   {volTransReq, volNameRep},
	113:   {volTransReq, volStatusRep},
	114:   {volSignalRestoreReq, nothing},
	115:   {nothing, volListPartitionsRep},
	116:   {volListVolumesReq, volEntriesRep},
	117:   {volSetIdsTypesReq, nothing},
	119:   {volPartitionInfoReq, volPartitionInfoRep},
	120:   {volReCloneReq, nothing},
	121:   {volListOneVolumeReq, volEntriesRep},
	122:   {volListOneVolumeReq, nothing}, // NukeVolume(partID, volID)
	123:   {volSetDateReq, nothing},
	124:   {volListVolumesReq, volXEntriesRep},
	125:   {volListOneVolumeReq, volXEntriesRep},
	126:   {volSetInfoReq, nothing},
	127:   {nothing, volXListPartitionsRep},
	65536: {volListOneVolumeReq, nothing}, // ConvertROtoRWvolume(partid, volid)
	65537: {volDumpReq, volGetSizeRep},
	65538: {volDumpV2Req, volDumpRep},
	65539: {volPartitionInfoReq, volPartitionInfo64Rep},
	65547: {volSplitVolumeReq, nothing},
}

func volTransReq(d *dec) { d.u32(fVolTransID) }
func volTransRep(d *dec) { d.u32(fVolTransID) }
func volRCodeRep(d *dec) { d.u32(fVolRCode) }
func volFlagsRep(d *dec) { d.u32(fVolFlags) }
func volNameRep(d *dec)  { d.str(fVolName, maxName) }

// volCreateVolumeReq: CreateVolume(partition, name, type, parent, *volid);
// parent comes before volid (0 for a new read-write volume), and volid is
// INOUT: the id asked for (0: let the volserver pick) and, in the reply,
// the id given.
func volCreateVolumeReq(d *dec) {
	d.u32(fVolPartition)
	d.str(fVolName, vnameSize)
	d.u32(fVolType)
	d.u32(fVolParentID)
	d.u32(fVolID)
}

func volIDRep(d *dec) { d.u32(fVolID) }

func volCreateVolumeRep(d *dec) {
	d.u32(fVolID)
	d.u32(fVolTransID)
}

func volSetFlagsReq(d *dec) {
	d.u32(fVolTransID)
	d.u32(fVolFlags)
}

func volTransCreateReq(d *dec) {
	d.u32(fVolID)
	d.u32(fVolPartition)
	d.u32(fVolFlags)
}

func volDumpReq(d *dec) {
	d.u32(fVolTransID)
	d.time32(fVolFromDate)
}

func volDumpV2Req(d *dec) {
	volDumpReq(d)
	d.u32(fVolFlags)
}

// volGetSizeRep is volintSize {afs_uint64 dump_size}.
func volGetSizeRep(d *dec) { d.u64(fVolDumpSize) }

// volCloneReq: Clone(trans, purgeVol, newType, newName<VNAMESIZE>, INOUT
// *newVol).
func volCloneReq(d *dec) {
	d.u32(fVolTransID)
	d.u32(fVolPurgeID)
	d.u32(fVolType)
	d.str(fVolName, vnameSize)
	d.u32(fVolID)
}

func volGetNthVolumeReq(d *dec) { d.u32(fVolIndex) }

func volGetNthVolumeRep(d *dec) {
	d.u32(fVolID)
	d.u32(fVolPartition)
}

func volSetForwardingReq(d *dec) {
	d.u32(fVolTransID)
	d.ipv4(fVolNewSite)
}

// volRestoreReq: Restore(toTrans, flags, restoreCookie), then the dump
// streamed to the end of the call.
func volRestoreReq(d *dec) {
	d.u32(fVolTransID)
	d.u32(fVolFlags)
	d.restoreCookie()
	if d.ok() {
		d.raw(fVolData, uint64(d.r.Remaining()))
	}
}

// restoreCookie is {char name[32], type, clone, parent}.
func (d *dec) restoreCookie() {
	d.group(35*4, "Restore Cookie")
	d.chars(fVolName, 32)
	d.u32(fVolType)
	d.u32(fVolCloneID)
	d.u32(fVolParentID)
	d.end()
}

func volSignalRestoreReq(d *dec) {
	d.str(fVolName, vnameSize)
	d.u32(fVolType)
	d.u32(fVolParentID)
	d.u32(fVolCloneID)
}

func volSetIdsTypesReq(d *dec) {
	d.u32(fVolTransID)
	d.str(fVolName, vnameSize)
	d.u32(fVolType)
	d.u32(fVolParentID)
	d.u32(fVolCloneID)
	d.u32(fVolBackupID)
}

func volReCloneReq(d *dec) {
	d.u32(fVolTransID)
	d.u32(fVolCloneID)
}

func volSetInfoReq(d *dec) {
	d.u32(fVolTransID)
	d.volintInfo()
}

func volSplitVolumeReq(d *dec) {
	d.u32(fVolID)
	d.u32(fVolNewID)
	d.u32(fVolVnode) // where: the directory vnode split off
	d.u32(nil)       // verbose
}

const volserStatusLen = 16 * 4

// volStatusRep is struct volser_status.
func volStatusRep(d *dec) {
	d.group(volserStatusLen, "Volume Status")
	d.u32(fVolID)
	d.u32(fVolNextUniq)
	d.u32(fVolType)
	d.u32(fVolParentID)
	d.u32(fVolCloneID)
	d.u32(fVolBackupID)
	d.u32(fVolRestoredFrom)
	d.u32(fVolMaxQuota)
	d.u32(fVolMinQuota)
	d.u32(fVolOwner)
	d.time32(fVolCreated)
	d.time32(fVolAccessed)
	d.time32(fVolUpdated)
	d.time32(fVolExpires)
	d.time32(fVolBackedUp)
	d.time32(fVolCopyDate)
	d.end()
}

// volListPartitionsRep is pIDs: 26 partition indexes, -1 where unused.
func volListPartitionsRep(d *dec) {
	for i := 0; i < 26 && d.ok(); i++ {
		if d.r.Remaining() >= 4 && d.r.B[d.r.Off]&0x80 != 0 {
			d.u32(nil)
			continue
		}
		d.u32(fVolPartition)
	}
}

const volPartPathMax = 4096 // PartitionInfo's name<4096>

func volPartitionInfoReq(d *dec) { d.str(fVolPartName, volPartPathMax) }

// volPartitionInfoRep is struct diskPartition: name and devName as
// char[32] (one XDR word each), lock_fd, then 32-bit sizes in KiB.
func volPartitionInfoRep(d *dec) {
	d.chars(fVolPartName, 32)
	d.chars(fVolDevName, 32)
	d.u32(nil) // lock_fd: the server's file descriptor
	d.u32(fVolTotalUsable)
	d.u32(fVolFree)
	d.u32(fVolMinFree)
}

// volPartitionInfo64Rep is struct diskPartition64: char[256] names, then
// 64-bit sizes (what `vos partinfo` asks for first).
func volPartitionInfo64Rep(d *dec) {
	d.chars(fVolPartName, 256)
	d.chars(fVolDevName, 256)
	d.u32(nil) // lock_fd
	d.u64(fVolTotalUsable)
	d.u64(fVolFree)
	d.u64(fVolMinFree)
}

// volDumpRep: the dump, streamed raw to the end of the call.
func volDumpRep(d *dec) { d.raw(fVolData, uint64(d.r.Remaining())) }

func volListOneVolumeReq(d *dec) {
	d.u32(fVolPartition)
	d.u32(fVolID)
}

func volSetDateReq(d *dec) {
	d.u32(fVolTransID)
	d.time32(nil)
}

func volListVolumesReq(d *dec) {
	d.u32(fVolPartition)
	d.u32(fVolFlags)
}

const (
	vnameSize    = 32        // VNAMESIZE: the longest volume name string<> volint.xg takes
	volNameWords = vnameSize // char name[VNAMESIZE], one char per XDR word
)

const volintInfoLen = (volNameWords + 23) * 4

// volEntriesRep is volEntries: a count of volintInfo.
func volEntriesRep(d *dec) {
	n := d.count(fVolCount, volintInfoLen)
	for i := 0; i < n && d.ok(); i++ {
		d.volintInfo()
	}
}

// volintInfo decodes one struct volintInfo (its chars are XDR words).
func (d *dec) volintInfo() {
	d.group(volintInfoLen, "Volume")
	d.volIdentity()
	d.u32(fVolSalvage)
	d.u32(fVolDestroy)
	d.volUsage()
	d.u32(fVolFlags)
	d.r.Skip(4 * 4) // spare0-3
	d.end()
}

// volIdentity is what volintInfo and volintXInfo start with: the name (as
// XDR words), ids, status, copy date and inUse.
func (d *dec) volIdentity() {
	d.chars(fVolName, volNameWords)
	d.u32(fVolID)
	d.u32(fVolType)
	d.u32(fVolBackupID)
	d.u32(fVolParentID)
	d.u32(fVolCloneID)
	d.u32(fVolStatus)
	d.time32(fVolCopyDate)
	d.u32(fVolInUse)
}

// volUsage is the dates and usage counters both volintInfo and volintXInfo
// carry after their identity.
func (d *dec) volUsage() {
	d.time32(fVolCreated)
	d.time32(fVolAccessed)
	d.time32(fVolUpdated)
	d.time32(fVolBackedUp)
	d.u32(fVolDayUse)
	d.u32(fVolFileCount)
	d.u32(fVolMaxQuota)
	d.u32(fVolSize)
}

// volintXInfoLen: name[32] as words, 7 ids/status/copyDate words, inUse,
// 4 dates, dayUse, filecount, maxquota, size, then the read/write (4+4)
// and authorship (4 x 6) statistics.
const volintXInfoLen = (volNameWords + 7 + 1 + 4 + 4 + 8 + 24) * 4

// volXEntriesRep is volXEntries: a count of volintXInfo (XListVolumes,
// XListOneVolume).
func volXEntriesRep(d *dec) {
	n := d.count(fVolCount, volintXInfoLen)
	for i := 0; i < n && d.ok(); i++ {
		d.group(volintXInfoLen, "Volume")
		d.volIdentity()
		d.volUsage()
		d.r.Skip((8 + 24) * 4) // stat_reads/writes, stat_{file,dir}{Same,Diff}Author
		d.end()
	}
}

// volXListPartitionsRep is partEntries: the partition indexes in use.
func volXListPartitionsRep(d *dec) { d.u32Array(fVolCount, fVolPartition) }
