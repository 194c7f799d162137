package plot

import (
	"fmt"
	"net/netip"

	"gonum.org/v1/plot"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rdp"
)

// maxRTTSeries bounds the connection directions rtt keeps; segments of
// further ones are not drawn and the title says so.
const maxRTTSeries = 1024

// MaxRTTPoints bounds the points rtt keeps over all series (16 bytes
// each); later points are not drawn and the title says how many.
const MaxRTTPoints = 1 << 20

// maxRDPPending bounds the unacknowledged RDP segments remembered per
// direction for RTT (RDP's max outstanding is a few dozen); the oldest is
// forgotten first (its ACK then gives no sample).
const maxRDPPending = 1024

// rttLines is how many connection directions rtt draws, the most sampled
// first.
const rttLines = 6

var (
	fRxRTT   = dissect.Lookup("rx.ack.rtt")
	fRxRwind = dissect.Lookup("rx.rwind")
)

type series struct {
	name   string
	x, y   []float64
	points int
}

// rttKind draws round-trip times and windows over time:
//   - Rx: the RTT the Rx dissector measured from a DATA packet's serial to
//     the ACK naming it (rx.ack.rtt), and the ACK sender's receive window
//     (rx.rwind, packets), per ACK sender;
//   - RDP: from a data segment to the peer's first ACK covering it (not
//     for segments sent twice: Karn), and the segments outstanding (sent
//     and not acknowledged) against the peer's max outstanding from its
//     SYN, per sender.
type rttKind struct {
	rtt, win map[string]*series
	rdp      map[rdpDir]*rdpSide
	points   int
	lost     int
}

type rdpDir struct{ src, dst netip.AddrPort }

type rdpSide struct {
	pending []rdpSent // unacknowledged, oldest first
	hiSeq   uint32
	hasSeq  bool
	maxOut  uint16 // the max outstanding this side's SYN allows its peer
}

type rdpSent struct {
	seq   uint32
	t     int64
	twice bool
}

func newRTT(*Options) (kind, error) {
	return &rttKind{rtt: map[string]*series{}, win: map[string]*series{}, rdp: map[rdpDir]*rdpSide{}}, nil
}

func (k *rttKind) tree() bool { return true } // Rx's ACK values are in the tree

func (k *rttKind) add(m map[string]*series, name string, rel int64, v float64) {
	s := m[name]
	if s == nil {
		if len(m) >= maxRTTSeries {
			k.lost++
			return
		}
		s = &series{name: name}
		m[name] = s
	}
	s.points++
	if k.points >= MaxRTTPoints {
		k.lost++
		return
	}
	k.points++
	s.x, s.y = append(s.x, float64(rel)/1e9), append(s.y, v)
}

func (k *rttKind) frame(f *dissect.Frame, t *dissect.Tree, rel int64) {
	if !f.Net.HasIP {
		return
	}
	if t != nil && f.Net.IPProto == dissect.IPProtoUDP {
		name := ""
		for i := range t.Nodes {
			n := &t.Nodes[i]
			if n.F != fRxRTT && n.F != fRxRwind || n.F == nil {
				continue
			}
			if name == "" {
				name = "Rx " + netip.AddrPortFrom(f.Net.Src, f.Net.SrcPort).String() + " → " + netip.AddrPortFrom(f.Net.Dst, f.Net.DstPort).String()
			}
			if n.F == fRxRTT {
				k.add(k.rtt, name, rel, float64(int64(n.U))/1e6)
			} else {
				k.add(k.win, name, rel, float64(n.U))
			}
		}
	}
	for _, p := range f.PDUs {
		if s, ok := p.(*rdp.Segment); ok {
			k.rdpSegment(f, s.Header(), rel)
		}
	}
}

// seqLE is a <= b in RDP's 32-bit sequence space.
func seqLE(a, b uint32) bool { return int32(b-a) >= 0 }

