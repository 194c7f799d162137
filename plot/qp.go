package plot

import (
	"fmt"
	"image/color"
	"net/netip"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/ib"
)

// maxQPs bounds the QP directions qp tells apart; packets of further ones
// are not drawn and the title says how many.
const maxQPs = 4096

// MaxQPMarks bounds the events qp keeps (16 bytes each); later events are
// not drawn and the title says how many.
const MaxQPMarks = 1 << 20

// qpRows is how many QP directions qp draws: those with the most events,
// then the most packets.
const qpRows = 24

// The events of the QP timeline, in legend order.
const (
	evGap = iota // PSN gap (packets lost on the way)
	evDup        // duplicate PSN: a retransmission, or a READ re-issued
	evNAK        // NAK (any code)
	evRNR        // RNR NAK (receiver not ready)
	evCNP        // congestion notification packet
	evECN        // ECN congestion experienced (IP CE, BTH FECN/BECN)
	numEv
)

// evColour picks palette colours: loss red, resends orange, NAKs purple.
var evColour = [numEv]int{3, 1, 4, 5, 0, 2}

var evNames = [numEv]string{"PSN gap", "retransmission (PSN seen again)", "NAK", "RNR NAK", "CNP", "ECN CE / FECN / BECN"}

type qpKey struct {
	src, dst netip.Addr
	qp       uint32
}

type qpRow struct {
	key         qpKey
	first, last int64
	packets     uint64
	events      uint64
}

type qpMark struct {
	t   int64
	row int32
	ev  uint8
}

// qpKind is the InfiniBand per-QP timeline: each direction of each QP a
// row, its packets' span a grey bar, and the events the InfiniBand
// dissector found (its PSN analysis findings, AETH NAKs, CNPs, ECN bits)
// as marks at their times.
type qpKind struct {
	rows    []qpRow
	idx     map[qpKey]int32
	marks   []qpMark
	lostQPs int
	lostEv  int
	count   [numEv]uint64
}

func newQP(*Options) (kind, error) { return &qpKind{idx: map[qpKey]int32{}}, nil }

func (k *qpKind) tree() bool { return false }

func (k *qpKind) frame(f *dissect.Frame, _ *dissect.Tree, rel int64) {
	for pi, p := range f.PDUs {
		pk, ok := p.(*ib.Packet)
		if !ok {
			continue
		}
		h := pk.BTH()
		if h == nil {
			continue
		}
		key := qpKey{qp: h.DestQP()}
		if f.Net.HasIP {
			key.src, key.dst = f.Net.Src, f.Net.Dst
		}
		r, ok := k.idx[key]
		if !ok {
			if len(k.rows) >= maxQPs {
				k.lostQPs++
				continue
			}
			r = int32(len(k.rows))
			k.rows = append(k.rows, qpRow{key: key, first: rel})
			k.idx[key] = r
		}
		row := &k.rows[r]
		row.last, row.packets = rel, row.packets+1
		cnp := h.Opcode() == ib.OpCNP
		if cnp {
			k.mark(r, rel, evCNP)
		}
		// A CNP carries BECN by definition: its mark says it already.
		if f.Net.ECN == 3 || h.FECN() || h.BECN() && !cnp {
			k.mark(r, rel, evECN)
		}
		if a := ib.AETH(pk.Header(ib.ExtAETH)); a.Valid() {
			switch a.Kind() {
			case ib.AckKindNAK:
				k.mark(r, rel, evNAK)
			case ib.AckKindRNRNAK:
				k.mark(r, rel, evRNR)
			}
		}
		// The dissector's PSN analysis (dissect/ib analyze) says what
		// was lost or sent again, as findings on this PDU.
		for i := range f.Findings {
			g := &f.Findings[i]
			if g.PDU != pi || g.Proto != "infiniband" || g.Group != dissect.GroupSequence {
				continue
			}
			switch {
			case strings.HasPrefix(g.Msg, "PSN gap"):
				k.mark(r, rel, evGap)
			case strings.HasPrefix(g.Msg, "duplicate PSN"), strings.HasPrefix(g.Msg, "RDMA READ re-issued"):
				k.mark(r, rel, evDup)
			}
		}
	}
}

