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
	508: {vlSetLockReq, nothing},
	509: {vlReleaseLockReq, nothing},
	514: {nothing, nothing},
	517: {vlCreateEntryNReq, nothing},
	518: {vlIDTypeReq, vlEntryNRep},
	519: {vlNameReq, vlEntryNRep},
	525: {vlCreateEntryUReq, nothing},
	526: {vlIDTypeReq, vlEntryURep},
	527: {vlNameReq, vlEntryURep},
	532: {vlRegisterAddrsReq, nothing},
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

func vlGetNewVolumeIDReq(d *dec) { d.u32(nil) } // bumpcount

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
