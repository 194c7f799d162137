package dissect

import (
	"math/rand"
	"reflect"
	"testing"
)

// TestBasePlanSameAsWalk: for fast-path UDP frames of random header bytes
// and every set of kept fields tried (each field of eth, ip and udp alone,
// the addresses and protocols together, none of them), a sparse tree that
// adds the headers by its plan (Tree.addUDP4) holds the nodes, count,
// depth and last-added state of one that walks them (with the frame
// subtree skipped in the same step, addBaseUDP4, when no frame field is
// kept: a wrong count there fails it too). The plan is used for
// the address and protocol sets, and refused for numbers.
func TestBasePlanSameAsWalk(t *testing.T) {
	e := NewEngine(Options{})
	rng := rand.New(rand.NewSource(1))
	var frames [][]byte
	for range 50 {
		d := make([]byte, 42+rng.Intn(20))
		rng.Read(d)
		d[12], d[13], d[14], d[23] = 0x08, 0x00, 0x45, IPProtoUDP
		d[16], d[17] = 0, byte(len(d)-14) // IPv4 total length
		d[20], d[21] = 0, 0               // not a fragment
		d[38], d[39] = 0, byte(len(d)-34) // UDP length
		frames = append(frames, d)
	}
	var sets [][]*Field
	for _, f := range Fields() {
		if f.Proto == "eth" || f.Proto == "ip" || f.Proto == "udp" {
			sets = append(sets, []*Field{f})
		}
	}
	addrs := []*Field{fIPSrc, fIPDst, fIPAddr, fEthSrc, fEthDst, fEthAddr, PIP.Field, PUDP.Field, pEth.Field, FFrameNumber}
	sets = append(sets, addrs, []*Field{FFrameLen}, []*Field{fIPSrc, fUDPSrcPort})
	planned := 0
	for _, fs := range sets {
		var set FieldSet
		for _, f := range fs {
			set.Add(f)
		}
		var plan, walk Tree
		plan.SetWant(&set)
		walk.SetWant(&set)
		walk.udp4.ok = false
		for i, d := range frames {
			f := e.Decode(Packet{Num: uint64(i + 1), CapLen: len(d), WireLen: len(d), LinkType: LinkTypeEthernet, Data: d})
			if !e.lazy || f.Net.IPProto != IPProtoUDP {
				t.Fatalf("frame %d: not a fast-path UDP frame", i+1)
			}
			e.BuildTree(&plan, f)
			e.BuildTree(&walk, f)
			if !reflect.DeepEqual(plan.Nodes, walk.Nodes) || plan.count != walk.count || plan.depth != walk.depth ||
				plan.lastAt != walk.lastAt || plan.Last() != walk.Last() {
				t.Fatalf("-e %s, frame %d: planned tree %+v (count %d), walked %+v (count %d)",
					fs[0].Abbrev, i+1, plan.Nodes, plan.count, walk.Nodes, walk.count)
			}
		}
		if plan.udp4.ok {
			planned++
		}
	}
	for _, c := range []struct {
		fs []*Field
		ok bool
	}{{addrs, true}, {[]*Field{FFrameLen}, true}, {[]*Field{fIPSrc}, true}, {[]*Field{fUDPSrcPort}, false},
		{[]*Field{fIPTTL}, false}, {[]*Field{fUDPStream}, false}, {[]*Field{fIPSrcHost}, false}} {
		var set FieldSet
		for _, f := range c.fs {
			set.Add(f)
		}
		var tr Tree
		tr.SetWant(&set)
		if tr.udp4.ok != c.ok {
			t.Errorf("plan for %s: ok %v, want %v", c.fs[0].Abbrev, tr.udp4.ok, c.ok)
		}
	}
	var whole Tree
	whole.SetWant(nil)
	if whole.udp4.ok || planned < 8 {
		t.Errorf("whole tree planned %v; %d of %d sets planned", whole.udp4.ok, planned, len(sets))
	}
}
