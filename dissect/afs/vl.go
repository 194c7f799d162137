package afs

// vlserver (VL, port 7003, service 52) decoders, after OpenAFS vldbint.xg.
// The three generations of VLDB entries differ in how many servers they
// hold and how a server is named (an address, or an afsUUID).

const vlNameLen = 65 // VL_MAXNAMELEN

// vlLayout describes one generation of VLDB entry.
type vlLayout struct {
	volType    bool // vldbentry: volumeType before nServers
	maxServers int  // 8 (MAXNSERVERS) or 13 (NMAXNSERVERS)
	uuid       bool // servers named by afsUUID, with a serverUnique array
	match      bool // nvldbentry: matchindex then spares 2-9; else spares 1-9
	spares     bool
}

var (
	vldbEntry  = vlLayout{volType: true, maxServers: 8}
	nvldbEntry = vlLayout{maxServers: 13, match: true, spares: true}
	uvldbEntry = vlLayout{maxServers: 13, uuid: true, spares: true}
)

var vlOps = map[uint32]op{
	501: {vlCreateEntryReq, nothing},
	502: {vlIDTypeReq, nothing},
	503: {vlIDTypeReq, vlEntryRep},
	504: {vlNameReq, vlEntryRep},
	505: {vlGetNewVolumeIDReq, vlNewVolumeIDRep},
	506: {vlReplaceEntryReq, nothing},
	507: {vlUpdateEntryReq, nothing},
	508: {vlSetLockReq, nothing},
	509: {vlReleaseLockReq, nothing},
	510: {vlListEntryReq, vlListEntryRep},
	511: {vlAttributesReq, vlBulkRep},
	514: {nothing, nothing},
	515: {vlGetAddrsReq, vlGetAddrsRep},
	516: {vlChangeAddrReq, nothing},
	517: {vlCreateEntryNReq, nothing},
	518: {vlIDTypeReq, vlEntryNRep},
	519: {vlNameReq, vlEntryNRep},
	520: {vlReplaceEntryNReq, nothing},
	521: {vlListEntryReq, vlListEntryNRep},
	522: {vlAttributesReq, vlBulkNRep},
	524: {vlUpdateEntryByNameReq, nothing},
	525: {vlCreateEntryUReq, nothing},
	526: {vlIDTypeReq, vlEntryURep},
	527: {vlNameReq, vlEntryURep},
	528: {vlReplaceEntryUReq, nothing},
	530: {vlAttributesReq, vlBulkURep},
	532: {vlRegisterAddrsReq, nothing},
	533: {vlGetAddrsUReq, vlGetAddrsURep},
	534: {vlListAttributesN2Req, vlListAttributesN2Rep},
}

func vlNameReq(d *dec) { d.str(fVLName, vlNameLen) }

func vlIDTypeReq(d *dec) {
	d.u32(fVLID)
	d.u32(fVLType)
}

func vlSetLockReq(d *dec) {
	vlIDTypeReq(d)
	d.u32(nil) // voloper
}

func vlReleaseLockReq(d *dec) {
	vlIDTypeReq(d)
	d.u32(nil) // releasetype
}

func vlGetNewVolumeIDReq(d *dec) { d.u32(fVLBump) } // bumpcount

// vlListEntryReq: previous_index; the reply is count, next_index and the
// entry.
func vlListEntryReq(d *dec) { d.u32(fVLIndex) }

func vlListEntryRep(d *dec) {
	d.u32(fVLCount)
	d.u32(fVLNextIndex)
	d.vlEntry(&vldbEntry)
}

func vlListEntryNRep(d *dec) {
	d.u32(fVLCount)
	d.u32(fVLNextIndex)
	d.vlEntry(&nvldbEntry)
}

// vlGetAddrsReq: Handle, spare2.
func vlGetAddrsReq(d *dec) {
	d.u32(nil)
	d.u32(nil)
}

// vlGetAddrsRep: VLCallBack {CallBackVersion, ExpirationTime, CallBackType,
// Handle} (spare3), nentries, bulkaddrs.
func vlGetAddrsRep(d *dec) {
	d.r.Skip(4 * 4)
	d.u32(fVLNEntries)
	d.ipv4Array(fVLNumSrv, fVLServerIP)
}

