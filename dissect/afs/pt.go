package afs

// ptserver (PR, port 7002, service 73) decoders, after OpenAFS ptint.xg.
// A prname argument travels as an XDR string, but inside a namelist or an
// entry each name is char[64] sent as 64 XDR words.

const (
	prNameLen   = 64 // PR_MAXNAMELEN
	prNameWords = prNameLen * 4
	prEntryLen  = 12*4 + prNameWords // prcheckentry / prlistentry
)

var ptOps = map[uint32]op{
	500: {ptINewEntryReq, nothing},
	501: {ptIDReq, ptPosRep},
	503: {ptUIDGIDReq, nothing},
	504: {ptNameListReq, ptIDListRep},
	505: {ptIDListReq, ptNameListRep},
	506: {ptIDReq, nothing},
	507: {ptUIDGIDReq, nothing},
	508: {ptIDReq, ptListOverRep},
	509: {ptNewEntryReq, ptIDRep},
	510: {nothing, ptListMaxRep},
	511: {ptSetMaxReq, nothing},
	512: {ptIDReq, ptEntryRep},
	513: {ptChangeEntryReq, nothing},
	514: {ptIDReq, ptListOverRep},
	515: {ptUIDGIDReq, ptFlagRep},
	517: {ptListOwnedReq, ptListOwnedRep},
	518: {ptGetCPS2Req, ptListOverRep},
	519: {ptHostReq, ptListOverRep},
	516: {ptSetFieldsEntryReq, nothing},
	521: {ptListEntriesReq, ptListEntriesRep},
	530: {ptIDReq, ptListOverRep}, // ListSuperGroups
}

func ptIDReq(d *dec) { d.u32(fPTID) }

func ptIDRep(d *dec) { d.u32(fPTID) }

func ptPosRep(d *dec) { d.u32(fPTPos) }

func ptFlagRep(d *dec) { d.u32(fPTFlag) }

func ptHostReq(d *dec) { d.ipv4(fPTHost) }

func ptUIDGIDReq(d *dec) {
	d.u32(fPTUID)
	d.u32(fPTGID)
}

func ptINewEntryReq(d *dec) {
	d.str(fPTName, prNameLen)
	d.u32(fPTID)
	d.u32(fPTOldID)
}

func ptNewEntryReq(d *dec) {
	d.str(fPTName, prNameLen)
	d.u32(fPTFlag)
	d.u32(fPTOldID)
}

func ptChangeEntryReq(d *dec) {
	d.u32(fPTID)
	d.str(fPTName, prNameLen)
	d.u32(fPTOldID)
	d.u32(fPTNewID)
}

// ptSetFieldsEntryReq: id, mask, flags, ngroups, nusers, spare1, spare2.
func ptSetFieldsEntryReq(d *dec) {
	d.u32(fPTID)
	d.u32(fPTMask)
	d.u32(fPTFlag)
	d.u32(fPTNGroups)
	d.u32(fPTNUsers)
	d.u32(nil)
	d.u32(nil)
}

func ptSetMaxReq(d *dec) {
	d.u32(fPTID)
	d.u32(fPTFlag)
}

// namelist: a count, then char[64] names.
func ptNameListReq(d *dec) { ptNameList(d) }

func ptNameListRep(d *dec) { ptNameList(d) }

func ptNameList(d *dec) {
	n := d.count(fPTCount, prNameWords)
	for i := 0; i < n && d.ok(); i++ {
		d.chars(fPTName, prNameLen)
	}
}

// idlist / prlist: a count, then ids.
func ptIDListReq(d *dec) { d.u32Array(fPTCount, fPTID) }

func ptIDListRep(d *dec) { d.u32Array(fPTCount, fPTID) }

// ptListOverRep is a prlist and the "over" word (more than fit).
func ptListOverRep(d *dec) {
	d.u32Array(fPTCount, fPTID)
	d.u32(fPTOver)
}

func ptListMaxRep(d *dec) {
	d.u32(fPTMaxUID)
	d.u32(fPTMaxGID)
}

func ptListOwnedReq(d *dec) {
	d.u32(fPTID)
	d.u32(fPTPos) // lastP: where to continue
}

func ptListOwnedRep(d *dec) {
	d.u32Array(fPTCount, fPTID)
	d.u32(fPTPos)
}

func ptGetCPS2Req(d *dec) {
	d.u32(fPTID)
	d.ipv4(fPTHost)
}

// ptEntry is a prcheckentry or prlistentry: flags, id, owner, creator,
// ngroups, nusers, count, reserved[5], name.
func ptEntry(d *dec) {
	d.group(prEntryLen, "Entry")
	d.u32(fPTFlag)
	d.u32(fPTID)
	d.u32(fPTOwner)
	d.u32(fPTCreator)
	d.u32(fPTNGroups)
	d.u32(fPTNUsers)
	d.u32(fPTMembers)
	d.r.Skip(5 * 4)
	d.chars(fPTName, prNameLen)
	d.end()
}

func ptEntryRep(d *dec) { ptEntry(d) }

func ptListEntriesReq(d *dec) {
	d.u32(fPTFlag)
	d.u32(fPTPos)
}

func ptListEntriesRep(d *dec) {
	n := d.count(fPTCount, prEntryLen)
	for i := 0; i < n && d.ok(); i++ {
		ptEntry(d)
	}
	d.u32(fPTPos) // nextstartindex
}
