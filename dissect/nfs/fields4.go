package nfs

import (
	"strings"

	"github.com/rdx-project/rdx/dissect"
)

// NFSv4 fields Wireshark fills that need more than one line: the bits of
// SEQUENCE's status flags, OPEN's result flags and mode4, the READDIR
// argument and entry fields, the READ/WRITE data lengths.
var (
	seqFlagBits = func() []*dissect.Field { // SEQ4_STATUS_* (RFC 8881 §18.46.3)
		var fs []*dissect.Field
		for i, n := range []string{"cb_path_down", "cb_gss_contexts_expiring", "cb_gss_contexts_expired",
			"expired_all_state_revoked", "expired_some_state_revoked", "admin_state_revoked", "recallable_state_revoked",
			"lease_moved", "restart_reclaim_needed", "cb_path_down_session", "backchannel_fault", "devid_changed",
			"devid_deleted"} {
			fs = append(fs, bit("nfs.sequence.flags."+n, "SEQ4_STATUS_"+strings.ToUpper(n), 1<<i))
		}
		return fs
	}()
	rflagBits = []*dissect.Field{bit("nfs.open_rflags.confirm", "confirm", 0x2), // OPEN4_RESULT_* (RFC 8881 §18.16.3)
		bit("nfs.open_rflags.locktype_posix", "locktype posix", 0x4),
		bit("nfs.open_rflags.preserve_unlinked", "preserve unlinked", 0x8),
		bit("nfs.open_rflags.may_notify_lock", "may notify lock", 0x20)}
	// Wireshark's mode4 bits; its "Name" (0xe000) looks its value up
	// unshifted and so never names one: rdx shows the number alone.
	mode4Bits = append([]*dissect.Field{dissect.Register(&dissect.Field{Abbrev: "nfs.mode.name", Name: "Name", Type: tU32, Mask: 0xe000, Bits: 32})},
		bit("nfs.mode.set_user_id", "Set user id on exec", 0o4000), bit("nfs.mode.set_group_id", "Set group id on exec", 0o2000),
		bit("nfs.mode.save_swap_text", "Save swapped text even after use", 0o1000),
		bit("nfs.mode.read_owner", "Read permission for owner", 0o400), bit("nfs.mode.write_owner", "Write permission for owner", 0o200),
		bit("nfs.mode.exec_owner", "Execute permission for owner", 0o100), bit("nfs.mode.read_group", "Read permission for group", 0o40),
		bit("nfs.mode.write_group", "Write permission for group", 0o20), bit("nfs.mode.exec_group", "Execute permission for group", 0o10),
		bit("nfs.mode.read_other", "Read permission for others", 0o4), bit("nfs.mode.write_other", "Write permission for others", 0o2),
		bit("nfs.mode.exec_other", "Execute permission for others", 0o1))
	fCookieVerf4 = reg("nfs.cookie_verf4", "cookie_verf", tU64, dec, nil)
	fDirCount4   = reg("nfs.dircount", "dircount", tU32, dec, nil)
	fMaxCount4   = reg("nfs.maxcount", "maxcount", tU32, dec, nil)
	fFollows4    = reg("nfs.value_follows", "Value Follows", dissect.TBool, dec, nil)
	fEntryName   = reg("nfs.entry_name", "Name", dissect.TString, dec, nil)
	fReadLen     = reg("nfs.read.data_length", "Read length", tU32, dec, nil)
	fWriteLen    = reg("nfs.write.data_length", "Write length", tU32, dec, nil)
)