// vlUpdateLen is VldbUpdateEntry: Mask, name[65] as words, spares3,
// flags, ReadOnlyId, BackupId, cloneId, nModifiedRepsites, then six
// per-site arrays of OMAXNSERVERS (8).
const vlUpdateLen = (1 + vlNameLen + 6 + 6*8) * 4

func (d *dec) vlUpdateEntry() {
	d.group(vlUpdateLen, "Update Entry")
	d.u32(fVLUpdateMask)
	d.chars(fVLName, vlNameLen)
	d.u32(nil) // spares3
	d.u32(fVLFlags)
	d.u32(fVLROVol)
	d.u32(fVLBKVol)
	d.u32(fVLCloneVol)
	d.u32(fVLNModSites)
	d.r.Skip(6 * 8 * 4) // RepsitesMask, TargetServer/Part, NewServer/Part/Flags
	d.end()
}

// vlUpdateEntryReq: UpdateEntry(Volid, voltype, VldbUpdateEntry,
// ReleaseType).
func vlUpdateEntryReq(d *dec) {
	vlIDTypeReq(d)
	d.vlUpdateEntry()
	d.u32(fVLRelType)
}

// vlUpdateEntryByNameReq: UpdateEntryByName(volumename<65>,
// VldbUpdateEntry, ReleaseType).
func vlUpdateEntryByNameReq(d *dec) {
	d.str(fVLName, vlNameLen)
	d.vlUpdateEntry()
	d.u32(fVLRelType)
}

func vlChangeAddrReq(d *dec) {
	d.ipv4(fVLIP1)
	d.ipv4(fVLIP2)
}

func vlNewVolumeIDRep(d *dec) { d.u32(fVLID) }

func vlEntryRep(d *dec)  { d.vlEntry(&vldbEntry) }
func vlEntryNRep(d *dec) { d.vlEntry(&nvldbEntry) }
func vlEntryURep(d *dec) { d.vlEntry(&uvldbEntry) }

func vlCreateEntryReq(d *dec)  { d.vlEntry(&vldbEntry) }
func vlCreateEntryNReq(d *dec) { d.vlEntry(&nvldbEntry) }
func vlCreateEntryUReq(d *dec) { d.vlEntry(&uvldbEntry) }

// vlRegisterAddrsReq is the fileserver's afsUUID, a spare and its
// addresses (bulkaddrs).
func vlRegisterAddrsReq(d *dec) {
	d.uuid(fVLSrvUUID)
	d.u32(fVLSpare[0])
	d.ipv4Array(fVLNumSrv, fVLServerIP)
}

// vlEntry decodes a VLDB entry. The per-server arrays are consecutive on
// the wire (all servers, then all partitions, then all flags); the tree
// shows each of the first nServers servers with its partition and flags,
// as tshark does.
func (d *dec) vlEntry(l *vlLayout) {
	d.chars(fVLName, vlNameLen)
	if l.volType {
		d.u32(fVLType)
	}
	n := d.u32(fVLNumSrv)
	srvLen := 4
	if l.uuid {
		srvLen = uuidLen + 4 // the afsUUID and its serverUnique word
	}
	arrays := l.maxServers * (srvLen + 8)
	base := d.r.Off
	if !d.ok() || d.r.Remaining() < arrays {
		d.r.Skip(arrays) // records the short read
		return
	}
	if d.t != nil {
		shown := int(min(n, uint32(l.maxServers)))
		m := l.maxServers
		for i := 0; i < shown; i++ {
			off := base
			if l.uuid {
				d.r.Off = off + i*uuidLen
				d.uuid(fVLSrvUUID)
				off += m * uuidLen
				d.r.Off = off + 4*i
				d.u32(fVLSrvUniq)
			} else {
				d.r.Off = off + 4*i
				d.ipv4(fVLServer)
			}
			off += 4 * m
			d.r.Off = off + 4*i
			part := d.r.U32()
			d.t.String(fVLPartition, off+4*i, 4, partitionName(part))
			off += 4 * m
			d.r.Off = off + 4*i
			d.u32(fVLSrvFlags)
		}
	}
	d.r.Off = base + arrays
	d.u32(fVLRWVol)
	d.u32(fVLROVol)
	d.u32(fVLBKVol)
	d.u32(fVLCloneVol)
	d.u32(fVLFlags)
	switch {
	case l.match:
		d.u32(fVLMatch)
		for _, f := range fVLSpare[1:] {
			d.u32(f)
		}
	case l.spares:
		for _, f := range fVLSpare {
			d.u32(f)
		}
	}
}

