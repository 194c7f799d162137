package afs

import "github.com/rdx-project/rdx/dissect"

// Ubik (database replication beside ptserver, vlserver, kaserver, buserver)
// decoders, after OpenAFS ubik_int.xg: the VOTE service (ID 50) and the
// DISK service (ID 51).

const (
	ubikMaxAddrs = 256   // UBIK_MAX_INTERFACE_ADDR
	ubikBulkMax  = 20000 // bulkdata<20000>: DISK_Write's data
)

var voteOps = map[uint32]op{
	10000: {voteBeaconReq, nothing},
	10001: {nothing, voteDebugOldRep},
	10002: {voteWhichReq, voteSDebugOldRep},
	10003: {voteSyncSiteReq, nothing},
	10004: {nothing, voteDebugRep},
	10005: {voteWhichReq, voteSDebugRep},
	10006: {nothing, voteXDebugRep},
	10007: {voteWhichReq, voteXSDebugRep},
}

var diskOps = map[uint32]op{
	20000: {diskTIDReq, nothing},
	20001: {diskTIDReq, nothing},
	20002: {diskLockReq, nothing},
	20003: {diskWriteReq, nothing},
	20004: {nothing, diskVersionRep},
	20005: {diskFileReq, diskGetFileRep},
	20006: {diskSendFileReq, nothing},
	20007: {diskTIDReq, nothing},
	20008: {diskTIDReq, nothing},
	20009: {diskTruncateReq, nothing},
	20010: {nothing, nothing},
	20011: {diskWriteVReq, nothing},
	20012: {diskInterfaceAddr, diskInterfaceAddr},
	20013: {diskSetVersionReq, nothing},
}

// voteBeaconReq: the sync site's state, when its vote started, its
// database version and transaction id. The vote comes back as the call's
// return code, i.e. an ABORT carrying a time.
func voteBeaconReq(d *dec) {
	d.u32(fUbikState)
	d.time32(fUbikVoteStart)
	d.ubikVersion("Version")
	d.ubikVersion("TID")
}

// voteSyncSiteReq: ubik_int.xg declares GetSyncSite(IN afs_int32 *site),
// "mistakenly marked as an input argument": the site travels in the
// request and the reply carries nothing (servers no longer implement it).
func voteSyncSiteReq(d *dec) { d.ipv4(fUbikSite) }

func voteWhichReq(d *dec) { d.u32(fUbikWhich) }

// voteDebugRep is struct ubik_debug: ubik_debug_old and the interfaces.
func voteDebugRep(d *dec) {
	voteDebugOldRep(d)
	d.addrList(fUbikInterface, ubikMaxAddrs)
}

// voteDebugOldRep is struct ubik_debug_old.
func voteDebugOldRep(d *dec) {
	d.time32(fUbikNow)
	d.time32(fUbikYesTime)
	d.ipv4(fUbikYesHost)
	d.u32(fUbikYesState)
	d.time32(fUbikYesClaim)
	d.ipv4(fUbikLowHost)
	d.time32(fUbikLowTime)
	d.ipv4(fUbikSyncHost)
	d.time32(fUbikSyncTime)
	d.ubikVersion("Sync Version")
	d.ubikVersion("Sync TID")
	d.u32(fUbikAmSync)
	d.time32(fUbikSyncUntil)
	d.u32(fUbikNServers)
	d.u32(fUbikLocked)
	d.u32(fUbikWLocked)
	d.ubikVersion("Local Version")
	d.u32(fUbikActWrite)
	d.u32(fUbikTIDCounter)
	d.u32(fUbikAnyRead)
	d.u32(fUbikAnyWrite)
	d.u32(fUbikRecovery)
	d.u32(fUbikCurTran)
	d.u32(fUbikWriteTran)
	d.time32(fUbikEpochTime)
}

