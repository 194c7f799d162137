package rx

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// TestConnCacheDroppedEntry: a connection pushed out of the full table
// leaves its connCache slot pointing at an entry the table then reuses for
// another connection. The next packet of the first connection must start
// a new connection, not take the other one's state (its service ID: a wrong
// hit says "service ID changed"); so must every other connection.
func TestConnCacheDroppedEntry(t *testing.T) {
	const epoch = 0x5f3a1b2c
	client := netip.AddrPortFrom(netip.AddrFrom4(testpkt.Client), 40000)
	server := netip.AddrPortFrom(netip.AddrFrom4(testpkt.Server), 7000)
	slotOf := func(cid uint32) int {
		return connSlot(&connKey{epoch: epoch, cid: cid, client: client, server: server})
	}
	eng := dissect.NewEngine(dissect.Options{})
	num := uint64(0)
	send := func(cid uint32, service uint16) []dissect.Finding {
		num++
		h := HeaderFields{Epoch: epoch, CID: cid, CallNumber: 1, Seq: 1, Serial: 1, Type: TypeData,
			Flags: FlagClientInitiated | FlagLastPacket, ServiceID: service}
		data := testpkt.UDP4(nil, testpkt.Client, testpkt.Server, 40000, 7000, append(h.Encode(nil), 0, 0, 0, 1))
		f := eng.Decode(dissect.Packet{Num: num, TimeNS: int64(num), LinkType: dissect.LinkTypeIPv4, Data: data})
		return f.Findings
	}
	check := func(fs []dissect.Finding) {
		t.Helper()
		for _, fd := range fs {
			if strings.Contains(fd.Msg, "service ID changed") {
				t.Fatalf("frame %d took another connection's state: %s", num, fd.Msg)
			}
		}
	}
	const a = 4
	check(send(a, 1))
	others := 0
	for cid := uint32(8); others < maxConns+2; cid += 4 { // A goes, then its entry is reused
		if slotOf(cid) == slotOf(a) {
			continue
		}
		check(send(cid, uint16(cid>>2))) // a service ID of its own
		others++
	}
	check(send(a, 1))
}
