package rds_test

import (
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/dissect/rds"
	"github.com/rdx-project/rdx/internal/testpkt"
	"github.com/rdx-project/rdx/pipeline"
)

// specKind names a message's type from its header as the RDS wire format
// defines it (congestion-map flag, then the ports; port 0 is the ping
// service, RDS_FLAG_PROBE_PORT 1 the multipath probe).
func specKind(h rds.Header) string {
	sp, dp := h.Sport(), h.Dport()
	switch {
	case h.Flags()&0x01 != 0:
		return "congestion map"
	case sp == 0 && dp == 0:
		return "ack-only"
	case dp == 0 && sp == 1:
		return "MPRDS probe"
	case dp == 0:
		return "ping"
	case sp == 0 && dp == 1:
		return "MPRDS probe pong"
	case sp == 0:
		return "pong"
	}
	return "data"
}

// tally is what -z rds,stat and rds,srt should say, counted here from the
// messages each frame's PDUs show and the frames' times.
type tally struct {
	msgs, octets, retrans, trunc map[string]uint64 // by "kind\tover"
	order                        []string
	pings, pongs                 map[string]uint64
	rtts                         map[string][]int64
}

func (y *tally) add(kind, over string, h rds.Header, trunc bool) {
	k := kind + "\t" + over
	if y.msgs[k] == 0 {
		y.order = append(y.order, k)
	}
	y.msgs[k]++
	y.octets[k] += uint64(h.Len())
	if h.Flags()&0x04 != 0 {
		y.retrans[k]++
	}
	if trunc {
		y.trunc[k]++
	}
}

