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
		return connSet(&connKey{epoch: epoch, cid: cid, client: client, server: server})
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

// connKey.same and connKey.is are ==: keys differing in any one field (a port, an address
// family, a zone) are told apart, equal ones are not.
func TestConnKeySame(t *testing.T) {
	c4 := netip.MustParseAddrPort("198.51.100.1:40000")
	s4 := netip.MustParseAddrPort("198.51.100.2:7000")
	base := connKey{epoch: 1, cid: 4, client: c4, server: s4}
	keys := []connKey{base, {},
		{epoch: 2, cid: 4, client: c4, server: s4},
		{epoch: 1, cid: 8, client: c4, server: s4},
		{epoch: 1, cid: 4, client: netip.AddrPortFrom(c4.Addr(), 40001), server: s4},
		{epoch: 1, cid: 4, client: c4, server: netip.MustParseAddrPort("198.51.100.3:7000")},
		{epoch: 1, cid: 4, client: netip.AddrPortFrom(netip.AddrFrom16(c4.Addr().As16()), 40000), server: s4}, // v4-mapped v6
		{epoch: 1, cid: 4, client: netip.MustParseAddrPort("[fe80::1%eth0]:40000"), server: s4},
		{epoch: 1, cid: 4, client: netip.MustParseAddrPort("[fe80::1%eth1]:40000"), server: s4},
		{epoch: 1, cid: 4, client: s4, server: c4},
	}
	for i := range keys {
		for j := range keys {
			if got, want := keys[i].same(&keys[j]), keys[i] == keys[j]; got != want {
				t.Errorf("keys %d and %d: same %v, == %v", i, j, got, want)
			}
			o := &keys[j]
			if got, want := keys[i].is(o.epoch, o.cid, o.client.Addr(), o.client.Port(), o.server.Addr(), o.server.Port()), keys[i] == keys[j]; got != want {
				t.Errorf("keys %d and %d: is %v, == %v", i, j, got, want)
			}
		}
	}
}

// Two connections whose keys fall in the same connCache set, interleaved
// packet by packet, both stay cached: each packet finds its entry in the set
// (a single slot per hash would make every packet of one of them a map
// lookup).
func TestConnCacheTwoWays(t *testing.T) {
	const epoch = 0x5f3a1b2c
	client := netip.AddrPortFrom(netip.AddrFrom4(testpkt.Client), 40000)
	server := netip.AddrPortFrom(netip.AddrFrom4(testpkt.Server), 7000)
	key := func(cid uint32) connKey { return connKey{epoch: epoch, cid: cid, client: client, server: server} }
	a, b := uint32(4), uint32(8)
	for ka := key(a); ; b += 4 {
		if kb := key(b); connSet(&kb) == connSet(&ka) {
			break
		}
	}
	eng := dissect.NewEngine(dissect.Options{})
	d := eng.Instance("rx").(*State)
	for num := uint64(1); num <= 6; num++ {
		cid := a
		if num%2 == 0 {
			cid = b
		}
		h := HeaderFields{Epoch: epoch, CID: cid, CallNumber: uint32(num), Seq: 1, Serial: 1, Type: TypeData,
			Flags: FlagClientInitiated | FlagLastPacket, ServiceID: 1}
		data := testpkt.UDP4(nil, testpkt.Client, testpkt.Server, 40000, 7000, append(h.Encode(nil), 0, 0, 0, 1))
		eng.Decode(dissect.Packet{Num: num, TimeNS: int64(num), LinkType: dissect.LinkTypeIPv4, Data: data})
		k := key(cid)
		set := d.connCache[connSet(&k):]
		if set[0] == nil || set[0].Key() != k {
			t.Fatalf("frame %d: its connection is not the newest of its cache set", num)
		}
		if num > 1 {
			other := key(a + b - cid)
			if set[1] == nil || set[1].Key() != other {
				t.Fatalf("frame %d: the other connection of the set left the cache", num)
			}
		}
	}
}

// callKey packs conn.id, channel and call number without losing any: keys
// of tuples that differ in one part differ, and each part reads back.
func TestCallKey(t *testing.T) {
	type tuple struct {
		conn      uint64
		ch, callN uint32
	}
	tuples := []tuple{{1, 0, 1}, {1, 1, 1}, {1, 3, 1}, {2, 0, 1}, {1, 0, 2}, {maxConnID, 3, 0xffffffff}, {maxConnID - 1, 3, 0xffffffff}, {1, 0, 0xffffffff}}
	seen := map[callKey]tuple{}
	for _, tu := range tuples {
		k := makeCallKey(tu.conn, tu.ch, tu.callN)
		if k.channel() != tu.ch || k.call() != tu.callN || uint64(k>>34) != tu.conn {
			t.Errorf("%+v: key %#x reads back conn %d channel %d call %d", tu, uint64(k), uint64(k>>34), k.channel(), k.call())
		}
		if o, dup := seen[k]; dup {
			t.Errorf("%+v and %+v share key %#x", tu, o, uint64(k))
		}
		seen[k] = tu
	}
}

// TestConnIDsStartOver: once maxConnID connections were seen, a new one
// starts the connection and call state over (with a note), so that no call
// of an old connection is taken for one of a new connection with its id: a
// call in progress is forgotten, its next packet starts it anew.
func TestConnIDsStartOver(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	d := eng.Instance("rx").(*State)
	num := uint64(0)
	send := func(port uint16, seq uint32, fl uint8) []dissect.Finding {
		num++
		h := HeaderFields{Epoch: 0x5f3a1b2c, CID: 4, CallNumber: 1, Seq: seq, Serial: seq, Type: TypeData,
			Flags: FlagClientInitiated | fl, ServiceID: 1}
		data := testpkt.UDP4(nil, testpkt.Client, testpkt.Server, port, 7000, append(h.Encode(nil), 0, 0, 0, 1))
		return eng.Decode(dissect.Packet{Num: num, TimeNS: int64(num), LinkType: dissect.LinkTypeIPv4, Data: data}).Findings
	}
	has := func(fs []dissect.Finding, s string) bool {
		for _, f := range fs {
			if strings.Contains(f.Msg, s) {
				return true
			}
		}
		return false
	}
	if fs := send(40000, 1, 0); len(fs) != 0 { // connection A, call 1 begins
		t.Fatalf("first packet: %v", fs)
	}
	d.connSeq = maxConnID - 1
	if fs := send(40001, 1, FlagLastPacket); has(fs, "starts over") { // B takes the last id
		t.Fatalf("connection %d started over: %v", maxConnID, fs)
	}
	if fs := send(40002, 1, FlagLastPacket); !has(fs, "connections seen: connection and call state starts over") {
		t.Fatalf("no note when the ids ran out: %v", fs)
	}
	if d.connSeq != 1 || d.conns.Len() != 1 || d.calls.Len() != 1 {
		t.Fatalf("after the restart: connSeq %d, %d connections, %d calls", d.connSeq, d.conns.Len(), d.calls.Len())
	}
	if fs := send(40000, 2, FlagLastPacket); !has(fs, "sequence gap") { // A's call 1 is new again
		t.Fatalf("connection A's call kept its state across the restart: %v", fs)
	}
}
