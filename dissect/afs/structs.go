package afs

import (
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

// XDR structures shared by several calls and services (OpenAFS afsint.xg,
// ubik_int.xg). Each is decoded in one place.

// fidFields lets the fileserver and the callback service show an AFSFid
// with their own field names.
type fidFields struct{ volume, vnode, uniq *dissect.Field }

var (
	fsFid = fidFields{fFidVolume, fFidVnode, fFidUniq}
	cbFid = fidFields{fCBFidVolume, fCBFidVnode, fCBFidUniq}
)

const fidLen = 12

// fid decodes an AFSFid {Volume, Vnode, Unique} under a label.
func (d *dec) fid(ff fidFields, label string) {
	d.group(fidLen, label)
	d.u32(ff.volume)
	d.u32(ff.vnode)
	d.u32(ff.uniq)
	d.end()
}

// afsCBMax is AFSCBMAX, the bound of AFSCBFids, AFSCBs and AFSBulkStats.
const afsCBMax = 50

// fidArray decodes AFSCBFids / a BulkStatus fid list.
func (d *dec) fidArray(ff fidFields, fCount *dissect.Field) {
	n := d.countMax(fCount, fidLen, afsCBMax)
	for i := 0; i < n && d.ok(); i++ {
		d.fid(ff, "FileID")
	}
}

const fetchStatusLen = 21 * 4

// fetchStatus decodes an AFSFetchStatus (21 words).
func (d *dec) fetchStatus(label string) {
	d.group(fetchStatusLen, label)
	d.u32(fStIfVer)
	off := d.r.Off
	ft := d.r.U32()
	if d.tree() {
		label := ""
		if d.t.Labels() {
			label = strconv.FormatUint(uint64(ft), 10) + namedSuffix(fileTypes, uint64(ft))
		}
		d.t.UintLabel(fStFileType, off, 4, uint64(ft), label)
	}
	d.u32(fStLinkCount)
	d.u32(fStLength)
	d.u32(fStDV)
	d.u32(fStAuthor)
	d.u32(fStOwner)
	d.u32(fStCaller)
	d.u32(fStAnon)
	d.mode(fStMode)
	d.u32(fStPVnode)
	d.u32(fStPUniq)
	d.u32(fStSegSize)
	d.time32(fStCMTime)
	d.time32(fStSMTime)
	d.u32(fStGroup)
	d.u32(fStSync)
	d.u32(fStDVHigh)
	d.u32(fStSpare2)
	d.u32(fStSpare3)
	d.u32(fStSpare4)
	d.end()
}

// namedSuffix is " (name)" when v has a name in m.
func namedSuffix(m map[uint64]string, v uint64) string {
	if s, ok := m[v]; ok {
		return " (" + s + ")"
	}
	return ""
}

// mode shows Unix mode bits in octal in the tree; -T fields prints the
// decimal value, as tshark does.
func (d *dec) mode(f *dissect.Field) {
	off := d.r.Off
	v := d.r.U32()
	if d.tree() {
		label := ""
		if d.t.Labels() {
			label = "0" + strconv.FormatUint(uint64(v), 8)
		}
		d.t.UintLabel(f, off, 4, uint64(v), label)
	}
}

const storeStatusLen = 6 * 4

// storeStatus decodes an AFSStoreStatus {Mask, ClientModTime, Owner, Group,
// UnixModeBits, SegSize}.
func (d *dec) storeStatus() {
	d.group(storeStatusLen, "Store Status")
	off := d.r.Off
	mask := d.r.U32()
	if d.tree() {
		d.t.Flags(fStMask, off, 4, uint64(mask), "", fStMaskModTime, fStMaskOwner, fStMaskGroup,
			fStMaskMode, fStMaskSegSize, fStMaskFSync)
	}
	d.time32(fStCMTime)
	d.u32(fStOwner)
	d.u32(fStGroup)
	d.mode(fStMode)
	d.u32(fStSegSize)
	d.end()
}

type callbackFields struct{ version, expires, typ *dissect.Field }

var (
	fsCallback = callbackFields{fCBVersion, fCBExpires, fCBType}
	cbCallback = callbackFields{fCBCBVersion, fCBCBExpires, fCBCBType}
)

const callbackLen = 12

// callback decodes an AFSCallBack {CallBackVersion, ExpirationTime (seconds
// from now), CallBackType}.
func (d *dec) callback(cf callbackFields) {
	d.group(callbackLen, "Callback")
	d.u32(cf.version)
	if cf.expires.Type == dissect.TAbsTime { // afs.cb.callback.expires: Wireshark's type
		d.time32(cf.expires)
	} else {
		d.secs32(cf.expires)
	}
	d.u32(cf.typ)
	d.end()
}

const volSyncLen = 6 * 4

// volSync decodes an AFSVolSync; its first word is the volume's creation
// time in OpenAFS (Wireshark: spare1, shown as a time).
func (d *dec) volSync() {
	d.group(volSyncLen, "VolSync")
	d.time32(fVSCreate)
	d.u32(fVSSpare2)
	d.u32(fVSSpare3)
	d.u32(fVSSpare4)
	d.u32(fVSSpare5)
	d.u32(fVSSpare6)
	d.end()
}

// ubikVersion decodes a ubik_version or ubik_tid {epoch, counter}; the
// label names which one ("Local Version", "TID").
func (d *dec) ubikVersion(what string) {
	if d.tree() && d.r.Remaining() >= 8 {
		b := d.r.B[d.r.Off:]
		ep := uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
		ct := uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
		label := ""
		if d.t.Labels() {
			label = "UBIK Version (" + what + "): " + strconv.FormatUint(ep, 10) + "." + strconv.FormatUint(ct, 10)
		}
		d.t.Text(d.r.Off, 8, label)
		d.t.Open()
		d.time32(fUbikVerEpoch)
		d.u32(fUbikVerCounter)
		d.t.Close()
		return
	}
	d.r.Skip(8)
}

// bulkAddrsMax bounds vldbint.xg's bulkaddrs<500>.
const bulkAddrsMax = 500

// ipv4Array decodes a counted list of addresses (bulkaddrs<500>).
func (d *dec) ipv4Array(fCount, f *dissect.Field) {
	n := d.countMax(fCount, 4, bulkAddrsMax)
	for i := 0; i < n && d.ok(); i++ {
		d.ipv4(f)
	}
}

// u32Array decodes a counted list of words (idlist, prlist, partEntries;
// ptint.xg's OPENAFS_MAXPRLIST bound is an implementation limit "that does
// not need to match" other servers', so it is not enforced).
func (d *dec) u32Array(fCount, f *dissect.Field) {
	d.u32ArrayMax(fCount, f, 1<<31-1)
}

// u32ArrayMax is u32Array for a type with a bound (Capabilities<196>).
func (d *dec) u32ArrayMax(fCount, f *dissect.Field, max int) {
	n := d.countMax(fCount, 4, max)
	for i := 0; i < n && d.ok(); i++ {
		d.u32(f)
	}
}
