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

// CheckResult is one PDU's outcome for one check.
type CheckResult struct {
	Check *Check
	OK    bool
	PDU   int
}

// Checked records that check c ran on PDU pdu of the frame with outcome ok.
// The details of a failure belong in a Finding; this only counts.
func (f *Frame) Checked(c *Check, pdu int, ok bool) {
	f.Checks = append(f.Checks, CheckResult{Check: c, OK: ok, PDU: pdu})
}
