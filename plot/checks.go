package plot

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/rdx-project/rdx/dissect"
)

// checkLines is how many checks the checks plot draws a line for: those
// that failed most, then those run most.
const checkLines = 8

// checksKind draws the engine's check results (CRCs, markers, checksums,
// the ones rdx check tabulates) over time: failures per interval per check,
// and every check run per interval for scale.
type checksKind struct {
	b      *bins
	runAll int            // row: every check run
	rows   map[string]int // check name -> failures row
	fails  map[string]uint64
	runs   map[string]uint64
	failed uint64
	run    uint64
}

func newChecks(o *Options) (kind, error) {
	k := &checksKind{b: newBins(o.Interval), rows: map[string]int{}, fails: map[string]uint64{}, runs: map[string]uint64{}}
	k.runAll = k.b.row()
	return k, nil
}

func (k *checksKind) tree() bool { return false }

func (k *checksKind) frame(f *dissect.Frame, _ *dissect.Tree, rel int64) {
	if len(f.Checks) == 0 {
		k.b.index(rel) // time passes without checks: the x axis covers it
		return
	}
	for i := range f.Checks {
		c := &f.Checks[i]
		if c.Skip != dissect.SkipNone || c.Check == nil {
			continue
		}
		name := c.Check.Name
		r, ok := k.rows[name] // bounded by the registered checks
		if !ok {
			r = k.b.row()
			k.rows[name] = r
		}
		k.runs[name]++
		k.run++
		k.b.add(k.runAll, rel, 1)
		if !c.OK {
			k.fails[name]++
			k.failed++
			k.b.add(r, rel, 1)
		} else {
			k.b.index(rel)
		}
	}
}

func (k *checksKind) draw(c *canvasInfo) ([][]*plot.Plot, error) {
	if k.run == 0 {
		return nil, fmt.Errorf("%w: no checks ran (no CRC, marker, checksum or sequence rule applied)", ErrNoData)
	}
	title := fmt.Sprintf("Check failures: %s, %d of %d checks failed, %s", c.fileNames(), k.failed, k.run, k.b.note())
	per := "per " + seconds(k.b.iv) + " interval"
	fp := newPlot(title, timeAxis, "Failures ("+per+")")
	rp := newPlot("Checks run", timeAxis, "Checks ("+per+")")
	x := k.b.times()
	// Failing checks first, then the most run: a clean capture still shows
	// which checks ran (at zero).
	order := top(k.fails, checkLines)
	seen := map[string]bool{}
	for _, n := range order {
		seen[n] = true
	}
	for _, n := range top(k.runs, len(k.runs)) {
		if len(order) >= checkLines {
			break
		}
		if !seen[n] {
			order = append(order, n)
		}
	}
	for i, n := range order {
		label := fmt.Sprintf("%s (%d of %d failed)", n, k.fails[n], k.runs[n])
		c := i
		if c >= greyColour {
			c++
		}
		if err := addLine(fp, label, c, x, k.b.rows[k.rows[n]], vg.Points(1.5)); err != nil {
			return nil, err
		}
	}
	if err := addLine(rp, "all checks run", greyColour, x, k.b.rows[k.runAll], vg.Points(1.5)); err != nil {
		return nil, err
	}
	rp.Y.Tick.Marker, fp.Y.Tick.Marker = siTicks{}, siTicks{}
	fp.Y.Max = max(fp.Y.Max, 1) // a clean capture: a zero line, not -1..1
	sameX(fp, rp)
	return [][]*plot.Plot{{fp}, {rp}}, nil
}
