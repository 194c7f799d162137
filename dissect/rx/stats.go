package rx

import (
	"sort"
	"strconv"
	"time"

	"github.com/rdx-project/rdx/dissect"
)

type srtKey struct {
	service uint16
	port    uint16
	opcode  uint32
	hasOp   bool
}

type srtStat struct {
	name            string
	calls, aborts   uint64
	min, max, total int64
}

// srt accumulates response times per call type; a new key allocates once.
func (d *State) srt(c *Call) {
	if !c.HasRespTime || !c.Reply {
		return
	}
	if d.srtTab == nil {
		d.srtTab = map[srtKey]*srtStat{}
	}
	k := srtKey{service: c.ServiceID, port: c.ServerPort, opcode: c.Opcode, hasOp: c.HasOpcode}
	s := d.srtTab[k]
	if s == nil {
		if len(d.srtTab) >= 4096 { // bounded: hostile traffic can invent opcodes
			return
		}
		s = &srtStat{min: c.RespTime}
		if c.Namer != nil {
			s.name = c.Namer.CallName(c)
		}
		if s.name == "" {
			s.name = "service " + strconv.Itoa(int(c.ServiceID))
			if c.HasOpcode {
				s.name += " opcode " + strconv.FormatUint(uint64(c.Opcode), 10)
			}
		}
		d.srtTab[k] = s
	}
	s.calls++
	if c.Abort {
		s.aborts++
	}
	s.total += c.RespTime
	s.min = min(s.min, c.RespTime)
	s.max = max(s.max, c.RespTime)
}

// StatNames implements dissect.StatsProvider.
func (d *State) StatNames() []string { return []string{"rx,srt"} }

// Stat implements dissect.StatsProvider: service response time per call
// type (as tshark's -z rpc,srt), from request to reply or abort.
func (d *State) Stat(name string) *dissect.StatTable {
	if name != "rx,srt" {
		return nil
	}
	t := &dissect.StatTable{Title: "Rx service response time (request to reply or abort)",
		Header: []string{"Call", "Service ID", "Server port", "Calls", "Aborts", "Min", "Avg", "Max"}}
	keys := make([]srtKey, 0, len(d.srtTab))
	for k := range d.srtTab {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := d.srtTab[keys[i]], d.srtTab[keys[j]]
		if a.calls != b.calls {
			return a.calls > b.calls
		}
		return a.name < b.name
	})
	dur := func(ns int64) string { return time.Duration(ns).Round(time.Microsecond).String() }
	for _, k := range keys {
		s := d.srtTab[k]
		t.Rows = append(t.Rows, []string{s.name, strconv.Itoa(int(k.service)), strconv.Itoa(int(k.port)), strconv.FormatUint(s.calls, 10),
			strconv.FormatUint(s.aborts, 10), dur(s.min), dur(s.total / int64(s.calls)), dur(s.max)})
	}
	return t
}