// decodeTally runs path through an engine and returns the engine (for its
// tables) and the tally of the messages its frames show.
func decodeTally(t *testing.T, path string) (*dissect.Engine, *tally) {
	t.Helper()
	eng := dissect.NewEngine(dissect.Options{})
	y := &tally{msgs: map[string]uint64{}, octets: map[string]uint64{}, retrans: map[string]uint64{}, trunc: map[string]uint64{},
		pings: map[string]uint64{}, pongs: map[string]uint64{}, rtts: map[string][]int64{}}
	type ping struct {
		kind string
		at   int64
	}
	pending := map[string]ping{} // "over addr port" of a ping's sender
	err := testpkt.Each(path, func(p dissect.Packet) error {
		f := eng.Decode(p)
		for _, pd := range f.PDUs {
			var h rds.Header
			var over string
			trunc := false
			switch m := pd.(type) {
			case *rds.Message:
				if m.Segment() {
					continue
				}
				h, over, trunc = m.Header(), "TCP", m.Truncated()
			case *rds.IBMsg:
				if !m.Final() {
					continue
				}
				h, over = m.Header(), "InfiniBand"
			default:
				continue
			}
			kind := specKind(h)
			y.add(kind, over, h, trunc)
			src := over + " " + netip.AddrPortFrom(f.Net.Src, h.Sport()).String()
			dst := over + " " + netip.AddrPortFrom(f.Net.Dst, h.Dport()).String()
			switch kind {
			case "ping", "MPRDS probe":
				y.pings[kind+"\t"+over]++
				pending[src] = ping{kind, f.TimeNS}
			case "pong", "MPRDS probe pong":
				if pg, ok := pending[dst]; ok {
					k := pg.kind + "\t" + over
					y.pongs[k]++
					y.rtts[k] = append(y.rtts[k], f.TimeNS-pg.at)
					delete(pending, dst)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return eng, y
}

func dur(ns int64) string { return time.Duration(ns).Round(time.Microsecond).String() }

// TestStatTablesRealCaptures: -z rds,stat and rds,srt on the real RDS/TCP,
// lossy RDS/TCP and RDS/IB (soft-RoCE) captures agree with the messages
// the frames show, counted here, and with what the lab's programs did.
func TestStatTablesRealCaptures(t *testing.T) {
	for _, c := range []struct {
		path  string
		pings uint64 // pings answered, as the lab's program reported or the README lists
		data  uint64
	}{
		{realCapture, 2, 13},
		{"../../pcaps/kernel/lossy_rds_tcp.pcap", 2, 17}, // LOSSY-RESULT: echoes matched=8/8, pongs=2/2
		{ibCapture, 2, 13},
	} {
		t.Run(c.path[strings.LastIndex(c.path, "/")+1:], func(t *testing.T) {
			eng, y := decodeTally(t, c.path)
			var want []string
			for _, k := range y.order {
				want = append(want, k+"\t"+u(y.msgs[k])+"\t"+u(y.octets[k])+"\t"+u(y.retrans[k])+"\t"+u(y.trunc[k]))
			}
			st := eng.Stat("rds,stat")
			if got := rows(st.Rows); got != strings.Join(sortedByKind(want), "\n") {
				t.Errorf("rds,stat\n%s\nwant\n%s", got, strings.Join(sortedByKind(want), "\n"))
			}
			var wantSRT []string
			for _, k := range []string{"ping\tTCP", "MPRDS probe\tTCP", "ping\tInfiniBand", "MPRDS probe\tInfiniBand"} {
				if y.pings[k] == 0 {
					continue
				}
				r := k + "\t" + u(y.pings[k]) + "\t" + u(y.pongs[k])
				if rt := y.rtts[k]; len(rt) > 0 {
					lo, hi, sum := rt[0], rt[0], int64(0)
					for _, v := range rt {
						lo, hi, sum = min(lo, v), max(hi, v), sum+v
					}
					r += "\t" + dur(lo) + "\t" + dur(sum/int64(len(rt))) + "\t" + dur(hi)
				} else {
					r += "\t\t\t"
				}
				wantSRT = append(wantSRT, r)
			}
			if got := rows(eng.Stat("rds,srt").Rows); got != strings.Join(wantSRT, "\n") {
				t.Errorf("rds,srt\n%s\nwant\n%s", got, strings.Join(wantSRT, "\n"))
			}
			// what the programs did: every ping answered, every echo's data
			// there once (TCP's retransmissions are not RDS's), none cut
			if k := "ping\t" + y.order[0][strings.Index(y.order[0], "\t")+1:]; y.pings[k] != c.pings || y.pongs[k] != c.pings {
				t.Errorf("%s: %d pings, %d pongs, want %d answered", k, y.pings[k], y.pongs[k], c.pings)
			}
			data := uint64(0)
			for k, n := range y.msgs {
				if strings.HasPrefix(k, "data\t") {
					data += n
				}
				if y.retrans[k] != 0 || y.trunc[k] != 0 {
					t.Errorf("%s: %d retransmitted, %d truncated", k, y.retrans[k], y.trunc[k])
				}
			}
			if data != c.data {
				t.Errorf("%d data messages, want %d", data, c.data)
			}
		})
	}
}

// TestStatTableMessageList: on rds_tcp.pcap the table counts exactly the
// messages of the independent parse beside it (.rds-messages.tsv).
func TestStatTableMessageList(t *testing.T) {
	n, octets := map[string]uint64{}, map[string]uint64{}
	for _, line := range readMessageList(t, realCapture+".rds-messages.tsv") {
		f := strings.Split(line, "\t") // stream dir sport dport seq len flags
		sp, _ := strconv.Atoi(f[2])
		dp, _ := strconv.Atoi(f[3])
		ln, _ := strconv.ParseUint(f[5], 10, 32)
		fl, _ := strconv.ParseUint(f[6], 0, 8)
		h := rds.HeaderFields{Sport: uint16(sp), Dport: uint16(dp), Len: uint32(ln), Flags: uint8(fl)}
		k := specKind(rds.Header(h.Encode(nil)))
		n[k]++
		octets[k] += ln
	}
	eng, _ := decodeTally(t, realCapture)
	st := eng.Stat("rds,stat")
	if len(st.Rows) != len(n) {
		t.Errorf("%d rows, the list has %d kinds: %v", len(st.Rows), len(n), n)
	}
	for _, r := range st.Rows {
		if r[2] != u(n[r[0]]) || r[3] != u(octets[r[0]]) {
			t.Errorf("%s: %s messages of %s octets, the list has %d of %d", r[0], r[2], r[3], n[r[0]], octets[r[0]])
		}
	}
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }

func rows(r [][]string) string {
	var s []string
	for _, row := range r {
		s = append(s, strings.Join(row, "\t"))
	}
	return strings.Join(s, "\n")
}

// sortedByKind orders "kind\tover..." rows as the table does: TCP first,
// then by rds.msg_type.
func sortedByKind(rs []string) []string {
	rank := map[string]int{"data": 0, "ack-only": 1, "congestion map": 2, "ping": 3, "pong": 4, "MPRDS probe": 5, "MPRDS probe pong": 6}
	key := func(r string) int {
		f := strings.Split(r, "\t")
		k := rank[f[0]]
		if f[1] == "InfiniBand" {
			k += 10
		}
		return k
	}
	out := append([]string(nil), rs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && key(out[j]) < key(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestStatTablesTwoPass: read twice (-2), the tables count each message
// once, as one pass does; over two files they add up.
func TestStatTablesTwoPass(t *testing.T) {
	for _, path := range []string{realCapture, ibCapture} {
		run := func(two bool) string {
			var out strings.Builder
			if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: path}, Out: &out, Quiet: true, TwoPass: two,
				Stats: []string{"rds,stat", "rds,srt"}}); err != nil {
				t.Fatal(err)
			}
			return out.String()
		}
		one, two := run(false), run(true)
		if one != two {
			t.Errorf("%s: two passes\n%s\none pass\n%s", path, two, one)
		}
		if !strings.Contains(one, "| ping ") || !strings.Contains(one, "RDS messages by type") {
			t.Errorf("%s: no tables:\n%s", path, one)
		}
	}
}
