package synth

import (
	"encoding/binary"

	"github.com/rdx-project/rdx/dissect/ddp"
	"github.com/rdx-project/rdx/dissect/mpa"
)

// The iWARP scenario: MPA Request/Reply (revision 1, markers and CRC
// asked for by both sides unless turned off), then RDMAP over DDP over MPA:
// Sends, an RDMA Write, a Read Request and its Read Responses, and the
// server's Send. Every FPDU goes in a TCP segment of its own (as iWARP
// NICs align them), DDP segments carry at most mpaMULPDU octets, and the
// markers sit every 512 octets of each direction's FPDU stream.
func mpaScenario() *Scenario {
	return &Scenario{
		Name:      "mpa",
		Desc:      "iWARP: MPA Request/Reply, Sends, RDMA Write, Read Request/Response over DDP/RDMAP (CRC32c, markers)",
		Available: true,
		Options: []Option{
			{"--messages N", "client Sends (default 2)"},
			{"--size N", "octets of each Send, of the Write and of the Read (default 1500: two DDP segments each)"},
			{"--markers=false", "negotiate no markers"},
			{"--crc=false", "negotiate no CRC (the CRC field is zero)"},
		},
		Variants: []Variant{
			{Name: "crc", Desc: "the first Send FPDU's CRC32c is wrong",
				Findings: []string{"frame 8: error iwarp_mpa: bad MPA CRC: computed 0x7fbf20b2 (on the wire as b2 20 bf 7f), FPDU carries b2 20 bf 25"}},
			{Name: "marker", Desc: "the RDMA Write's first interior marker points 4 octets too far back (CRC recomputed)",
				Findings: []string{"frame 13: error iwarp_mpa: marker at FPDU offset 460 (seq 4294966827) has FPDUPTR 464, expected 460"}},
		},
		stream: streamMPA,
	}
}

const (
	mpaClientPort = 40001
	mpaServerPort = 7174 // rping's default
	mpaMULPDU     = 1024 // DDP payload per segment
	stagWrite     = 0x1000
	stagSink      = 0x2000
	stagSource    = 0x3000
)

// streamMPA makes the frames into out as it goes, a Send at a time.
func streamMPA(o Options, out *sink) {
	nmsg, size := or(o.Messages, 2), or(o.Size, 1500)
	markers, crc := !o.NoMarkers, !o.NoCRC
	c := newTCP(mpaClientPort, mpaServerPort)
	c.out = out
	c.lossy(o)
	c.handshake()

	var flags uint8
	if markers {
		flags |= mpa.FlagM
	}
	if crc {
		flags |= mpa.FlagC
	}
	c.sendSegs(true, mpa.EncodeStartup(nil, false, flags, 1, []byte("rdx synth: MPA request")))
	c.sendSegs(false, mpa.EncodeStartup(nil, true, flags, 1, []byte("rdx synth: MPA reply")))

	// pos is each direction's FPDU stream position (markers are placed
	// from it); fpdu frames one ULPDU.
	var pos [2]uint32
	fpdu := func(client bool, ulpdu []byte) []byte {
		me := side(client)
		b := mpa.EncodeFPDU(nil, ulpdu, pos[me], markers, crc)
		pos[me] += uint32(len(b))
		return b
	}
	// split cuts a message into DDP payloads of at most mpaMULPDU octets.
	split := func(m []byte) [][]byte {
		var out [][]byte
		for len(m) > mpaMULPDU {
			out = append(out, m[:mpaMULPDU])
			m = m[mpaMULPDU:]
		}
		return append(out, m)
	}
	untagged := func(client bool, op uint8, qn, msn uint32, m []byte) [][]byte {
		var segs [][]byte
		mo := 0
		parts := split(m)
		for i, p := range parts {
			segs = append(segs, fpdu(client, ddp.EncodeUntagged(nil, i == len(parts)-1, op, 0, qn, msn, uint32(mo), p)))
			mo += len(p)
		}
		return segs
	}
	tagged := func(client bool, op uint8, stag uint32, to uint64, m []byte) [][]byte {
		var segs [][]byte
		parts := split(m)
		for i, p := range parts {
			segs = append(segs, fpdu(client, ddp.EncodeTagged(nil, i == len(parts)-1, op, stag, to, p)))
			to += uint64(len(p))
		}
		return segs
	}

	// Sends from the client, queue 0, MSN from 1.
	// Each Send's segments go out as it is made (the scenario streams).
	for i := range nmsg {
		if out.err != nil {
			return
		}
		sends := untagged(true, ddp.OpSend, 0, uint32(i+1), pattern(size, i))
		if i == 0 && o.Corrupt == "crc" {
			sends[0][len(sends[0])-1] ^= 0x5a
		}
		for _, sg := range sends {
			c.seg(true, tcpACK|tcpPSH, sg)
		}
	}
	c.ack(false)

	// An RDMA Write into the server's buffer.
	startW := pos[0]
	write := tagged(true, ddp.OpWrite, stagWrite, 0x10000, pattern(size, 50))
	if o.Corrupt == "marker" && markers {
		corruptMarker(write[0], startW, crc)
	}
	c.sendSegs(true, write...)

	// A Read Request (queue 1) and the server's Read Responses into the
	// client's sink buffer.
	rr := ddp.EncodeReadRequest(nil, stagSink, 0x20000, uint32(size), stagSource, 0x30000)
	c.sendSegs(true, untagged(true, ddp.OpReadRequest, 1, 1, rr)...)
	c.sendSegs(false, tagged(false, ddp.OpReadResponse, stagSink, 0x20000, pattern(size, 60))...)

	// The server's own Send.
	c.sendSegs(false, untagged(false, ddp.OpSend, 0, 1, pattern(64, 70))...)
	c.close()
	c.done()
}

// corruptMarker moves the first interior marker's FPDUPTR of an FPDU
// whose first octet is at stream position rel, then recomputes the CRC
// (which covers the markers), so only the marker is wrong.
func corruptMarker(fp []byte, rel uint32, crc bool) {
	ulen := int(binary.BigEndian.Uint16(fp))
	if rel%mpa.MarkerInterval == 0 {
		ulen = int(binary.BigEndian.Uint16(fp[mpa.MarkerLen:]))
	}
	_, marks := mpa.Layout(rel, mpa.LogicalLen(ulen), nil)
	for _, m := range marks {
		if m > 0 {
			p := binary.BigEndian.Uint16(fp[m+2:])
			binary.BigEndian.PutUint16(fp[m+2:], p+4)
			break
		}
	}
	if crc {
		binary.LittleEndian.PutUint32(fp[len(fp)-4:], mpa.CRC(fp[:len(fp)-4]))
	}
}
