package synth

import (
	"math/rand/v2"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect/rdp"
)

// The RDP scenario (RFC 908 with the RFC 1151 version-2 header, IP
// protocol 27): SYN, SYN-ACK, ACK; the client sends data segments within
// the server's window (max outstanding 4); segments lost on the way are
// absent from the capture (it is taken at the server), the server EACKs
// what came out of sequence, the client retransmits the rest; the server
// answers, and the client closes with RST. Checksums are sealed with the
// IP pseudo-header.
func rdpScenario() *Scenario {
	return &Scenario{
		Name:      "rdp",
		Desc:      "RDP (IP 27, v2): handshake, data with lost segments, EACKs, retransmissions, RST close",
		Available: true,
		Options: []Option{
			{"--messages N", "client data segments (default 8)"},
			{"--size N", "octets per segment (default 512; the max segment is 1024)"},
			{"--loss P --seed S", "lose each first transmission with probability P (default: segments 2 and 3 are lost)"},
		},
		Variants: []Variant{
			{Name: "checksum", Alias: "crc", Desc: "the first data segment's checksum is wrong",
				Findings: []string{"frame 4: error rdp: bad checksum: computed 0xb0ce, wire 0xb197"}},
			{Name: "window", Desc: "the client's first burst is one segment beyond the server's max outstanding",
				Findings: []string{"frame 6: warning rdp: segment 105 outside the receive window (last ack 100 + max outstanding 4)"}},
		},
		build: buildRDP,
	}
}

const (
	rdpClientPort = 1025
	rdpServerPort = 5001
	rdpMaxOut     = 4
	rdpMaxSeg     = 1024
	rdpClientISS  = 100
	rdpServerISS  = 7000
)

func buildRDP(o Options) []capture.Packet {
	nmsg, size := uint32(or(o.Messages, 8)), or(o.Size, 512)
	var frames [][]byte
	var id [2]uint16
	seg := func(client bool, h rdp.HeaderFields, data []byte) []byte {
		h.Version, h.SrcPort, h.DstPort = 2, rdpClientPort, rdpServerPort
		src, dst := clientIP, serverIP
		if !client {
			h.SrcPort, h.DstPort = h.DstPort, h.SrcPort
			src, dst = dst, src
		}
		b := h.Encode(nil, data)
		rdp.Seal(b, src, dst)
		me := side(client)
		id[me]++
		fr := ipFrame(client, rdp.IPProto, id[me], b)
		frames = append(frames, fr)
		return fr
	}
	syn := rdp.HeaderFields{Flags: rdp.FlagSYN, Seq: rdpClientISS, MaxOutstanding: rdpMaxOut, MaxSegment: rdpMaxSeg}
	seg(true, syn, nil)
	syn.Flags, syn.Seq, syn.Ack = rdp.FlagSYN|rdp.FlagACK, rdpServerISS, rdpClientISS
	seg(false, syn, nil)
	seg(true, rdp.HeaderFields{Flags: rdp.FlagACK, Seq: rdpClientISS + 1, Ack: rdpServerISS}, nil)

	// lost decides whether a first transmission is lost: a seeded draw
	// with --loss, else the fixed default (the 2nd and 3rd segments).
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x5eed))
	lost := func(seq uint32) bool {
		if o.LossSet {
			return rng.Float64() < o.Loss
		}
		n := seq - rdpClientISS
		return n == 2 || n == 3
	}
	last := rdpClientISS + nmsg
	next, acked := uint32(rdpClientISS+1), uint32(rdpClientISS) // client's next new seq; server's cumulative ack
	got := map[uint32]bool{}                                    // segments the server has
	first := true
	for acked < last {
		// New segments while the window allows.
		win := uint32(rdpMaxOut)
		if first && o.Corrupt == "window" {
			win++
		}
		for next <= last && next <= acked+win {
			if !lost(next) {
				fr := seg(true, rdp.HeaderFields{Flags: rdp.FlagACK, Seq: next, Ack: rdpServerISS}, pattern(size, int(next)))
				if first && o.Corrupt == "checksum" {
					fr[len(fr)-1] ^= 0xff
				}
				got[next] = true
				first = false
			}
			next++
		}
		first = false
		// The server acknowledges the in-sequence prefix and EACKs the rest.
		for got[acked+1] {
			acked++
		}
		h := rdp.HeaderFields{Flags: rdp.FlagACK, Seq: rdpServerISS + 1, Ack: acked}
		for s := acked + 1; s < next; s++ {
			if got[s] {
				h.Eacks = append(h.Eacks, s)
			}
		}
		if len(h.Eacks) > 0 {
			h.Flags |= rdp.FlagEAK
		}
		seg(false, h, nil)
		// The client retransmits what was neither acknowledged nor EACKed
		// (retransmissions get through).
		for s := acked + 1; s < next; s++ {
			if !got[s] {
				seg(true, rdp.HeaderFields{Flags: rdp.FlagACK, Seq: s, Ack: rdpServerISS}, pattern(size, int(s)))
				got[s] = true
			}
		}
	}
	// The server's answer, the client's ACK and its RST.
	seg(false, rdp.HeaderFields{Flags: rdp.FlagACK, Seq: rdpServerISS + 1, Ack: last}, []byte("received all segments\n"))
	seg(true, rdp.HeaderFields{Flags: rdp.FlagACK, Seq: last + 1, Ack: rdpServerISS + 1}, nil)
	seg(true, rdp.HeaderFields{Flags: rdp.FlagRST, Seq: last + 1}, nil)
	return packets(frames)
}
