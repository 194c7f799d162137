package render_test

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
)

// TestSummaryAddrCacheSame: the address cache changes no summary line, for
// IPv4 and IPv6 endpoints, with and without ports, the longest IPv4 column,
// and more endpoints than the cache has slots (so slots are replaced).
func TestSummaryAddrCacheSame(t *testing.T) {
	var c render.SummaryCache
	rnd := rand.New(rand.NewPCG(5, 6))
	addrs := []netip.Addr{netip.MustParseAddr("255.255.255.255"), netip.MustParseAddr("0.0.0.0"),
		netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("192.0.2.1")}
	for i := 0; i < 2000; i++ {
		addrs = append(addrs, netip.AddrFrom4([4]byte{198, 51, 100, byte(rnd.IntN(256))}))
	}
	var f dissect.Frame
	for i := 0; i < 20000; i++ {
		f.Num = uint64(i + 1)
		f.Proto = "udp"
		f.WireLen = 60
		f.Net = dissect.Net{HasIP: true, HasL4: i%3 != 0,
			Src: addrs[rnd.IntN(len(addrs))], Dst: addrs[rnd.IntN(min(len(addrs), 8))],
			SrcPort: uint16(rnd.IntN(3)) * 32767, DstPort: 7000}
		want := string(render.Summary(nil, &f, 0, nil))
		if got := string(render.SummaryClock(nil, &f, &render.Clock{}, nil, &c)); got != want {
			t.Fatalf("frame %d: cached %q, want %q", i, got, want)
		}
	}
}

// TestSummaryCacheColumns: the cached No., Length and Protocol columns are
// what Summary writes without a cache, as numbers count up (across the
// column's width and the 8 digits the cache holds), jump, and lengths and
// protocols repeat and change (InfiniBand's column depends on more than
// the protocol).
func TestSummaryCacheColumns(t *testing.T) {
	var c render.SummaryCache
	rnd := rand.New(rand.NewPCG(7, 8))
	starts := []uint64{1, 990, 999_990, 9_999_990, 99_999_990, 1e12}
	lens := []int{60, 60, 60, 134, 0, 9, 99999, 100000, 99_999_999, 1e8, -1}
	protos := []string{"udp", "udp", "rx", "afs", "infiniband", "ibcm", "iwarp_ddp_rdmap", "averyverylongprotocolname", ""}
	var f dissect.Frame
	num := uint64(0)
	for i := 0; i < 50000; i++ {
		num++
		if rnd.IntN(10) == 0 {
			num = starts[rnd.IntN(len(starts))] + uint64(rnd.IntN(20))
		}
		f.Num = num
		f.WireLen = lens[rnd.IntN(len(lens))]
		f.Proto = protos[rnd.IntN(len(protos))]
		f.Net = dissect.Net{HasIP: true, HasL4: rnd.IntN(2) == 0, Src: netip.MustParseAddr("192.0.2.1"), Dst: netip.MustParseAddr("192.0.2.2")}
		if rnd.IntN(2) == 0 {
			f.Net.EtherType = 0x8915
		}
		want := string(render.Summary(nil, &f, 0, nil))
		if got := string(render.SummaryClock(nil, &f, &render.Clock{}, nil, &c)); got != want {
			t.Fatalf("frame %d: cached %q, want %q", i, got, want)
		}
	}
}

// TestSummaryCacheNoAlloc: a summary line allocates nothing, also when
// the cache misses (a number that does not count up, a new length,
// protocol or endpoint, a number wider than the cache holds): the digit
// writer's scratch must stay on the stack.
func TestSummaryCacheNoAlloc(t *testing.T) {
	var c render.SummaryCache
	var f dissect.Frame
	f.Net = dissect.Net{HasIP: true, HasL4: true, Src: netip.MustParseAddr("192.0.2.1"), Dst: netip.MustParseAddr("192.0.2.2")}
	protos := []string{"udp", "rx", "infiniband"}
	buf := make([]byte, 0, 4096)
	clk := &render.Clock{Digits: 9}
	i := 0
	if n := testing.AllocsPerRun(1000, func() {
		i++
		f.Num += uint64(i % 3)
		if i%100 == 0 {
			f.Num += 1e8
		}
		f.TimeNS += 1_234_567_891
		f.WireLen = 60 + i%4
		f.Proto = protos[i%len(protos)]
		f.Net.SrcPort = uint16(i)
		buf = render.SummaryClock(buf[:0], &f, clk, nil, &c)
	}); n != 0 {
		t.Errorf("%v allocations a summary line", n)
	}
}

// TestSummaryColumnsOneCall: the columns SummaryClock writes in one call
// for an unstyled IP frame (appendColumns) are those of the general path
// (an empty Style takes it) and of Summary without a cache, as times go
// forward in and across the cached Time prefix, jump back, go negative and
// past the prefix's range, with 6 and 9 decimals, and numbers, endpoints
// and (Protocol, Length) pairs hit, miss and count over a digit.
func TestSummaryColumnsOneCall(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 10))
	addrs := []netip.Addr{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("198.51.100.7"),
		netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("255.255.255.255")}
	protos := []string{"udp", "infiniband", "rpcordma", "nfs", "averyverylongprotocolname"}
	for _, digits := range []int{0, 9, 4, 3} {
		var fast, slow render.SummaryCache
		cf := render.Clock{Digits: digits, First: 1e9}
		cs := cf
		var f dissect.Frame
		ns := int64(1e9)
		for i := 0; i < 30000; i++ {
			f.Num++
			switch rnd.IntN(50) {
			case 0:
				f.Num = 999_998
			case 1:
				f.Num = uint64(rnd.IntN(1e9))
			case 2:
				ns = rnd.Int64N(1e9) // before the first frame
			case 3:
				ns = 1e17 + rnd.Int64N(1e12)
			case 4:
				ns += 9_999 // across the prefix
			}
			ns += rnd.Int64N(1500)
			f.TimeNS = ns
			f.WireLen = 60 + rnd.IntN(4)*1024
			f.Proto = protos[rnd.IntN(len(protos))]
			f.Net = dissect.Net{HasIP: true, HasL4: rnd.IntN(8) != 0, Src: addrs[rnd.IntN(len(addrs))],
				Dst: addrs[rnd.IntN(2)], SrcPort: uint16(rnd.IntN(3)), DstPort: 4791}
			got := string(render.SummaryClock(nil, &f, &cf, nil, &fast))
			want := string(render.SummaryClock(nil, &f, &cs, &render.Style{}, &slow))
			if got != want {
				t.Fatalf("digits %d frame %d: one call %q, general %q", digits, i, got, want)
			}
			if digits == 0 {
				if plain := string(render.Summary(nil, &f, 1e9, nil)); got != plain {
					t.Fatalf("frame %d: one call %q, uncached %q", i, got, plain)
				}
			}
		}
	}
}
