package testpkt

import (
	"bytes"
	"testing"
)

func TestUDP4(t *testing.T) {
	got := UDP4([]byte{0xee}, Client, Server, 40000, 7000, []byte{1, 2, 3})
	want := []byte{0xee,
		0x45, 0, 0, 31, 0, 0, 0, 0, 64, 17, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2,
		0x9c, 0x40, 0x1b, 0x58, 0, 11, 0, 0,
		1, 2, 3}
	if !bytes.Equal(got, want) {
		t.Errorf("UDP4:\n got % x\nwant % x", got, want)
	}
}

func TestIPv4Frag(t *testing.T) {
	got := IPv4Frag(0x77, 16, true, []byte{9, 9})
	want := []byte{0x45, 0, 0, 22, 0, 0x77, 0x20, 2, 64, 17, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2, 9, 9}
	if !bytes.Equal(got, want) {
		t.Errorf("IPv4Frag:\n got % x\nwant % x", got, want)
	}
}
