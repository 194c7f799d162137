package synth

import (
	"encoding/binary"

	"github.com/rdx-project/rdx/dissect/rds"
)

// The RDS/TCP scenario: one TCP path (client port 40000 to 16385) as Linux
// rds_tcp uses it. The client sends its congestion map (8 KiB, across six
// segments), the multipath probe (NPATHS and generation number), a ping;
// the server answers with the probe pong and the pong, then data messages
// follow: large ones across segments from the client, small ones several
// to a segment from the server. Headers carry computed checksums (Linux
// sends 0, "not computed"), so the checksum check is exercised.
func rdsScenario() *Scenario {
	return &Scenario{
		Name:      "rds-tcp",
		Desc:      "RDS over TCP (port 16385): congestion map, multipath probe, ping/pong, messages across and within segments",
		Available: true,
		Options: []Option{
			{"--messages N", "client data messages (default 4); the server answers each"},
			{"--size N", "client message payload octets (default 3000: each spans segments)"},
		},
		Variants: []Variant{
			{Name: "checksum", Alias: "crc", Desc: "the first client data message's RDS header checksum is off by one",
				Findings: []string{"frame 21: error rds: bad RDS header checksum 0xd304 (should be 0xd303)"}},
			{Name: "seq-gap", Desc: "the client skips RDS sequence number 4 (the second data message has 5)",
				Findings: []string{"frame 23: warning rds: missing RDS sequence number 4 on this path"}},
		},
		stream: streamRDS,
	}
}

const (
	rdsClientPort = 40000
	rdsSrcPort    = 4000 // RDS socket ports (the bound ports, not TCP's)
	rdsDstPort    = 4001
	rdsGen        = 0x5eed0001
)

// streamRDS makes the frames into out as it goes: a message is written to
// the stream and its full segments sent before the next is made, so 1 GB
// of messages needs about one message of memory (and, with --loss, the
// lost segments until the other side speaks).
func streamRDS(o Options, out *sink) {
	nmsg, size := or(o.Messages, 4), or(o.Size, 3000)
	c := newTCP(rdsClientPort, rds.Port)
	c.out = out
	c.lossy(o)
	c.handshake()
	var seq [2]uint64 // last sequence number sent per side
	msg := func(client bool, h rds.HeaderFields, payload []byte) []byte {
		me := side(client)
		if h.Flags != rds.FlagCongBitmap { // congestion maps are unsequenced
			seq[me]++
			h.Seq = seq[me]
		}
		h.Len, h.SetCsum = uint32(len(payload)), true
		return append(h.Encode(nil), payload...)
	}

	// The congestion map: ports 4000 and 4001 congested (bit per port,
	// little-endian 64-bit words).
	cong := make([]byte, rds.CongMapLen)
	rds.CongSet(cong, rdsSrcPort, true)
	rds.CongSet(cong, rdsDstPort, true)
	c.send(true, msg(true, rds.HeaderFields{Flags: rds.FlagCongBitmap}, cong))

	// The probe: from RDS port 1 to 0, NPATHS 8 and the generation number;
	// the pong comes back from 0 to 1 with the server's.
	c.send(true, msg(true, rds.HeaderFields{Sport: rds.ProbePort, Dport: 0, Ext: rds.ProbeExt(rds.MaxPaths, rdsGen)}, nil))
	c.send(false, msg(false, rds.HeaderFields{Sport: 0, Dport: rds.ProbePort, Ext: rds.ProbeExt(rds.MaxPaths, rdsGen+1)}, nil))

	// Ping (to port 0) and pong (from port 0).
	c.send(true, msg(true, rds.HeaderFields{Sport: rdsSrcPort, Dport: 0}, nil))
	c.send(false, msg(false, rds.HeaderFields{Sport: 0, Dport: rdsSrcPort}, nil))

	// Data: the client's messages span segments (they go out back to back,
	// so segment boundaries fall anywhere in them); the server answers all
	// of them at once, several small messages to a segment.
	for i := range nmsg {
		if out.err != nil {
			return
		}
		h := rds.HeaderFields{Sport: rdsSrcPort, Dport: rdsDstPort, Flags: rds.FlagAckRequired}
		if i == 1 && o.Corrupt == "seq-gap" {
			seq[0]++
		}
		m := msg(true, h, pattern(size, i))
		if i == 0 && o.Corrupt == "checksum" {
			binary.BigEndian.PutUint16(m[30:], binary.BigEndian.Uint16(m[30:])+1)
		}
		c.write(true, m)
	}
	c.endWrite(true)
	for i := range nmsg {
		if out.err != nil {
			return
		}
		c.write(false, msg(false, rds.HeaderFields{Sport: rdsDstPort, Dport: rdsSrcPort}, pattern(64, 100+i)))
	}
	c.endWrite(false)
	c.close()
	c.done()
}

// pattern returns n octets that differ per message (i), so a misplaced
// octet shows.
func pattern(n, i int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(j*7 + i*13 + 1)
	}
	return b
}
