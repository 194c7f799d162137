package render

import (
	"net/netip"
	"testing"
	"unsafe"

	"github.com/rdx-project/rdx/dissect"
)

// TestAddrCacheManyClients: 64 RoCE clients talking to one server, both
// directions interleaved (128 pairs, genroce -flows 64), are each written
// once: after the first round every pair is a hit. A direct-mapped cache
// of 256 slots rewrote 28 of them each round here (on the 64-client
// capture, one frame's pair in nine).
func TestAddrCacheManyClients(t *testing.T) {
	var c SummaryCache
	srv := netip.MustParseAddr("192.0.2.1")
	var n dissect.Net
	n.HasIP, n.HasL4 = true, true
	buf := make([]byte, 0, 256)
	for round := 0; round < 3; round++ {
		for i := 1; i <= 64; i++ {
			cl := netip.AddrFrom4([4]byte{198, 18, 0, byte(i)})
			for dir := 0; dir < 2; dir++ {
				n.Src, n.SrcPort, n.Dst, n.DstPort = cl, 49169, srv, 4791
				if dir == 1 {
					n.Src, n.SrcPort, n.Dst, n.DstPort = srv, 4791, cl, 49169
				}
				buf = c.appendEndpoints(buf[:0], &n)
				if want := appendEndpointPair(nil, &n); string(buf) != string(want) {
					t.Fatalf("pair %v → %v: %q, want %q", n.Src, n.Dst, buf, want)
				}
			}
		}
		if c.misses != 128 {
			t.Fatalf("round %d: %d pairs written, want 128 (each once)", round, c.misses)
		}
	}
}

// TestProtoLenCacheRoCE: the nine (Protocol, Length) pairs of a RoCE NFS
// capture (genroce), and Rx's two, interleaved, are each written once, and
// as appendProto and appendWireLen write them.
func TestProtoLenCacheRoCE(t *testing.T) {
	type pl struct {
		proto string
		wire  int
	}
	pairs := []pl{{"infiniband", 62}, {"infiniband", 1082}, {"infiniband", 74}, {"infiniband", 1086},
		{"rpcordma", 206}, {"nfs", 198}, {"nfs", 162}, {"nfs", 138}, {"nfs", 1086}, {"rx", 134}, {"afs", 134}}
	var c SummaryCache
	var f dissect.Frame
	f.Net.HasIP, f.Net.HasL4 = true, true
	buf := make([]byte, 0, 256)
	for round := 0; round < 3; round++ {
		for _, p := range pairs {
			f.Proto, f.WireLen = p.proto, p.wire
			buf = c.appendProtoLen(buf[:0], &f)
			var u SummaryCache
			want := u.appendWireLen(append(u.appendProto(nil, &f), ' '), f.WireLen)
			if string(buf) != string(want) {
				t.Fatalf("%v: %q, want %q", p, buf, want)
			}
		}
		if c.colMisses != len(pairs) {
			t.Fatalf("round %d: %d pairs written, want %d (each once)", round, c.colMisses, len(pairs))
		}
	}
}

var sinkCache *SummaryCache

// TestAddrSlotsAligned: NewSummaryCache's address slots each start a
// cache line, and so do its (Protocol, Length) slots, so a hit reads one
// line, not two (its keys and its text).
func TestAddrSlotsAligned(t *testing.T) {
	var c SummaryCache
	if unsafe.Sizeof(addrSlot{}) != 64 || unsafe.Offsetof(c.slots) != 0 {
		t.Fatalf("addrSlot is %d octets at offset %d, want 64 at 0", unsafe.Sizeof(addrSlot{}), unsafe.Offsetof(c.slots))
	}
	if unsafe.Sizeof(colSlot{}) != 64 || unsafe.Offsetof(c.cols)%64 != 0 {
		t.Fatalf("colSlot is %d octets at offset %d, want 64 on a line", unsafe.Sizeof(colSlot{}), unsafe.Offsetof(c.cols))
	}
	for range 8 {
		sinkCache = NewSummaryCache() // on the heap, as a printer's
		if p := uintptr(unsafe.Pointer(sinkCache)); p%64 != 0 {
			t.Fatalf("NewSummaryCache at %#x: not on a 64-octet line", p)
		}
	}
}
