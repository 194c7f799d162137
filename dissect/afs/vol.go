package afs

// volserver (AFSVOL, port 7005, service 4) decoders, after OpenAFS
// volint.xg. Most volserver calls work on a transaction that TransCreate
// opens; Dump streams the volume dump to the end of the reply.

var volOps = map[uint32]op{
	100: {volCreateVolumeReq, volCreateVolumeRep},
	101: {volTransReq, nothing},
	104: {volTransReq, volRCodeRep},
	106: {volSetFlagsReq, nothing},
	107: {volTransReq, volFlagsRep},
	108: {volTransCreateReq, volTransRep},
	109: {volDumpReq, volDumpRep},
	112: {volTransReq, volNameRep},
	116: {volListVolumesReq, volEntriesRep},
	121: {volListOneVolumeReq, volEntriesRep},
	127: {nothing, volXListPartitionsRep},
	123: {volSetDateReq, nothing},
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
		d.group(volintInfoLen, "Volume")
		d.chars(fVolName, volNameWords)
		d.u32(fVolID)
		d.u32(fVolType)
		d.u32(fVolBackupID)
		d.u32(fVolParentID)
		d.u32(fVolCloneID)
		d.u32(fVolStatus)
		d.time32(fVolCopyDate)
		d.u32(fVolInUse)
		d.u32(fVolSalvage)
		d.u32(fVolDestroy)
		d.time32(fVolCreated)
		d.time32(fVolAccessed)
		d.time32(fVolUpdated)
		d.time32(fVolBackedUp)
		d.u32(fVolDayUse)
		d.u32(fVolFileCount)
		d.u32(fVolMaxQuota)
		d.u32(fVolSize)
		d.u32(fVolFlags)
		d.r.Skip(4 * 4) // spare0-3
		d.end()
	}
}

// volXListPartitionsRep is partEntries: the partition indexes in use.
func volXListPartitionsRep(d *dec) { d.u32Array(fVolCount, fVolPartition) }
