package afs

// Cache-manager callback service (RXAFSCB, service 1) decoders, after
// OpenAFS afscbint.xg. The fileserver is the client here: it calls the
// cache manager on 7001, or a library client (afsio, libafscp) on the
// client's own port.

const maxInterfaces = 32 // AFS_MAX_INTERFACE_ADDR

var cbOps = map[uint32]op{
	204:   {cbCallBackReq, nothing},
	205:   {nothing, nothing},
	206:   {nothing, nothing},
	207:   {cbIndexReq, cbGetLockRep},
	208:   {cbIndexReq, cbGetCERep},
	209:   {nothing, cbXStatsVersionRep},
	211:   {nothing, cbInterfaceAddr},
	212:   {nothing, cbInterfaceAddr},
	213:   {cbUUIDReq, nothing},
	214:   {cbUUIDReq, nothing},
	215:   {cbIndexReq, cbServerPrefsRep},
	216:   {cbIndexReq, cbCellRep},
	217:   {nothing, cbLocalCellRep},
	65536: {cbIndexReq, cbGetCE64Rep},
	65537: {cbIndexReq, cbCellRep},
	65538: {nothing, cbTellMeAboutYourselfRep},
}

// cbCallBackReq is AFSCBFids then AFSCBs: the files whose callbacks break.
func cbCallBackReq(d *dec) {
	d.fidArray(cbFid, fCBCount)
	n := d.countMax(fCBCount, callbackLen, afsCBMax)
	for i := 0; i < n && d.ok(); i++ {
		d.callback(cbCallback)
	}
}

func cbUUIDReq(d *dec) { d.uuid(fCBUUID) }

// cbInterfaceAddr is struct interfaceAddr: the count, the client's UUID,
// then three fixed arrays of 32 (addresses, netmasks, MTUs); only the
// first count entries of each are shown.
func cbInterfaceAddr(d *dec) {
	n := d.u32(fCMNumInt)
	d.uuid(fCMUUID)
	shown := int(min(n, maxInterfaces))
	for i := 0; i < maxInterfaces; i++ {
		if i < shown {
			d.ipv4(fCMIPAddr)
		} else {
			d.r.Skip(4)
		}
	}
	for i := 0; i < maxInterfaces; i++ {
		if i < shown {
			d.ipv4(fCMNetmask)
		} else {
			d.r.Skip(4)
		}
	}
	for i := 0; i < maxInterfaces; i++ {
		if i < shown {
			d.u32(fCMMTU)
		} else {
			d.r.Skip(4)
		}
	}
}

func cbTellMeAboutYourselfRep(d *dec) {
	cbInterfaceAddr(d)
	d.u32ArrayMax(fCMNumCap, fCMCaps, capabilitiesMax)
}

func cbLocalCellRep(d *dec) { d.str(fCBName, maxName) }

func cbXStatsVersionRep(d *dec) { d.u32(fCBXStatsVer) }

const lockDescLen = 8 * 4

// lockDesc is AFSDBLockDesc (common.xg): waitStates, exclLocked,
// readersReading, numWaiting, spare, pid_last_reader, pid_writer,
// src_indicator, each an XDR word.
func (d *dec) lockDesc() {
	d.group(lockDescLen, "Lock")
	d.u32(fCBLockWait)
	d.u32(fCBLockExcl)
	d.u32(fCBLockReaders)
	d.u32(fCBLockWaiting)
	d.u32(nil) // spare
	d.u32(fCBLockLastReader)
	d.u32(fCBLockWriter)
	d.u32(nil) // src_indicator
	d.end()
}

// cbGetLockRep is AFSDBLock: name[16] as words, then the lock.
func cbGetLockRep(d *dec) {
	d.chars(fCBLockName, 16)
	d.lockDesc()
}

// cbGetCERep is AFSDBCacheEntry, cbGetCE64Rep AFSDBCacheEntry64 (a 64-bit
// Length): one cache manager vcache entry, as cmdebug asks for.
func cbGetCERep(d *dec)   { cbCacheEntry(d, false) }
func cbGetCE64Rep(d *dec) { cbCacheEntry(d, true) }

func cbCacheEntry(d *dec, wide bool) {
	d.u32(nil) // addr: the vcache's kernel address
	d.u32(fCBCECell)
	d.fid(cbFid, "FileID")
	if wide {
		d.u64(fCBCELength)
	} else {
		d.u32(fCBCELength)
	}
	d.u32(fCBCEDV)
	d.lockDesc()
	d.u32(fCBCECallback)
	d.time32(fCBCEExpires)
	d.u32(fCBCERefCount)
	d.u32(fCBCEOpens)
	d.u32(fCBCEWriters)
	d.u32(fCBCEMvstat)
	d.u32(fCBCEStates)
}

// cbIndexReq: GetServerPrefs' serverIndex, GetCellServDB's cellIndex,
// GetCellByNum's cellNumber.
func cbIndexReq(d *dec) { d.u32(fCBIndex) }

func cbServerPrefsRep(d *dec) {
	d.ipv4(fCBIPAddr)
	d.u32(fCBRank)
}

const cellHostsMax = 8 // AFSMAXCELLHOSTS: serverList<AFSMAXCELLHOSTS>

// cbCellRep: cellName<AFSNAMEMAX>, then serverList, the cell's database
// servers.
func cbCellRep(d *dec) {
	d.str(fCBName, maxName)
	n := d.countMax(fCBCount, 4, cellHostsMax)
	for i := 0; i < n && d.ok(); i++ {
		d.ipv4(fCBIPAddr)
	}
}
