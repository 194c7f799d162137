package ib

import (
	"encoding/binary"
	"net/netip"
)

// cacheBits sizes the two-way stream cache in front of the streams map:
// 512 sets of two, a fixed 8 KiB, so that a few hundred interleaved QP
// directions (64 clients, each with requests, replies and READ responses:
// 256 keys) all stay cached instead of hashing a 56-octet key per packet
// (with one way, a quarter of them would share a slot and miss each
// time). It never grows; the map stays the source of truth.
const cacheBits = 9

// KeyHash is a cheap hash of a PSN space's key (addresses, QP, direction):
// a multiplicative mix whose top bits pick a set of a cache
// (x >> (64 - bits)). Sequential client addresses and one QP number on
// every client (as NFS/RDMA servers use) spread over distinct slots.
func KeyHash(src, dst netip.Addr, qp uint32, resp bool) uint64 {
	s, d := src.As16(), dst.As16()
	x := binary.LittleEndian.Uint64(s[8:]) ^ binary.LittleEndian.Uint64(s[:8])*0xff51afd7ed558ccd
	y := binary.LittleEndian.Uint64(d[8:]) ^ binary.LittleEndian.Uint64(d[:8])*0xc4ceb9fe1a85ec53
	z := uint64(qp) << 1
	if resp {
		z |= 1
	}
	return (x ^ (y<<32 | y>>32) ^ z) * 0x9e3779b97f4a7c15
}

func slotOf(src, dst netip.Addr, qp uint32, resp bool) uint32 {
	return uint32(KeyHash(src, dst, qp, resp) >> (64 - cacheBits))
}

// recentOf is a stream's slot in recent: the QP and the direction tell
// apart the few streams a connection alternates between.
func recentOf(qp uint32, resp bool) int {
	h := qp << 1
	if resp {
		h |= 1
	}
	return int(h & 7)
}
