package main

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
)

// What rdx read -j can do with RoCEv2 NFS: a connection's state (its two
// QPs' PSN spaces, the RPC calls one QP carries and the replies the other
// does, the RDMA READs that fetch a call's chunk) spans both directions,
// so dissect.ShardKey keys every frame by its unordered IP pair and a host
// pair is one worker's. With -flows 1 (one client) every frame is on one
// worker, and -j 2 can only move reading off it; 64 clients spread over
// two workers about evenly (measured 45/55 on 500k frames).
func TestShardSpread(t *testing.T) {
	for _, c := range []struct {
		flows    int
		min, max float64 // worker 0's share of the frames
	}{{1, 0, 1}, {64, 0.35, 0.65}} {
		var buf bytes.Buffer
		n, err := WriteFlows(&buf, 20000, 1024, 4096, c.flows)
		if err != nil {
			t.Fatal(err)
		}
		r, err := capture.NewReader(&buf, "roce.pcap")
		if err != nil {
			t.Fatal(err)
		}
		var per [2]int
		keyOf := map[[2]netip.Addr]uint64{}
		var p capture.Packet
		for r.Next(&p) == nil {
			k := dissect.ShardKey(p.LinkType, p.Data)
			per[k%2]++
			// IPv4 after a 14-octet Ethernet header: source and destination
			a, b := netip.AddrFrom4([4]byte(p.Data[26:30])), netip.AddrFrom4([4]byte(p.Data[30:34]))
			if b.Less(a) {
				a, b = b, a
			}
			if k0, ok := keyOf[[2]netip.Addr{a, b}]; ok && k0 != k {
				t.Fatalf("-flows %d: host pair %v has keys %#x and %#x", c.flows, [2]netip.Addr{a, b}, k0, k)
			}
			keyOf[[2]netip.Addr{a, b}] = k
		}
		if per[0]+per[1] != n || len(keyOf) != c.flows {
			t.Fatalf("-flows %d: %d frames of %d host pairs, want %d of %d", c.flows, per[0]+per[1], len(keyOf), n, c.flows)
		}
		share := float64(per[0]) / float64(n)
		if c.flows == 1 {
			if per[0] != 0 && per[1] != 0 {
				t.Errorf("-flows 1: frames on both workers %v", per)
			}
			continue
		}
		if share < c.min || share > c.max {
			t.Errorf("-flows %d: worker 0 has %.2f of the frames (%v), want %.2f-%.2f", c.flows, share, per, c.min, c.max)
		}
		t.Logf("-flows %d: frames per worker of -j 2: %v", c.flows, per)
	}
}
