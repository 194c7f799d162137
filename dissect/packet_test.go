package dissect_test

import (
	"encoding/binary"
	"testing"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
)

// The engine's link-type names and capture's are the same registry values.
func TestLinkTypesMatchCapture(t *testing.T) {
	for _, c := range []struct {
		name      string
		eng, capt uint16
	}{
		{"null", dissect.LinkTypeNull, capture.LinkNull},
		{"ethernet", dissect.LinkTypeEthernet, capture.LinkEthernet},
		{"raw", dissect.LinkTypeRaw, capture.LinkRaw},
		{"raw12", dissect.LinkTypeRawDLT12, capture.LinkRawDLT12},
		{"raw14", dissect.LinkTypeRawDLT14, capture.LinkRawDLT14},
		{"loop", dissect.LinkTypeLoop, capture.LinkLoop},
		{"sll", dissect.LinkTypeLinuxSLL, capture.LinkLinuxSLL},
		{"sll2", dissect.LinkTypeLinuxSLL2, capture.LinkLinuxSLL2},
		{"ipv4", dissect.LinkTypeIPv4, capture.LinkIPv4},
		{"ipv6", dissect.LinkTypeIPv6, capture.LinkIPv6},
	} {
		if c.eng != c.capt {
			t.Errorf("%s: dissect %d, capture %d", c.name, c.eng, c.capt)
		}
	}
}

// The frame carries the TCP header values and the payload's position in
// the stream, so stream dissectors need no header of their own: the
// payload of a SYN starts one number after its sequence number.
func TestFrameTCPHeader(t *testing.T) {
	eng := dissect.NewEngine(dissect.Options{})
	seg := tcpSeg(1000, 0x12, []byte("abcdef")) // SYN, ACK
	binary.BigEndian.PutUint32(seg[20+8:], 77)  // ack
	seg[20+12] |= 1                             // NS
	binary.BigEndian.PutUint16(seg[20+14:], 513)
	f := eng.Decode(dissect.Packet{Num: 1, LinkType: dissect.LinkTypeIPv4, Data: seg})
	want := dissect.TCPHeader{Seq: 1000, Ack: 77, Window: 513, HdrLen: 20,
		Flags: dissect.TCPFlagSYN | dissect.TCPFlagACK | dissect.TCPFlagNS}
	if f.Net.TCP != want || f.CapLen != len(seg) || f.WireLen != len(seg) {
		t.Fatalf("TCP %+v, lengths %d/%d; want %+v, %d", f.Net.TCP, f.CapLen, f.WireLen, want, len(seg))
	}
	for _, c := range []struct {
		seq  uint32
		n    int
		want int
	}{
		{1001, 6, 40}, {1003, 2, 42}, {1003, 4, 42}, {1000, 1, -1}, {1003, 5, -1}, {1007, 0, 46}, {1008, 0, -1},
	} {
		if got := f.TCPPayloadOffset(c.seq, c.n); got != c.want {
			t.Errorf("TCPPayloadOffset(%d, %d) = %d, want %d", c.seq, c.n, got, c.want)
		}
	}
	udp := ipv4(17, 1, 0, false, udpTo9([]byte("x")))
	f = eng.Decode(dissect.Packet{Num: 2, LinkType: dissect.LinkTypeIPv4, Data: udp, CapLen: len(udp), WireLen: 100})
	if f.TCPPayloadOffset(0, 0) != -1 || f.Net.TCP != (dissect.TCPHeader{}) || f.WireLen != 100 {
		t.Errorf("UDP frame: TCP %+v, offset %d, wire length %d", f.Net.TCP, f.TCPPayloadOffset(0, 0), f.WireLen)
	}
}
