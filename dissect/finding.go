package dissect

// Severity of a finding, as Wireshark's expert severities (chat is not used).
type Severity uint8

const (
	Note Severity = iota + 1
	Warn
	Error
)

func (s Severity) String() string {
	switch s {
	case Note:
		return "note"
	case Warn:
		return "warning"
	case Error:
		return "error"
	}
	return "unknown"
}

// Group says what kind of problem a finding is about.
type Group uint8

const (
	GroupMalformed Group = iota + 1
	GroupChecksum
	GroupSequence
	GroupProtocol
	GroupResponse // request/response matching
	GroupReassembly
	GroupUndecoded
)

var groupNames = [...]string{"", "malformed", "checksum", "sequence", "protocol", "response", "reassembly", "undecoded"}

func (g Group) String() string {
	if int(g) < len(groupNames) {
		return groupNames[g]
	}
	return "unknown"
}

// Finding is one piece of expert information: a problem or remarkable event
// found while dissecting. Findings are rare on good traffic, so building their
// message may allocate.
type Finding struct {
	Sev   Severity
	Group Group
	Field *Field // the field it is about (nil: the PDU as a whole)
	Proto string // protocol that raised it
	Msg   string
	PDU   int // index of the PDU in the frame it belongs to, -1 for the frame
}

// Counts tallies findings by severity.
type Counts struct{ Errors, Warnings, Notes int }

// Add counts one finding.
func (c *Counts) Add(s Severity) {
	switch s {
	case Error:
		c.Errors++
	case Warn:
		c.Warnings++
	default:
		c.Notes++
	}
}

// Total is the number of findings counted.
func (c Counts) Total() int { return c.Errors + c.Warnings + c.Notes }