func (k *rttKind) rdpSegment(f *dissect.Frame, h rdp.Header, rel int64) {
	if !h.Valid() {
		return
	}
	src, dst := netip.AddrPortFrom(f.Net.Src, h.SrcPort()), netip.AddrPortFrom(f.Net.Dst, h.DstPort())
	side := func(d rdpDir) *rdpSide {
		s := k.rdp[d]
		if s == nil {
			if len(k.rdp) >= maxRTTSeries {
				return nil
			}
			s = &rdpSide{}
			k.rdp[d] = s
		}
		return s
	}
	me, peer := side(rdpDir{src, dst}), side(rdpDir{dst, src})
	if me == nil || peer == nil {
		k.lost++
		return
	}
	name := "RDP " + src.String() + " → " + dst.String()
	fl := h.Flags()
	if fl&rdp.FlagSYN != 0 {
		*me = rdpSide{hiSeq: h.Seq(), hasSeq: true}
		if h.HasSynOptions() {
			me.maxOut = h.MaxOutstanding()
		}
	}
	if fl&rdp.FlagACK != 0 {
		// The ACK names the last segment received in sequence: every
		// pending segment up to it is acknowledged; the newest of them
		// sent once gives the sample.
		ack := h.Ack()
		var sample *rdpSent
		n := 0
		for i := range peer.pending {
			ps := &peer.pending[i]
			if !seqLE(ps.seq, ack) {
				break
			}
			sample, n = ps, i+1
		}
		if sample != nil && !sample.twice {
			k.add(k.rtt, "RDP "+dst.String()+" → "+src.String(), rel, float64(rel-sample.t)/1e6)
		}
		peer.pending = peer.pending[:copy(peer.pending, peer.pending[n:])]
	}
	if h.DataLen() > 0 || fl&rdp.FlagNUL != 0 {
		seq := h.Seq()
		again := false
		for i := range me.pending {
			if me.pending[i].seq == seq {
				me.pending[i].twice, again = true, true
			}
		}
		if !again && (!me.hasSeq || !seqLE(seq, me.hiSeq)) {
			if len(me.pending) >= maxRDPPending {
				me.pending = me.pending[:copy(me.pending, me.pending[1:])]
			}
			me.pending = append(me.pending, rdpSent{seq: seq, t: rel})
			me.hiSeq, me.hasSeq = seq, true
		}
		k.add(k.win, name, rel, float64(len(me.pending)))
	}
}

func (k *rttKind) draw(c *canvasInfo) ([][]*plot.Plot, error) {
	if len(k.rtt) == 0 && len(k.win) == 0 {
		return nil, fmt.Errorf("%w: no Rx ACKs with an RTT or window, and no RDP data or ACKs", ErrNoData)
	}
	title := "Round-trip time: " + c.fileNames()
	if k.lost > 0 {
		title += fmt.Sprintf(" (%d samples not drawn: limits %d series, %d points)", k.lost, maxRTTSeries, MaxRTTPoints)
	}
	rp := newPlot(title, timeAxis, "Round-trip time (ms)")
	wp := newPlot("Window: Rx receive window (rx.rwind), RDP segments outstanding", timeAxis, "Window (packets or segments)")
	// One colour per name across both panels.
	counts := map[string]int{}
	for _, m := range []map[string]*series{k.rtt, k.win} {
		for name, s := range m {
			counts[name] += s.points
		}
	}
	color := map[string]int{}
	for i, name := range top(counts, len(counts)) {
		color[name] = i
	}
	for _, pm := range []struct {
		p *plot.Plot
		m map[string]*series
	}{{rp, k.rtt}, {wp, k.win}} {
		pts := map[string]int{}
		for name, s := range pm.m {
			pts[name] = s.points
		}
		if len(pts) == 0 {
			pm.p.Title.Text += " (none in the capture)"
			continue
		}
		for _, name := range top(pts, rttLines) {
			s := pm.m[name]
			label := fmt.Sprintf("%s (%d)", name, s.points)
			if err := addLinePoints(pm.p, label, color[name], s.x, s.y); err != nil {
				return nil, err
			}
		}
	}
	sameX(rp, wp)
	return [][]*plot.Plot{{rp}, {wp}}, nil
}
