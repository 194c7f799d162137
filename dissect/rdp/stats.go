package rdp

import (
	"sort"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
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
	t.FrameCols = []int{11}
	return t
}

// TagFrames implements dissect.FrameTagger: the connections' first and
// last frames.
func (d *State) TagFrames(tag uint64) {
	for _, c := range d.conns.All() {
		c.firstFrame += tag
		c.lastFrame += tag
	}
}

// MergeStats implements dissect.StatsMerger: from's connections (another
// engine's segments) are added to d's. When together they exceed the table's
// limit, the least recently active go, as in one engine's table, with the
// finding that table raises (the first few named, the rest counted).
func (d *State) MergeStats(from dissect.Dissector) []dissect.Finding {
	o, ok := from.(*State)
	if !ok || o.conns.Len() == 0 {
		return nil
	}
	var extra []connEntry // from's connections d does not have, oldest first
	for k, c := range o.conns.All() {
		if e := d.conns.Get(k); e != nil {
			e.V.merge(c)
			continue
		}
		extra = append(extra, connEntry{k, c})
	}
	if d.conns.Len()+len(extra) <= maxConns {
		for _, x := range extra {
			e, _ := d.conns.Add(x.k)
			e.V = *x.c
		}
		return nil
	}
	all := make([]connEntry, 0, d.conns.Len()+len(extra))
	for k, c := range d.conns.All() {
		cp := *c // Init below recycles d's entries
		all = append(all, connEntry{k, &cp})
	}
	all = append(all, extra...)
	flows.KeepFirst(all, maxConns, func(a, b connEntry) bool { return a.c.lastFrame > b.c.lastFrame })
	kept, gone := all[:maxConns], all[maxConns:]
	sort.Slice(kept, func(i, j int) bool { return kept[i].c.lastFrame < kept[j].c.lastFrame }) // at most maxConns
	d.conns.Init(maxConns, connOverhead, dropped)
	for _, x := range kept {
		e, _ := d.conns.Add(x.k)
		e.V = *x.c
	}
	var fs []dissect.Finding
	for i, x := range gone {
		if i == maxMergeFindings {
			fs = append(fs, mergeFinding("connection table full ("+strconv.Itoa(maxConns)+" connections): dropped "+
				strconv.Itoa(len(gone)-i)+" more of the least recently active"))
			break
		}
		fs = append(fs, mergeFinding("connection table full ("+strconv.Itoa(maxConns)+
			" connections): dropped the least recently active, "+dropped(x.k, x.c)))
	}
	return fs
}

// maxMergeFindings is how many dropped connections a merge names; the rest
// are counted in one more finding.
const maxMergeFindings = 3

func mergeFinding(msg string) dissect.Finding {
	return dissect.Finding{Sev: dissect.Warn, Group: dissect.GroupReassembly, Proto: "rdp", Msg: msg, PDU: -1}
}

type connEntry struct {
	k connKey
	c *conn
}

// merge adds o, the same connection as seen by another engine, to c: the
// counts add up, the state is that of whichever saw the connection last.
func (c *conn) merge(o *conn) {
	base, other := c, o
	if o.lastFrame > c.lastFrame {
		base, other = o, c
	}
	r := *base
	for s := range r.side {
		for t := range other.side {
			if other.side[t].ep == r.side[s].ep {
				r.side[s].st.add(&other.side[t].st)
				break
			}
		}
	}
	if other.firstFrame < r.firstFrame {
		r.first, r.firstFrame = other.first, other.firstFrame
	}
	r.established = r.established || other.established
	*c = r
}

func (s *SideStats) add(o *SideStats) {
	s.Segments += o.Segments
	s.DataBytes += o.DataBytes
	s.Retransmits += o.Retransmits
	s.EACKs += o.EACKs
	s.RSTs += o.RSTs
	s.NULs += o.NULs
}