// vlReplaceEntry*Req: volid, voltype, the new entry, release type.
func vlReplaceEntryReq(d *dec)  { vlReplace(d, &vldbEntry) }
func vlReplaceEntryNReq(d *dec) { vlReplace(d, &nvldbEntry) }
func vlReplaceEntryUReq(d *dec) { vlReplace(d, &uvldbEntry) }

func vlReplace(d *dec, l *vlLayout) {
	vlIDTypeReq(d)
	d.vlEntry(l)
	d.u32(fVLRelType)
}

// vlAttributes is VldbListByAttributes {Mask, server, partition,
// volumetype, volumeid, flag}.
func vlAttributes(d *dec) {
	d.group(6*4, "Attributes")
	d.u32(fVLAttrMask)
	d.ipv4(fVLServer)
	off := d.r.Off
	part := d.r.U32()
	if d.tree() {
		d.t.String(fVLPartition, off, 4, partitionName(part))
	}
	d.u32(fVLType)
	d.u32(fVLID)
	d.u32(fVLFlags)
	d.end()
}

func vlAttributesReq(d *dec) { vlAttributes(d) }

func vlListAttributesN2Req(d *dec) {
	vlAttributes(d)
	d.str(fVLName, vlNameLen)
	d.u32(fVLIndex)
}

// entryLen is the size of one entry of a generation, for array counts.
func (l *vlLayout) entryLen() int {
	n := vlNameLen + 1 + 5 // name, nServers, volumeId[3], cloneId, flags
	if l.volType {
		n++
	}
	if l.uuid {
		n += l.maxServers * (uuidLen/4 + 1)
	} else {
		n += l.maxServers
	}
	n += 2 * l.maxServers
	if l.spares {
		n += 9
	}
	return 4 * n
}

// vlBulk is a counted array of entries (bulkentries and its N/U kinds).
func vlBulk(d *dec, l *vlLayout) {
	n := d.count(nil, l.entryLen())
	for i := 0; i < n && d.ok(); i++ {
		d.group(l.entryLen(), "VLDB Entry")
		d.vlEntry(l)
		d.end()
	}
}

// vlBulk*Rep: nentries, then the entries.
func vlBulkRep(d *dec)  { d.u32(fVLNEntries); vlBulk(d, &vldbEntry) }
func vlBulkNRep(d *dec) { d.u32(fVLNEntries); vlBulk(d, &nvldbEntry) }
func vlBulkURep(d *dec) { d.u32(fVLNEntries); vlBulk(d, &uvldbEntry) }

func vlListAttributesN2Rep(d *dec) {
	vlBulkNRep(d)
	d.u32(fVLIndex) // nextstartindex
}

// vlGetAddrsUReq is ListAddrByAttributes {Mask, ipaddr, index, spare,
// uuid}.
func vlGetAddrsUReq(d *dec) {
	d.u32(fVLAttrMask)
	d.ipv4(fVLServerIP)
	d.u32(fVLIndex)
	d.u32(nil)
	d.uuid(fVLSrvUUID)
}

// vlGetAddrsURep is the server's afsUUID, its uniquifier, the count, and
// bulkaddrs.
func vlGetAddrsURep(d *dec) {
	d.uuid(fVLSrvUUID)
	d.u32(fVLUniq)
	d.u32(fVLNEntries)
	d.ipv4Array(fVLNumSrv, fVLServerIP)
}
