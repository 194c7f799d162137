package rx

import (
	"sort"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
)

type srtKey struct {
	service uint16
	port    uint16
	opcode  uint32
	hasOp   bool
}

// srt accumulates response times per call type; a new key allocates once.
func (d *State) srt(c *Call) {
	if !c.HasRespTime || !c.Reply {
		return
	}
	s, fresh := d.srtTab.Add(srtKey{service: c.ServiceID, port: c.ServerPort, opcode: c.Opcode, hasOp: c.HasOpcode}, c.RespTime, c.Frame.Num)
	if s == nil {
		return
	}
	if fresh {
		if c.Namer != nil {
			s.Name = c.Namer.CallName(c)
		}
		if s.Name == "" {
			s.Name = "service " + strconv.Itoa(int(c.ServiceID))
			if c.HasOpcode {
				s.Name += " opcode " + strconv.FormatUint(uint64(c.Opcode), 10)
			}
		}
	}
	if c.Abort {
		s.Aborts++
	}
}

// Stats implements flows.Provider: -z rx,srt.
func (d *State) Stats() []flows.Stat { return []flows.Stat{{Name: "rx,srt", Table: d.srtTable}} }

// srtTable is the service response time per call type (as tshark's
// -z rpc,srt), from request to reply or abort.
func (d *State) srtTable() *flows.Table {
	t := &flows.Table{Title: "Rx service response time (request to reply or abort)",
		Header: []string{"Call", "Service ID", "Server port", "Calls", "Aborts", "Min", "Avg", "Max"}}
	keys := d.srtTab.Keys()
	sort.Slice(keys, func(i, j int) bool {
		a, b := d.srtTab.Get(keys[i]), d.srtTab.Get(keys[j])
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		// two types can share a name (the same call on two ports): the key
		// decides, or the order would follow the map's
		x, y := keys[i], keys[j]
		if x.service != y.service {
			return x.service < y.service
		}
		if x.port != y.port {
			return x.port < y.port
		}
		if x.opcode != y.opcode {
			return x.opcode < y.opcode
		}
		return !x.hasOp && y.hasOp
	})
	for _, k := range keys {
		s := d.srtTab.Get(k)
		t.Rows = append(t.Rows, []string{s.Name, strconv.Itoa(int(k.service)), strconv.Itoa(int(k.port)), flows.U(s.Count),
			flows.U(s.Aborts), flows.Dur(s.MinNS), flows.Dur(s.AvgNS()), flows.Dur(s.MaxNS)})
	}
	return t
}

// TagFrames implements dissect.FrameTagger.
func (d *State) TagFrames(tag uint64) { d.srtTab.TagFrames(tag) }

// MergeStats implements dissect.StatsMerger: from's response times (another
// engine's calls) are added to d's.
func (d *State) MergeStats(from dissect.Dissector) []dissect.Finding {
	if o, ok := from.(*State); ok {
		d.srtTab.Merge(&o.srtTab)
	}
	return nil
}