// addrList shows the non-zero addresses of a fixed array of n; the unused
// (zero) slots are summarised in one node, as tshark does.
func (d *dec) addrList(f *dissect.Field, n int) {
	off := d.r.Off
	b := d.r.Fixed(4 * n)
	if !d.tree() {
		return
	}
	for i := 0; i < n; i++ {
		a := b[4*i : 4*i+4]
		if a[0]|a[1]|a[2]|a[3] == 0 {
			d.t.Uint(fUbikNullAddrs, off+4*i, 4*(n-i), 1)
			return
		}
		d.t.Bytes(f, off+4*i, 4, a)
	}
}

func voteXDebugRep(d *dec) {
	voteDebugRep(d)
	d.u32(fUbikIsClone)
}

// voteSDebugRep is struct ubik_sdebug: what this server knows of another
// (ubik_sdebug_old and its other addresses, afs.ubik.interface as in
// Wireshark).
func voteSDebugRep(d *dec) {
	voteSDebugOldRep(d)
	d.addrList(fUbikInterface, ubikMaxAddrs-1)
}

func voteSDebugOldRep(d *dec) {
	d.ipv4(fUbikAddr)
	d.time32(fUbikVoteTime)
	d.time32(fUbikBeaconSent)
	d.u32(fUbikLastVote)
	d.ubikVersion("Remote Version")
	d.u32(fUbikCurrentDB)
	d.u32(fUbikBeaconDown)
	d.u32(fUbikUp)
}

func voteXSDebugRep(d *dec) {
	voteSDebugRep(d)
	d.u32(fUbikIsClone)
}

func diskTIDReq(d *dec) { d.ubikVersion("TID") }

func diskLockReq(d *dec) {
	d.ubikVersion("TID")
	d.u32(fUbikFile)
	d.u32(fUbikPos)
	d.u32(fUbikLength)
	d.u32(fUbikLockType)
}

func diskWriteReq(d *dec) {
	d.ubikVersion("TID")
	d.u32(fUbikFile)
	d.u32(fUbikPos)
	d.opaque(fUbikData, ubikBulkMax)
}

func diskVersionRep(d *dec) { d.ubikVersion("Version") }

const (
	ubikIovecMaxWrt = 64    // IOVEC_MAXWRT: iovec_wrt<IOVEC_MAXWRT>
	ubikIovecMaxBuf = 65536 // IOVEC_MAXBUF: iovec_buf<IOVEC_MAXBUF>
)

// diskWriteVReq: tid, iovec_wrt (ubik_iovec {file, position, length}
// each), iovec_buf (the octets of all the writes).
func diskWriteVReq(d *dec) {
	d.ubikVersion("TID")
	n := d.countMax(nil, 12, ubikIovecMaxWrt)
	for i := 0; i < n && d.ok(); i++ {
		d.group(12, "Write")
		d.u32(fUbikFile)
		d.u32(fUbikPos)
		d.u32(fUbikLength)
		d.end()
	}
	d.opaque(fUbikData, ubikIovecMaxBuf)
}

// diskInterfaceAddr is UbikInterfaceAddr: hostAddr[UBIK_MAX_INTERFACE_ADDR],
// in both directions (the caller's addresses, then the callee's).
func diskInterfaceAddr(d *dec) { d.addrList(fUbikInterface, ubikMaxAddrs) }

func diskFileReq(d *dec) { d.u32(fUbikFile) }

// diskGetFileRep: the database file streamed (length, octets), then its
// version.
func diskGetFileRep(d *dec) {
	d.stream(fUbikLength, fUbikData, false)
	if d.ok() {
		d.ubikVersion("Version")
	}
}

// diskSendFileReq: file, length, version, then length octets of database.
func diskSendFileReq(d *dec) {
	d.u32(fUbikFile)
	n := d.u32(fUbikLength)
	d.ubikVersion("Version")
	if d.ok() {
		d.raw(fUbikData, uint64(n))
	}
}

func diskTruncateReq(d *dec) {
	d.ubikVersion("TID")
	d.u32(fUbikFile)
	d.u32(fUbikLength)
}

func diskSetVersionReq(d *dec) {
	d.ubikVersion("TID")
	d.ubikVersion("Old Version")
	d.ubikVersion("New Version")
}
