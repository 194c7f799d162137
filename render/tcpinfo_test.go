package render_test

import (
	"encoding/binary"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
)

// tcp4 is a raw IPv4 TCP segment 192.0.2.1:40000 → 192.0.2.2:5555 (or
// back when rev) with options opts, whose IP header says payload octets
// follow; only captured of them are in the returned bytes (a frame cut by
// the snapshot length).
func tcp4(rev bool, seq, ack uint32, flags byte, win uint16, opts []byte, payload, captured int) []byte {
	hl := 20 + len(opts)
	b := make([]byte, 20+hl, 20+hl+captured)
	b[0], b[8], b[9] = 0x45, 64, 6
	binary.BigEndian.PutUint16(b[2:], uint16(20+hl+payload))
	src, dst := []byte{192, 0, 2, 1}, []byte{192, 0, 2, 2}
	sp, dp := uint16(40000), uint16(5555)
	if rev {
		src, dst, sp, dp = dst, src, dp, sp
	}
	copy(b[12:], src)
	copy(b[16:], dst)
	h := b[20:]
	binary.BigEndian.PutUint16(h[0:], sp)
	binary.BigEndian.PutUint16(h[2:], dp)
	binary.BigEndian.PutUint32(h[4:], seq)
	binary.BigEndian.PutUint32(h[8:], ack)
	h[12], h[13] = byte(hl/4)<<4, flags
	binary.BigEndian.PutUint16(h[14:], win)
	copy(h[20:], opts)
	return append(b, make([]byte, captured)...)
}

// A TCP segment nothing above TCP decodes has tshark's Info: the SYN's
// options in their order (MSS=1460 SACK_PERM TSval= TSecr= WS=128), the
// window of later segments scaled by the handshake's shift (unscaled on
// the SYNs), the SACK edges relative to the peer's start, Urg with URG, AE and Reserved flags
// in tshark's order, the length of a segment cut by the snapshot length
// as sent (tshark: Len=1448), a window update's and a duplicate ACK's
// "[TCP ...]" prefix (tshark keeps counting duplicates across a window
// update: 2#1); and building it allocates nothing. tshark 4.0.17 prints
// exactly these Info texts for these frames (written to a pcap).
func TestTCPInfoAsTshark(t *testing.T) {
	synOpts := []byte{2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 7, 0, 0, 0, 0, 1, 3, 3, 7}
	ackOpts := []byte{1, 1, 8, 10, 0, 0, 0, 8, 0, 0, 0, 9}
	sackOpts := []byte{1, 1, 5, 10, 0, 0, 0x03, 0xe9, 0, 0, 0x07, 0xd1}
	const (
		syn, ack, psh, urg = 0x02, 0x10, 0x08, 0x20
	)
	frames := []struct {
		data []byte
		want string
	}{
		{tcp4(false, 1000, 0, syn, 64240, synOpts, 0, 0), "40000 → 5555 [SYN] Seq=0 Win=64240 Len=0 MSS=1460 SACK_PERM TSval=7 TSecr=0 WS=128"},
		{tcp4(true, 5000, 1001, syn|ack, 65160, synOpts, 0, 0), "5555 → 40000 [SYN, ACK] Seq=0 Ack=1 Win=65160 Len=0 MSS=1460 SACK_PERM TSval=7 TSecr=0 WS=128"},
		{tcp4(false, 1001, 5001, ack, 502, ackOpts, 0, 0), "40000 → 5555 [ACK] Seq=1 Ack=1 Win=64256 Len=0 TSval=8 TSecr=9"},
		{tcp4(false, 1001, 5001, psh|ack, 502, nil, 1448, 100), "40000 → 5555 [PSH, ACK] Seq=1 Ack=1 Win=64256 Len=1448"},
		{tcp4(true, 5001, 1001, ack, 509, sackOpts, 0, 0), "[TCP Window Update] 5555 → 40000 [ACK] Seq=1 Ack=1 Win=65152 Len=0 SLE=1 SRE=1001"},
		{tcp4(true, 5001, 1001, ack, 509, sackOpts, 0, 0), "[TCP Dup ACK 2#1] 5555 → 40000 [ACK] Seq=1 Ack=1 Win=65152 Len=0 SLE=1 SRE=1001"},
		{tcp4(false, 2449, 5001, psh|ack|urg, 502, nil, 10, 10), "40000 → 5555 [PSH, ACK, URG] Seq=1449 Ack=1 Win=64256 Urg=0 Len=10"},
	}
	frames = append(frames, struct {
		data []byte
		want string
	}{tcp4(false, 2459, 5001, psh|ack, 502, nil, 10, 10), "40000 → 5555 [PSH, ACK, AE, Reserved] Seq=1459 Ack=1 Win=64256 Len=10"})
	last := frames[len(frames)-1].data
	last[20+12] |= 0x0f // AE and the three reserved bits

	e := dissect.NewEngine(dissect.Options{})
	var buf []byte
	for i, fr := range frames {
		f := e.Decode(dissect.Packet{Num: uint64(i + 1), TimeNS: int64(i) * 1000, LinkType: dissect.LinkTypeRaw,
			Data: fr.data, CapLen: len(fr.data), WireLen: int(binary.BigEndian.Uint16(fr.data[2:]))})
		buf = render.Info(buf[:0], f)
		if string(buf) != fr.want {
			t.Errorf("frame %d: Info\n%q, want\n%q", i+1, buf, fr.want)
		}
		if i == 0 {
			if n := testing.AllocsPerRun(100, func() { buf = render.Info(buf[:0], f) }); n != 0 {
				t.Errorf("the TCP Info allocates %v times", n)
			}
		}
	}
}
