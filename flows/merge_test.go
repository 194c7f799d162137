package flows

import (
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
)

// KeepFirst leaves the k smallest in front, for every k, on shuffled input
// with repeats.
func TestKeepFirst(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		for k := 0; k <= n+1; k++ {
			s := make([]int, n)
			for i := range s {
				s[i] = r.IntN(n/2 + 1)
			}
			want := slices.Sorted(slices.Values(s))
			got := slices.Clone(KeepFirst(s, k, func(a, b int) bool { return a < b }))
			slices.Sort(got)
			if w := want[:min(k, n)]; !slices.Equal(got, w) {
				t.Fatalf("n %d k %d: kept %v, want %v", n, k, got, w)
			}
		}
	}
}

// One table fed every packet and two tables fed a share each, merged, give
// the same rows: counts add each way, the first frame and time come from
// the earlier share, the last from the later, both for a conversation only
// one share saw and for one both saw.
func TestConversationsMerge(t *testing.T) {
	a, b, c := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.3")
	pkts := []Packet{
		{Src: a, Dst: b, Proto: UDP, HasPorts: true, SrcPort: 1, DstPort: 2, WireLen: 100, TimeNS: 1e6, Frame: 1},
		{Src: c, Dst: a, Proto: TCP, HasPorts: true, SrcPort: 3, DstPort: 4, WireLen: 70, TimeNS: 2e6, Frame: 2},
		{Src: b, Dst: a, Proto: UDP, HasPorts: true, SrcPort: 2, DstPort: 1, WireLen: 40, TimeNS: 5e6, Frame: 3},
		{Src: a, Dst: b, Proto: UDP, HasPorts: true, SrcPort: 1, DstPort: 2, WireLen: 30, TimeNS: 9e6, Frame: 4},
	}
	var one, x, y Conversations
	for i := range pkts {
		one.Count(&pkts[i])
		if i%2 == 0 { // the a-b conversation is counted by both shares
			x.Count(&pkts[i])
		} else {
			y.Count(&pkts[i])
		}
	}
	x.Merge(&y)
	for _, kind := range []uint8{IP, TCP, UDP} {
		if got, want := x.Rows(kind), one.Rows(kind); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("kind %d: merged %q, want %q", kind, got, want)
		}
	}
	udp := []string{"192.0.2.1:1", "192.0.2.2:2", "2", "130", "1", "40", "1-4", "8ms"}
	if got := x.Rows(UDP); len(got) != 1 || !slices.Equal(got[0], udp) {
		t.Errorf("udp %q, want %q", got, udp)
	}
	var empty Conversations
	empty.Merge(&x) // into a zero table
	if got, want := empty.Rows(IP), one.Rows(IP); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("into zero: %q, want %q", got, want)
	}
}

// Past MaxConversations, a merged table keeps the conversations one table
// would have kept: the first met, by frame and by order within a frame (the
// limit falls inside a frame that begins an IP and a UDP conversation: the
// IP one is kept, the UDP one is not).
func TestConversationsMergeLimit(t *testing.T) {
	var one, x, y Conversations
	addr := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}) }
	srv := netip.MustParseAddr("192.0.2.1")
	for i := range MaxConversations + 5 {
		p := Packet{Src: addr(i), Dst: srv, Frame: uint64(i + 1), TimeNS: int64(i), WireLen: 10}
		if i == MaxConversations-1 {
			p.Proto, p.HasPorts, p.SrcPort, p.DstPort = UDP, true, 9, 9
		}
		if i == MaxConversations+3 {
			p.Src = addr(7) // a kept conversation still counts
		}
		sh := &x
		if i%2 == 1 {
			sh = &y
		}
		one.Count(&p)
		sh.Count(&p)
	}
	x.Merge(&y)
	if len(x.m) != MaxConversations {
		t.Fatalf("merged %d conversations, want the limit %d", len(x.m), MaxConversations)
	}
	if n := len(x.Rows(UDP)); n != 0 {
		t.Errorf("%d UDP rows: met after the limit, one table did not count it", n)
	}
	for _, kind := range []uint8{IP, UDP} {
		if got, want := x.Rows(kind), one.Rows(kind); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("kind %d: merged rows differ from one table's (%d vs %d rows)", kind, len(got), len(want))
		}
	}
}

// Response times merge: counts, aborts and totals add, minimum and maximum
// meet, a name set by either share is kept, and past MaxSRT the types met
// first stay.
func TestSRTMerge(t *testing.T) {
	var x, y SRT[int]
	tm, _ := x.Add(1, 30, 5)
	tm.Name, tm.Aborts = "one", 1
	x.Add(1, 50, 9)
	tm, _ = y.Add(1, 10, 2)
	tm.Aborts = 2
	y.Add(1, 70, 3)
	y.Add(2, 4, 4)
	x.Merge(&y)
	got := x.Get(1)
	if got.Name != "one" || got.Count != 4 || got.Aborts != 3 || got.MinNS != 10 || got.MaxNS != 70 ||
		got.TotalNS != 160 || got.AvgNS() != 40 || got.first != (Order{2, 0}) {
		t.Errorf("merged %+v", got)
	}
	if got := x.Get(2); got == nil || got.Count != 1 || got.MinNS != 4 {
		t.Errorf("type only the other share saw: %+v", got)
	}

	var one, p, q SRT[int]
	for i := range MaxSRT + 10 {
		sh := &p
		if i%3 == 0 {
			sh = &q
		}
		one.Add(i, 1, uint64(i+1))
		sh.Add(i, 1, uint64(i+1))
	}
	p.Merge(&q)
	if p.Len() != MaxSRT {
		t.Fatalf("merged %d types, want %d", p.Len(), MaxSRT)
	}
	for _, k := range one.Keys() {
		if p.Get(k) == nil {
			t.Fatalf("type %d dropped; one table kept it", k)
		}
	}
}

// BenchmarkConversationsMerge merges two tables that together exceed
// MaxConversations (the trimming path): the cost per conversation must not
// grow with the table (go test -bench ConversationsMerge ./flows/).
func BenchmarkConversationsMerge(b *testing.B) {
	srv := netip.MustParseAddr("192.0.2.1")
	fill := func(c *Conversations, from, n int) {
		for i := from; i < from+n; i++ {
			c.Count(&Packet{Src: netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), Dst: srv,
				Frame: uint64(i + 1), WireLen: 60})
		}
	}
	var y Conversations
	fill(&y, MaxConversations/2, MaxConversations)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		var x Conversations
		fill(&x, 0, MaxConversations/2)
		b.StartTimer()
		x.Merge(&y)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(MaxConversations*3/2), "ns/conv")
}
