package dissect

import (
	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/reassembly/tcp"
)

// StatsMerger is implemented by dissectors that keep end-of-run statistics
// (the -z tables they offer through StatsProvider): MergeStats adds what
// from, the same protocol's instance in another engine, counted over other
// frames of the same capture. A table that goes over its limit by the merge
// drops what one engine would have dropped and returns the findings it
// raises when it drops state (nil when it dropped nothing).
type StatsMerger interface {
	MergeStats(from Dissector) []Finding
}

// Merge adds from's statistics into e: the conversations (every conv,*
// kind), every -z table of a StatsMerger dissector, the tcp,analysis
// counters and the TCP reassembly counters (StreamStats). The parallel
// pipeline runs one engine per worker, each given the frames of the flows
// hashed to it (ShardKey) in frame order with their real frame numbers, and
// merges the workers' engines into one at the end: e's tables then show
// what one engine reading every frame would show (see flows.Order for the
// tables that keep the rows met first). Merge is linear in the tables'
// sizes. e and from must come from NewEngine with the same registrations
// and both have ended their input (Finish: the end-of-input flush counts
// too); from is left as it was. Findings raised by tables the merge took
// over their limits are kept for MergeFindings.
func (e *Engine) Merge(from *Engine) {
	if from == nil || from == e {
		return
	}
	e.convs.Merge(&from.convs)
	for i, n := range from.tcpStats {
		e.tcpStats[i] += n
	}
	e.tcpTab.drops += from.tcpTab.drops
	e.mergedStream.Add(from.StreamStats())
	e.tly.merge(from.tly)
	for i, d := range e.inst {
		m, ok := d.(StatsMerger)
		if !ok || i >= len(from.inst) || from.regs[i] != e.regs[i] {
			continue
		}
		e.mergeFindings = append(e.mergeFindings, m.MergeStats(from.inst[i])...)
	}
	e.mergeFindings = append(e.mergeFindings, from.mergeFindings...)
}

// FrameTagger is implemented by dissectors whose -z tables keep frame
// numbers (a row's first and last frame, the first met): TagFrames adds tag
// to each, as Engine.TagFrames asks.
type FrameTagger interface {
	TagFrames(tag uint64)
}

// TagFrames marks every frame number e's tables keep as file's (the index
// of e's capture among many, flows.FileShift): merged with the engines of
// the other files (Merge) their rows then order file by file and a table's
// frames can name their file (flows.Table.NameFrames). Call it once, after
// e's input ended, before it is merged or into. Linear in the tables' sizes.
func (e *Engine) TagFrames(file int) {
	tag := uint64(file) << flows.FileShift
	if tag == 0 {
		return
	}
	e.convs.TagFrames(tag)
	if e.tly != nil {
		for _, fc := range e.tly.convs {
			fc.convs.TagFrames(tag)
		}
		for _, p := range e.tly.params {
			if t, ok := p.c.(FrameTagger); ok {
				t.TagFrames(tag)
			}
		}
	}
	for _, d := range e.inst {
		if t, ok := d.(FrameTagger); ok {
			t.TagFrames(tag)
		}
	}
}

// MergeFindings are the findings raised while merging engines (Merge): a
// table the merge took over its limit dropped entries, as one engine's
// table does on the frame that overflows it. No frame is theirs; the
// caller reports and counts them after the frames.
func (e *Engine) MergeFindings() []Finding { return e.mergeFindings }

// StreamStats reports the TCP reassembly counters (zero if none ran),
// with those of engines merged into e.
func (e *Engine) StreamStats() tcp.Stats {
	s := e.mergedStream
	if e.asm != nil {
		s.Add(e.asm.Stats())
	}
	return s
}
