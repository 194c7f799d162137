package afs

// bosserver (BOZO, port 7007, service 1) decoders, after OpenAFS bosint.xg.

const bosStrLen = 256 // BOZO_BSSIZE

var bosOps = map[uint32]op{
	80:  {bosCreateBnodeReq, nothing},
	81:  {bosInstanceReq, nothing},
	82:  {bosSetStatusReq, nothing},
	83:  {bosInstanceReq, bosGetStatusRep},
	84:  {bosNumberReq, bosInstanceRep},
	85:  {bosInstanceReq, bosInstanceInfoRep},
	86:  {bosInstanceParmReq, bosParmRep},
	87:  {bosUserReq, nothing},
	88:  {bosUserReq, nothing},
	89:  {bosNumberReq, bosUserRep},
	90:  {bosNumberReq, bosListKeysRep},
	91:  {bosAddKeyReq, nothing},
	92:  {bosNumberReq, nothing},
	93:  {bosCellReq, nothing},
	94:  {nothing, bosCellRep},
	95:  {bosNumberReq, bosHostRep},
	96:  {bosHostReq, nothing},
	97:  {bosHostReq, nothing},
	98:  {bosSetStatusReq, nothing},
	99:  {nothing, nothing},
	100: {nothing, nothing},
	101: {nothing, nothing},
	102: {bosNumberReq, nothing},
	103: {nothing, nothing},
	104: {bosInstanceReq, nothing},
	105: {bosInstallReq, nothing},
	106: {bosPathReq, nothing},
	107: {bosPathReq, bosGetDatesRep},
	108: {bosExecReq, nothing},
	109: {bosFlagsReq, nothing},
	110: {bosSetRestartTimeReq, nothing},
	111: {bosNumberReq, bosKTime},
	112: {bosFileReq, bosGetLogRep},
	113: {nothing, nothing},
	114: {bosInstanceReq, bosInstanceStringsRep},
	115: {nothing, bosNumberRep},
	116: {bosNumberReq, nothing},
}

func bosInstanceReq(d *dec) { d.str(fBOSInstance, bosStrLen) }
func bosInstanceRep(d *dec) { d.str(fBOSInstance, bosStrLen) }
func bosNumberReq(d *dec)   { d.u32(fBOSNumber) }
func bosNumberRep(d *dec)   { d.u32(fBOSNumber) }
func bosUserReq(d *dec)     { d.str(fBOSUser, bosStrLen) }
func bosUserRep(d *dec)     { d.str(fBOSUser, bosStrLen) }
func bosCellReq(d *dec)     { d.str(fBOSCell, bosStrLen) }
func bosCellRep(d *dec)     { d.str(fBOSCell, bosStrLen) }
func bosHostReq(d *dec)     { d.str(fBOSHost, bosStrLen) }
func bosHostRep(d *dec)     { d.str(fBOSHost, bosStrLen) }
func bosPathReq(d *dec)     { d.str(fBOSPath, bosStrLen) }
func bosFileReq(d *dec)     { d.str(fBOSFile, bosStrLen) }
func bosExecReq(d *dec)     { d.str(fBOSCmd, bosStrLen) }
func bosFlagsReq(d *dec)    { d.u32(fBOSFlags) }
func bosParmRep(d *dec)     { d.str(fBOSParm, bosStrLen) }

// bosCreateBnodeReq is type, instance and six parameters (empty ones too).
func bosCreateBnodeReq(d *dec) {
	d.str(fBOSType, bosStrLen)
	d.str(fBOSInstance, bosStrLen)
	for i := 0; i < 6; i++ {
		d.str(fBOSParm, bosStrLen)
	}
}

func bosSetStatusReq(d *dec) {
	d.str(fBOSInstance, bosStrLen)
	d.u32(fBOSStatus)
}

func bosGetStatusRep(d *dec) {
	d.u32(fBOSStatus)
	d.str(fBOSStatDesc, bosStrLen)
}

func bosInstanceParmReq(d *dec) {
	d.str(fBOSInstance, bosStrLen)
	d.u32(fBOSNumber)
}

// bosInstanceInfoRep is the bnode type and struct bozo_status.
func bosInstanceInfoRep(d *dec) {
	d.str(fBOSType, bosStrLen)
	d.group(17*4, "Status")
	d.u32(fBOSGoal)
	d.u32(fBOSFileGoal)
	d.time32(fBOSStartTime)
	d.u32(fBOSStarts)
	d.time32(fBOSAnyExit)
	d.time32(fBOSErrExit)
	d.u32(fBOSErrCode)
	d.u32(fBOSErrSig)
	d.u32(fBOSFlags)
	d.r.Skip(8 * 4) // spare[8]
	d.end()
}

// bosKey is struct bozo_key: 8 key octets, each an XDR word. (tshark reads
// 8 raw octets instead and misaligns everything after it.)
func bosKey(d *dec) { d.charBytes(fBOSKey, 8) }

func bosAddKeyReq(d *dec) {
	d.u32(fBOSKvno)
	bosKey(d)
}

// bosListKeysRep is kvno, bozo_key and bozo_keyInfo {mod_sec, mod_usec,
// keyCheckSum, spare2}.
func bosListKeysRep(d *dec) {
	d.u32(fBOSKvno)
	bosKey(d)
	off := d.r.Off
	sec := d.r.U32()
	usec := d.r.U32()
	if d.tree() {
		d.t.Uint(fBOSKeyMod, off, 8, uint64(sec)*1e9+uint64(usec)*1e3)
	}
	d.u32(fBOSKeyCksum)
	d.u32(fBOSKeySpare2)
}

// bosInstallReq: path, size, flags, date, then size octets of the file
// (split call).
func bosInstallReq(d *dec) {
	d.str(fBOSPath, bosStrLen)
	n := d.u32(fBOSSize)
	d.u32(fBOSFlags)
	d.u32(fBOSDate) // tshark shows the number (FT_UINT32)
	if d.ok() {
		d.raw(fBOSData, uint64(n))
	}
}

func bosGetDatesRep(d *dec) {
	d.time32(fBOSNewTime)
	d.time32(fBOSBakTime)
	d.time32(fBOSOldTime)
}

// bosKTime is struct bozo_netKTime {mask, hour, min, sec, day}.
func bosKTime(d *dec) {
	d.group(5*4, "Restart Time")
	d.u32(fBOSKTMask)
	d.u32(fBOSKTHour)
	d.u32(fBOSKTMin)
	d.u32(fBOSKTSec)
	d.u32(fBOSKTDay)
	d.end()
}

func bosSetRestartTimeReq(d *dec) {
	d.u32(fBOSNumber)
	bosKTime(d)
}

// bosGetLogRep: the log file streamed as raw octets to the end of the call.
func bosGetLogRep(d *dec) { d.raw(fBOSData, uint64(d.r.Remaining())) }

func bosInstanceStringsRep(d *dec) {
	d.str(fBOSStatDesc, bosStrLen) // errorname
	for i := 0; i < 3; i++ {
		d.str(nil, bosStrLen) // spares
	}
}
