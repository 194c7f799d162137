package synth

import (
	"encoding/binary"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect/rx"
)

// The Rx scenario: one RXAFS_StoreData call (fileserver, port 7000,
// service 1). The request's data spans four Rx packets: seq 1 alone, seq
// 2-4 in one jumbogram; the server ACKs them and replies in one packet,
// which the client ACKs.
func rxScenario() *Scenario {
	return &Scenario{
		Name:      "rx",
		Desc:      "Rx call (RXAFS_StoreData): multi-packet DATA, a jumbogram, ACKs and the reply",
		Available: true,
		Variants: []Variant{
			{Name: "seq-zero", Desc: "the first DATA packet has sequence number 0 (so seq 1 is missing)",
				Findings: []string{
					"frame 1: error rx: DATA packet with sequence number 0",
					"frame 2: warning rx: sequence gap: seq 1-1 not seen (yet)",
					"frame 4: warning rx: reply started but the request is incomplete (packets missing from the capture)",
				}},
			{Name: "truncated-ack", Desc: "the server's ACK body is cut to 10 octets",
				Findings: []string{"frame 3: error rx: truncated ACK body: 10 of at least 18 octets"}},
			{Name: "jumbo-flag", Desc: "the jumbogram's second sub-packet lacks the JUMBO flag",
				Findings: []string{"frame 2: error rx: jumbogram sub-packet 1 lacks the JUMBO flag but more data follows"}},
			{Name: "ack-type", Desc: "an ACK octet is 7 (only 0 and 1 are defined)",
				Findings: []string{"frame 5: warning rx: ack octet 1 is 7 (only 0 NACK and 1 ACK are defined)"}},
		},
		build: func(o Options) []capture.Packet { return buildRx(o.Corrupt) },
	}
}

const (
	rxClientPort = 7001 // the cache manager's callback port, as OpenAFS clients send from
	rxServerPort = 7000 // fileserver
	opStoreData  = 133
)

func buildRx(corrupt string) []capture.Packet {
	// StoreData arguments: AFSFid, AFSStoreStatus, Pos, Length, FileLength,
	// then Length octets of file data.
	// 52 octets of arguments: the call data is then 3 full packets and 700
	// octets.
	const fileLen = 3*rx.JumboLen + 700 - 52
	req := binary.BigEndian.AppendUint32(nil, opStoreData)
	for _, w := range []uint32{536870915, 2, 1, // fid: volume, vnode, uniquifier
		0, 0, 0, 0, 0, 0, // store status: mask 0 (nothing set)
		0, fileLen, fileLen} { // pos, length, file length
		req = binary.BigEndian.AppendUint32(req, w)
	}
	for i := range fileLen {
		req = append(req, byte('a'+i%26))
	}
	// The reply: AFSFetchStatus (21 words) and AFSVolSync (6 words).
	reply := make([]byte, 27*4)
	binary.BigEndian.PutUint32(reply[0:], 1)        // interface version
	binary.BigEndian.PutUint32(reply[4:], 1)        // file type: file
	binary.BigEndian.PutUint32(reply[8:], 1)        // link count
	binary.BigEndian.PutUint32(reply[16:], fileLen) // length (low)

	hdr := func(seq, serial uint32, typ, flags uint8) rx.HeaderFields {
		return rx.HeaderFields{Epoch: 0x6a5c0e00, CID: 0x1a2b3c00, CallNumber: 1, Seq: seq, Serial: serial,
			Type: typ, Flags: flags, ServiceID: 1}
	}
	var frames [][]byte
	add := func(client bool, b []byte) {
		sp, dp := uint16(rxClientPort), uint16(rxServerPort)
		if !client {
			sp, dp = dp, sp
		}
		frames = append(frames, udpFrame(client, sp, dp, uint16(len(frames)+1), b))
	}

	// Frame 1: seq 1, a full 1412-octet packet.
	seq1 := uint32(1)
	if corrupt == "seq-zero" {
		seq1 = 0
	}
	h := hdr(seq1, 1, rx.TypeData, rx.FlagClientInitiated|rx.FlagMorePackets)
	add(true, append(h.Encode(nil), req[:rx.JumboLen]...))

	// Frame 2: seq 2-4 in one jumbogram. Each sub-packet but the last is
	// 1412 octets followed by a 4-octet jumbo header: flags and pad, then
	// the next sub-packet's checksum/spare.
	rest := req[rx.JumboLen:]
	h = hdr(2, 2, rx.TypeData, rx.FlagClientInitiated|rx.FlagMorePackets|rx.FlagJumbo)
	j := h.Encode(nil)
	j = append(j, rest[:rx.JumboLen]...)
	sub1 := uint8(rx.FlagClientInitiated | rx.FlagMorePackets | rx.FlagJumbo)
	if corrupt == "jumbo-flag" {
		sub1 &^= rx.FlagJumbo
	}
	j = rx.AppendJumboHeader(j, sub1, 0)
	j = append(j, rest[rx.JumboLen:2*rx.JumboLen]...)
	j = rx.AppendJumboHeader(j, rx.FlagClientInitiated|rx.FlagLastPacket|rx.FlagRequestAck, 0)
	j = append(j, rest[2*rx.JumboLen:]...)
	add(true, j)

	// Frame 3: the server ACKs seq 1-4 (reason 1, "requested").
	body := ack(1, 4, 1, []byte{1, 1, 1, 1})
	if corrupt == "truncated-ack" {
		body = body[:10]
	}
	h = hdr(0, 1, rx.TypeAck, 0)
	add(false, append(h.Encode(nil), body...))

	// Frame 4: the reply, one packet.
	h = hdr(1, 2, rx.TypeData, rx.FlagLastPacket|rx.FlagRequestAck)
	add(false, append(h.Encode(nil), reply...))

	// Frame 5: the client ACKs the reply.
	acks := []byte{1}
	if corrupt == "ack-type" {
		acks = []byte{1, 7}
	}
	h = hdr(0, 5, rx.TypeAck, rx.FlagClientInitiated)
	add(true, append(h.Encode(nil), ack(1, 0, 2, acks)...))

	pkts := make([]capture.Packet, len(frames))
	for i, f := range frames {
		pkts[i] = capture.Packet{Data: f, TimeNS: baseTime + int64(i)*1_000_000, CapLen: len(f), WireLen: len(f),
			LinkType: capture.LinkEthernet}
	}
	return pkts
}

// ack builds an ACK body (reason: requested) with the four trailer words
// OpenAFS sends.
func ack(first, prev, serial uint32, acks []byte) []byte {
	a := rx.AckFields{BufferSpace: 32, First: first, Prev: prev, Serial: serial, Reason: rx.AckRequested, Acks: acks,
		Trailer: true, MaxMTU: 1444, IfMTU: 1444, Window: 32, MaxJumbo: 4}
	return a.Encode(nil)
}