func (k *qpKind) mark(r int32, rel int64, ev uint8) {
	k.count[ev]++
	k.rows[r].events++
	if len(k.marks) >= MaxQPMarks {
		k.lostEv++
		return
	}
	k.marks = append(k.marks, qpMark{t: rel, row: r, ev: ev})
}

func (k *qpKind) draw(c *canvasInfo) ([][]*plot.Plot, error) {
	if len(k.rows) == 0 {
		return nil, fmt.Errorf("%w: no InfiniBand packets (RoCEv1, RoCEv2 or native IB)", ErrNoData)
	}
	order := make([]int, len(k.rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := &k.rows[order[a]], &k.rows[order[b]]
		if ra.events != rb.events {
			return ra.events > rb.events
		}
		return ra.packets > rb.packets
	})
	if len(order) > qpRows {
		order = order[:qpRows]
	}
	// Row 0 at the top: y = n-1-i.
	n := len(order)
	y := make(map[int32]float64, n)
	names := make([]string, n)
	for i, r := range order {
		y[int32(r)] = float64(n - 1 - i)
		names[n-1-i] = k.rows[r].label()
	}
	var total uint64
	for _, v := range k.count {
		total += v
	}
	title := fmt.Sprintf("InfiniBand QP timeline: %s, %d events", c.fileNames(), total)
	if len(k.rows) > n {
		title += fmt.Sprintf(", the %d busiest of %d QP directions", n, len(k.rows))
	}
	if k.lostQPs > 0 || k.lostEv > 0 {
		title += fmt.Sprintf(" (not drawn: %d packets beyond %d QPs, %d events beyond %d)", k.lostQPs, maxQPs, k.lostEv, MaxQPMarks)
	}
	p := newPlot(title, timeAxis, "")
	p.NominalY(names...)
	p.Y.Max = float64(n) - 0.4
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(-4)
	p.X.Min = 0
	// The packets' span on each row.
	for _, r := range order {
		row := &k.rows[r]
		l, err := plotter.NewLine(xy{[]float64{float64(row.first) / 1e9, float64(row.last) / 1e9}, []float64{y[int32(r)], y[int32(r)]}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 200}
		l.Width = vg.Points(5)
		p.Add(l)
	}
	span, _ := plotter.NewLine(xy{[]float64{0}, []float64{0}})
	span.Color, span.Width = color.Gray{Y: 200}, vg.Points(5)
	p.Legend.Add(fmt.Sprintf("packets (%d QP directions)", len(k.rows)), span)
	entries := 1.0
	for ev := range numEv {
		var xs, ys []float64
		for _, m := range k.marks {
			if yy, ok := y[m.row]; ok && int(m.ev) == ev {
				xs, ys = append(xs, float64(m.t)/1e9), append(ys, yy)
			}
		}
		if len(xs) == 0 {
			continue
		}
		// Each event a little above or below its row's line, so that a NAK
		// does not hide the gap it answers.
		off := (float64(ev) - float64(numEv-1)/2) * 0.1
		for i := range ys {
			ys[i] += off
		}
		if err := addMarks(p, fmt.Sprintf("%s (%d)", evNames[ev], k.count[ev]), evColour[ev], xs, ys, vg.Points(3)); err != nil {
			return nil, err
		}
		entries++
	}
	// Room under the rows for the legend (it is drawn over the data area):
	// a units of y below row 0 take the legend's share f of the height.
	dataH := float64(pixels(c.opt.Height)) - 60 // title and time axis, about
	f := min((entries*(float64(p.Legend.TextStyle.Font.Size)+2)+6)/max(dataH, 1), 0.8)
	a := f * (float64(n) + 0.2) / (1 - f)
	p.Y.Min = -0.6 - a
	return [][]*plot.Plot{{p}}, nil
}

// label names a QP direction: "10.0.0.1 → 10.0.0.2 QP 0x11".
func (r *qpRow) label() string {
	q := fmt.Sprintf("QP 0x%x", r.key.qp)
	if r.key.src.IsValid() {
		return r.key.src.String() + " → " + r.key.dst.String() + " " + q
	}
	return q
}
