package rdp

import (
	"strconv"
	"time"

	"github.com/rdx-project/rdx/dissect"
)

// StatNames implements dissect.StatsProvider.
func (d *State) StatNames() []string { return []string{"rdp,conv"} }

// Stat implements dissect.StatsProvider: one row per connection and side,
// as the per-connection summary the RDP issue asks for.
func (d *State) Stat(name string) *dissect.StatTable {
	if name != "rdp,conv" {
		return nil
	}
	t := &dissect.StatTable{Title: "RDP connections",
		Header: []string{"Side", "State", "Segments", "Data bytes", "Retransmits", "EACKed", "RST", "NUL",
			"Max out", "Max seg", "SDM", "Frames", "Duration"}}
	for _, c := range d.Connections(nil) {
		dur := time.Duration(c.LastNS - c.FirstNS).Round(time.Microsecond).String()
		for s := 0; s < 2; s++ {
			st := c.Stats[s]
			frames := ""
			if s == 0 {
				frames = strconv.FormatUint(c.FirstFrame, 10) + "-" + strconv.FormatUint(c.LastFrame, 10)
			}
			t.Rows = append(t.Rows, []string{
				c.Endpoints[s].String() + " → " + c.Endpoints[1-s].String(), c.State[s].String(),
				u(st.Segments), u(st.DataBytes), u(st.Retransmits), u(st.EACKs), u(st.RSTs), u(st.NULs),
				strconv.Itoa(int(c.MaxOutstanding[s])), strconv.Itoa(int(c.MaxSegment[s])), strconv.FormatBool(c.SDM[s]),
				frames, dur})
		}
	}
	return t
}
