package plot

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/filter"
)

// maxIOProtos bounds the protocols io keeps a line for (the protocol
// column's values; a capture has a handful): frames of further protocols
// count in "other".
const maxIOProtos = 64

// ioLines is how many protocol lines io draws (the busiest), besides all
// frames; the rest are drawn together as "other".
const ioLines = 6

// ioKind is Wireshark's IO graph: frames and bytes per second, for all
// frames and per protocol, or per display filter.
type ioKind struct {
	b       *bins
	all     int // rows: frames, then bytes (all+1)
	filters []*filter.Filter
	fRows   []int
	protos  map[string]int // protocol column -> its frames row
	pFrames map[string]uint64
	other   int // row of protocols beyond maxIOProtos (-1 until needed)
}

func newIO(o *Options) (kind, error) {
	k := &ioKind{b: newBins(o.Interval), protos: map[string]int{}, pFrames: map[string]uint64{}, other: -1}
	k.all = k.b.row()
	k.b.row()
	for _, s := range o.Filters {
		f, err := filter.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("plot io: -Y %s: %w", s, err)
		}
		k.filters = append(k.filters, f)
		k.fRows = append(k.fRows, k.b.row())
		k.b.row()
	}
	return k, nil
}

func (k *ioKind) tree() bool { return len(k.filters) > 0 }

func (k *ioKind) frame(f *dissect.Frame, t *dissect.Tree, rel int64) {
	n := float64(f.WireLen)
	k.b.add(k.all, rel, 1)
	k.b.add(k.all+1, rel, n)
	if len(k.filters) > 0 {
		for i, flt := range k.filters {
			if flt.Match(t) {
				k.b.add(k.fRows[i], rel, 1)
				k.b.add(k.fRows[i]+1, rel, n)
			}
		}
		return
	}
	r, ok := k.protos[f.Proto]
	if !ok {
		if len(k.protos) >= maxIOProtos {
			if k.other < 0 {
				k.other = k.b.row()
				k.b.row()
			}
			r = k.other
		} else {
			r = k.b.row()
			k.b.row()
			k.protos[f.Proto] = r
		}
	}
	if r != k.other {
		k.pFrames[f.Proto]++
	}
	k.b.add(r, rel, 1)
	k.b.add(r+1, rel, n)
}

// ioLine is one line of the IO graph: its name and rows.
type ioLine struct {
	name string
	rows []int // frames rows added together (bytes are the next row each)
}

// lines are the lines drawn: all frames, then the filters or the busiest
// protocols and "other".
func (k *ioKind) lines() []ioLine {
	out := []ioLine{{name: "all frames", rows: []int{k.all}}}
	if len(k.filters) > 0 {
		for i, f := range k.filters {
			out = append(out, ioLine{name: f.String(), rows: []int{k.fRows[i]}})
		}
		return out
	}
	busy := top(k.pFrames, ioLines)
	if len(k.protos) <= ioLines+1 { // one more line beats an "other" of one
		busy = top(k.pFrames, ioLines+1)
	}
	shown := map[string]bool{}
	for _, p := range busy {
		out = append(out, ioLine{name: p, rows: []int{k.protos[p]}})
		shown[p] = true
	}
	var rest []int // in row order: the sums come out the same every run
	for _, p := range top(k.pFrames, len(k.pFrames)) {
		if !shown[p] {
			rest = append(rest, k.protos[p])
		}
	}
	if k.other >= 0 {
		rest = append(rest, k.other)
	}
	if len(rest) > 0 {
		out = append(out, ioLine{name: "other", rows: rest})
	}
	return out
}

// series is line l's frames (bytes: +1) per second.
func (k *ioKind) series(l ioLine, bytes int) []float64 {
	var out []float64
	for _, r := range l.rows {
		v := k.b.rate(r + bytes)
		if out == nil {
			out = v
			continue
		}
		for i := range out {
			out[i] += v[i]
		}
	}
	return out
}

func (k *ioKind) draw(c *canvasInfo) ([][]*plot.Plot, error) {
	if c.frames == 0 || k.b.n == 0 {
		return nil, fmt.Errorf("%w: no frames", ErrNoData)
	}
	x := k.b.times()
	pk := newPlot(fmt.Sprintf("IO graph: %s, %d frames, %s", c.fileNames(), c.frames, k.b.note()), timeAxis, "Frames per second (frames/s)")
	by := newPlot("", timeAxis, "Bytes per second (B/s)")
	pk.Y.Tick.Marker, by.Y.Tick.Marker = siTicks{}, siTicks{}
	// "all frames" thick and grey, drawn first: the protocols' lines lie
	// on it. The legend once, on the top panel.
	lines := k.lines()
	for i, l := range lines {
		c, w := i-1, vg.Points(1.25)
		if i == 0 {
			c, w = greyColour, vg.Points(2.5)
		} else if c >= greyColour {
			c++
		}
		lp, err := newLine(x, k.series(l, 0), c, w)
		if err != nil {
			return nil, err
		}
		lb, err := newLine(x, k.series(l, 1), c, w)
		if err != nil {
			return nil, err
		}
		pk.Add(lp)
		by.Add(lb)
		pk.Legend.Add(l.name, lp)
	}
	sameX(pk, by)
	return [][]*plot.Plot{{pk}, {by}}, nil
}
