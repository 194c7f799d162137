package plot

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/afs"
	"github.com/rdx-project/rdx/dissect/oncrpc"
)

// MaxSRTSamples bounds the response times srt keeps (8 MB of float64);
// later answers are left out and the title says how many were drawn.
const MaxSRTSamples = 1 << 20

// maxSRTProcs bounds the procedures srt tells apart (as flows.MaxSRT does
// for -z rpc,srt); answers of further ones are not counted.
const maxSRTProcs = 4096

// srtLines is how many procedures srt draws, the most answered first.
const srtLines = 8

// srtKind draws the response times the engine matched: the AFS replies
// and aborts Rx matched to their calls (the -z rx,srt samples) and the
// ONC RPC replies matched to their calls, over UDP, TCP or RPC-over-RDMA
// (the -z rpc,srt samples). Nothing is matched here.
type srtKind struct {
	ms      map[string][]float64 // procedure -> response times, ms
	n       int
	dropped int
}

func newSRT(*Options) (kind, error) { return &srtKind{ms: map[string][]float64{}}, nil }

func (k *srtKind) tree() bool { return false }

func (k *srtKind) frame(f *dissect.Frame, _ *dissect.Tree, _ int64) {
	for _, p := range f.PDUs {
		switch p := p.(type) {
		case *afs.PDU:
			c := &p.Call
			if !c.HasRespTime || !c.Reply {
				continue
			}
			name := ""
			if c.Namer != nil {
				name = c.Namer.CallName(c)
			}
			if name == "" {
				name = p.Service() + " " + p.OpName()
			}
			k.add(name, c.RespTime)
		case *oncrpc.Msg:
			if p.Type != oncrpc.Reply || !p.Matched() {
				continue
			}
			k.add(rpcName(p.Prog, p.Vers, p.Proc), p.ResponseTime())
		}
	}
}

// rpcName names an RPC procedure as -z rpc,srt's rows do: "NFS v3 READ".
func rpcName(prog, vers, proc uint32) string {
	pn, qn := oncrpc.ProgramName(prog), oncrpc.ProcName(prog, vers, proc)
	if pn == "" {
		pn = "program " + strconv.FormatUint(uint64(prog), 10)
	}
	if qn == "" {
		qn = "procedure " + strconv.FormatUint(uint64(proc), 10)
	}
	return pn + " v" + strconv.FormatUint(uint64(vers), 10) + " " + qn
}

func (k *srtKind) add(name string, ns int64) {
	if k.n >= MaxSRTSamples {
		k.dropped++
		return
	}
	s, ok := k.ms[name]
	if !ok && len(k.ms) >= maxSRTProcs {
		k.dropped++
		return
	}
	k.ms[name] = append(s, float64(ns)/1e6)
	k.n++
}

// minMS is where the log axes start: a response time of 0 (same
// timestamp) is drawn at 1 µs.
const minMS = 1e-3

func (k *srtKind) draw(c *canvasInfo) ([][]*plot.Plot, error) {
	if k.n == 0 {
		return nil, fmt.Errorf("%w: no matched request/response pairs (Rx/AFS calls, ONC RPC, NFS or RPC-over-RDMA)", ErrNoData)
	}
	counts := map[string]int{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for name, s := range k.ms {
		counts[name] = len(s)
		for i, v := range s {
			v = max(v, minMS)
			s[i] = v
			lo, hi = min(lo, v), max(hi, v)
		}
		slices.Sort(s)
	}
	names := top(counts, srtLines)
	title := fmt.Sprintf("Response times: %s, %d answers", c.fileNames(), k.n)
	if len(k.ms) > len(names) {
		title += fmt.Sprintf(", the %d busiest of %d procedures", len(names), len(k.ms))
	}
	if k.dropped > 0 {
		title += fmt.Sprintf(" (%d more not counted: limit %d)", k.dropped, MaxSRTSamples)
	}
	// Ten bins per decade, from the decade below the fastest answer.
	d0 := math.Floor(math.Log10(lo))
	nb := int(math.Ceil((math.Log10(hi)-d0)*10)) + 1
	edge := func(i int) float64 { return math.Pow(10, d0+float64(i)/10) }
	hist := newPlot(title, "Response time (ms, log scale)", "Answers per bin (10 per decade)")
	cdf := newPlot("Cumulative distribution (colours as in the histogram)", "Response time (ms, log scale)", "Fraction of answers ≤ x")
	for _, p := range []*plot.Plot{hist, cdf} {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Min, p.X.Max = edge(0), edge(nb)
	}
	cdf.Y.Max = 1
	cdf.Legend.Top = false // the CDF's lower right is empty
	cdf.Legend.YOffs = vg.Points(6)
	for i, name := range names {
		s := k.ms[name]
		hx, hy := make([]float64, nb), make([]float64, nb)
		for b := range hx {
			hx[b] = math.Sqrt(edge(b) * edge(b+1)) // the bin's middle on a log axis
		}
		for _, v := range s {
			b := int(math.Floor((math.Log10(v) - d0) * 10))
			hy[min(max(b, 0), nb-1)]++
		}
		label := fmt.Sprintf("%s (%d)", name, len(s))
		if err := addLine(hist, "", i, hx, hy, vg.Points(1.5)); err != nil {
			return nil, err
		}
		cx, cy := cdfPoints(s)
		if err := addLine(cdf, label, i, cx, cy, vg.Points(1.5)); err != nil {
			return nil, err
		}
	}
	return [][]*plot.Plot{{hist}, {cdf}}, nil
}

// maxCDFPoints bounds the points of one CDF line (a million answers would
// make a picture of a million vertices): beyond it the line steps at
// evenly spaced ranks.
const maxCDFPoints = 500

// cdfPoints are the vertices of the sorted samples' CDF as a staircase:
// at each sample it rises by its share, from 0 at the first.
func cdfPoints(s []float64) (x, y []float64) {
	n := len(s)
	step := max(1, n/maxCDFPoints)
	prev := 0.0
	for i := 0; i < n; i += step {
		j := min(i+step, n) - 1 // the last sample of this step
		x, y = append(x, s[i], s[i]), append(y, prev, float64(j+1)/float64(n))
		prev = float64(j+1) / float64(n)
	}
	return x, y
}
