package tcp

import (
	"math/rand/v2"
	"testing"
)

// onceConsumer counts, per stream offset, how often a byte was delivered,
// and checks it against the stream that was sent.
type onceConsumer struct {
	t      *testing.T
	sent   []byte
	count  []int
	gapped []bool
}

func (c *onceConsumer) Data(ch *Chunk) {
	for i, b := range ch.Bytes {
		o := ch.Offset + uint64(i)
		c.count[o]++
		if b != c.sent[o] {
			c.t.Fatalf("offset %d: delivered %#x, sent %#x", o, b, c.sent[o])
		}
	}
}

func (c *onceConsumer) Gap(g *Gap) {
	for o := g.Offset; o < g.Offset+g.Size; o++ {
		c.gapped[o] = true
	}
}
func (c *onceConsumer) Anomaly(*Anomaly)           {}
func (c *onceConsumer) Close(FlowKey, CloseReason) {}

// TestDeliveredOnce: whatever mix of retransmitted, reordered and
// duplicated segments arrives, including retransmissions that straddle
// delivered and new bytes and ones that come after their hole was given up
// as a gap, every byte reaches the consumer at most once, and exactly once
// unless it lies in a reported gap. This is what lets RDS, ONC RPC and MPA
// count each message once on captures with TCP retransmissions.
func TestDeliveredOnce(t *testing.T) {
	var total Stats
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		const size = 20000
		sent := make([]byte, size)
		for i := range sent {
			sent[i] = byte(rng.IntN(256))
		}
		type piece struct{ off, n int }
		var segs []piece
		for off := 0; off < size; {
			n := min(size-off, 1+rng.IntN(1500))
			segs = append(segs, piece{off, n})
			off += n
		}
		// Arrival order: mostly in order, with reordering, duplicates,
		// straddling retransmissions (a random window over several
		// segments) and losses that only a late copy repairs.
		var order []piece
		var late []piece
		for i := 0; i < len(segs); i++ {
			s := segs[i]
			switch r := rng.IntN(10); {
			case r == 0 && i+1 < len(segs): // swap with the next
				order = append(order, segs[i+1], s)
				i++
			case r == 1: // duplicate
				order = append(order, s, s)
			case r == 2: // lost now, retransmitted later
				late = append(late, s)
			case r == 3: // straddling retransmission of recent bytes plus new ones
				lo := max(0, s.off-rng.IntN(3000))
				order = append(order, piece{lo, min(size, s.off+s.n) - lo})
			default:
				order = append(order, s)
			}
			if len(late) > 0 && rng.IntN(8) == 0 {
				order = append(order, late[0])
				late = late[1:]
			}
		}
		order = append(order, late...)
		// After everything, replay some segments once more: retransmissions
		// of delivered bytes and of bytes whose hole was given up.
		for range 20 {
			order = append(order, segs[rng.IntN(len(segs))])
		}
		c := &onceConsumer{t: t, sent: sent, count: make([]int, size), gapped: make([]bool, size)}
		// A small per-stream limit makes the assembler give up holes while
		// their bytes are still to come.
		cfg := Config{MaxBufferedPerStream: 8 << 10, History: 1 << 10, NewConsumer: func(FlowKey) Consumer { return c }}
		if seed%2 == 0 {
			cfg.MaxBufferedPerStream = 0 // default: nothing given up before the end
		}
		a := NewAssembler(cfg)
		a.Add(client, server, Segment{Seq: 99, SYN: true})
		for i, p := range order {
			a.Add(client, server, Segment{Seq: 100 + uint32(p.off), Payload: sent[p.off : p.off+p.n], Frame: uint64(i + 1)})
		}
		a.FlushAll()
		st := a.Stats()
		total.Retransmissions += st.Retransmissions
		total.Overlaps += st.Overlaps
		total.OutOfOrder += st.OutOfOrder
		total.Gaps += st.Gaps
		total.Bytes += st.Bytes
		for o, n := range c.count {
			switch {
			case n > 1:
				t.Fatalf("seed %d: offset %d delivered %d times", seed, o, n)
			case n == 1 && c.gapped[o]:
				t.Fatalf("seed %d: offset %d delivered and reported as a gap", seed, o)
			case n == 0 && !c.gapped[o]:
				t.Fatalf("seed %d: offset %d neither delivered nor in a gap", seed, o)
			}
		}
	}
	// The mix must really have happened.
	if total.Retransmissions < 1000 || total.Overlaps < 300 || total.OutOfOrder < 1000 || total.Gaps < 50 || total.Bytes < 100*20000 {
		t.Errorf("weak mix: %+v", total)
	}
	t.Logf("%+v", total)
}
