package dissect

import (
	"sort"
	"sync"
)

// Check is one validation rdx performs (a CRC, a checksum, a marker, a
// sequence rule). Protocols register their checks once and record a result
// on every PDU they validate; `rdx check` tabulates them, so a new protocol
// adds checks without touching the command.
type Check struct {
	Name  string // e.g. "infiniband.icrc"
	Proto string
	Desc  string
	id    int
}

var (
	checksMu sync.Mutex
	checks   []*Check
)

// RegisterCheck declares a check at package init.
func RegisterCheck(name, proto, desc string) *Check {
	checksMu.Lock()
	defer checksMu.Unlock()
	for _, c := range checks {
		if c.Name == name {
			panic("dissect: check registered twice: " + name)
		}
	}
	c := &Check{Name: name, Proto: proto, Desc: desc, id: len(checks)}
	checks = append(checks, c)
	return c
}

// Checks lists every registered check by name.
func Checks() []*Check {
	checksMu.Lock()
	out := append([]*Check(nil), checks...)
	checksMu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ID is the check's registration index.
func (c *Check) ID() int { return c.id }

// CheckResult is one PDU's outcome for one check; Skip, when set, says
// why the check could not run on it (OK is then meaningless).
type CheckResult struct {
	Check *Check
	OK    bool
	PDU   int
	Skip  CheckSkip
}

// CheckSkip is why a check did not run on a PDU it applies to.
type CheckSkip uint8

const (
	SkipNone     CheckSkip = iota
	SkipOffload            // the checksum is left to the NIC (sent by the capturing host)
	SkipSnapped            // not all of the data the check covers was captured
	SkipFragment           // an IP fragment: the check covers the whole datagram
	SkipAbsent             // the sender computed none (UDP over IPv4 with checksum 0)
	NumSkips
)

// SkipNames words each CheckSkip for rdx check's report.
var SkipNames = [NumSkips]string{"", "likely offloaded", "snapped", "IP fragments", "no checksum sent"}

// Checked records that check c ran on PDU pdu of the frame with outcome ok.
// The details of a failure belong in a Finding; this only counts.
func (f *Frame) Checked(c *Check, pdu int, ok bool) {
	f.Checks = append(f.Checks, CheckResult{Check: c, OK: ok, PDU: pdu})
}

// Unchecked records that check c applies to PDU pdu but could not run.
func (f *Frame) Unchecked(c *Check, pdu int, why CheckSkip) {
	f.Checks = append(f.Checks, CheckResult{Check: c, PDU: pdu, Skip: why})
}
