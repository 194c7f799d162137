package dissect

import (
	"encoding/binary"
	"testing"
)

// rawUDP4 is a raw IPv4 (link type 228) UDP datagram from 192.0.2.1:sport
// to 192.0.2.dst:9 with 4 octets of payload and no checksums.
func rawUDP4(sport uint16, dst byte) []byte {
	b := make([]byte, 20+8+4)
	b[0], b[8], b[9] = 0x45, 64, 17
	binary.BigEndian.PutUint16(b[2:], uint16(len(b)))
	copy(b[12:], []byte{192, 0, 2, 1, 192, 0, 2, dst})
	binary.BigEndian.PutUint16(b[20:], sport)
	binary.BigEndian.PutUint16(b[22:], 9)
	binary.BigEndian.PutUint16(b[24:], 12)
	return b
}

// TestSparseUDPStream: a sparse tree that keeps neither udp.stream nor
// findings numbers no conversations (udpTree skips the map) yet counts
// the node as the whole tree does; one that keeps udp.stream numbers them
// as tshark does.
func TestSparseUDPStream(t *testing.T) {
	frames := [][]byte{rawUDP4(1000, 2), rawUDP4(1001, 2), rawUDP4(1000, 3), rawUDP4(1000, 2), rawUDP4(1001, 2)}
	run := func(want *FieldSet) (*Engine, []int, []uint64) {
		e := NewEngine(Options{})
		var tr Tree
		tr.SetWant(want)
		var counts []int
		var streams []uint64
		for i, d := range frames {
			f := e.Decode(Packet{Num: uint64(i + 1), LinkType: LinkTypeIPv4, Data: d})
			e.BuildTree(&tr, f)
			counts = append(counts, tr.count)
			for _, n := range tr.Nodes {
				if n.F == fUDPStream {
					streams = append(streams, n.U)
				}
			}
		}
		return e, counts, streams
	}
	_, whole, _ := run(nil)
	ports := &FieldSet{}
	ports.Add(fUDPSrcPort)
	e, counts, _ := run(ports)
	if len(e.udpStreams.idx) != 0 || e.udpStreams.next != 0 {
		t.Errorf("a tree without udp.stream numbered %d conversations", e.udpStreams.next)
	}
	for i := range whole {
		if counts[i] != whole[i] {
			t.Errorf("frame %d: sparse tree counted %d nodes, the whole tree %d", i+1, counts[i], whole[i])
		}
	}
	st := &FieldSet{}
	st.Add(fUDPStream)
	_, _, got := run(st)
	want := []uint64{0, 1, 2, 0, 1}
	if len(got) != len(want) {
		t.Fatalf("udp.stream %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("udp.stream %v, want %v", got, want)
		}
	}
	ex := &FieldSet{}
	ex.AddExpert()
	if e, _, _ := run(ex); e.udpStreams.next != 3 {
		t.Errorf("a tree keeping findings numbered %d conversations, want 3 (the table-full note is a finding)", e.udpStreams.next)
	}
}
