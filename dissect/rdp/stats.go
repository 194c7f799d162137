package rdp

import (
	"strconv"

	"github.com/rdx-project/rdx/flows"
)

// Stats implements flows.Provider: -z rdp,conv.
func (d *State) Stats() []flows.Stat { return []flows.Stat{{Name: "rdp,conv", Table: d.connTable}} }

// connTable has one row per connection and side, as the per-connection
// summary the RDP issue asks for.
func (d *State) connTable() *flows.Table {
	t := &flows.Table{Title: "RDP connections",
		Header: []string{"Side", "State", "Segments", "Data bytes", "Retransmits", "EACKed", "RST", "NUL",
			"Max out", "Max seg", "SDM", "Frames", "Duration"}}
	for _, c := range d.Connections(nil) {
		dur := flows.Dur(c.LastNS - c.FirstNS)
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
