package dissect

// Checksum, CRC and marker status values, numbered as Wireshark numbers every
// *.checksum.status, so a display filter written for tshark
// (`rdp.checksum.status == 0` for the bad ones) means the same in rdx. Every
// rdx status field of a checksum, CRC or marker check uses them and
// StatusNames. Note the zero value is Bad: a PDU's status must be set to
// StatusUnverified explicitly before it is checked.
const (
	StatusBad        = 0
	StatusGood       = 1
	StatusUnverified = 2 // not checked (no checksum sent, CRCs off, preference off)
	StatusNotPresent = 3 // the checksum field says none was computed (UDP over IPv4: 0)
	StatusIllegal    = 4 // a value the protocol forbids (UDP: 0xffff computed as 0)
)

// StatusNames names the Status values: the one table every status field uses.
var StatusNames = map[uint64]string{StatusBad: "Bad", StatusGood: "Good", StatusUnverified: "Unverified",
	StatusNotPresent: "Not present", StatusIllegal: "Illegal"}
