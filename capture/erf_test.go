package capture

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
)

// TestERFInterfaces: in a pcap file of ERF records each (source ID, ERF
// port) is an interface, numbered in the order records first name it, as
// tshark's frame.interface_id (infiniband_erf.pcap: port B, seen first, is
// 0, port A 1); a Host ID extension header's source ID tells two cards'
// ports apart; a record too short for an ERF header is interface 0. The
// careful path (Next) and the batch path (Prefetch) agree.
func TestERFInterfaces(t *testing.T) {
	rec := func(port byte, ext []byte) []byte {
		r := make([]byte, 16, 16+len(ext)+8)
		r[8], r[9] = 21, port|0x04
		if ext != nil {
			r[8] |= 0x80
		}
		r = append(r, ext...)
		r = append(r, 1, 2, 3, 4, 5, 6, 7, 8) // the packet
		binary.BigEndian.PutUint16(r[10:], uint16(len(r)))
		binary.BigEndian.PutUint16(r[14:], 8)
		return r
	}
	hostID := func(src byte) []byte { return []byte{14, src, 0, 0, 0, 0, 0, 1} }
	recs := [][]byte{rec(1, nil), rec(0, nil), rec(1, nil), rec(0, hostID(3)), rec(1, hostID(3)), {21, 0}, rec(0, hostID(0))}
	want := []int{0, 1, 0, 2, 3, 0, 1}

	file := binary.LittleEndian.AppendUint32(nil, 0xa1b2c3d4)
	file = binary.LittleEndian.AppendUint16(file, 2)
	file = binary.LittleEndian.AppendUint16(file, 4)
	file = append(file, make([]byte, 8)...)
	file = binary.LittleEndian.AppendUint32(file, 65535)
	file = binary.LittleEndian.AppendUint32(file, linkTypeERF)
	for i, r := range recs {
		file = binary.LittleEndian.AppendUint32(file, uint32(i))
		file = binary.LittleEndian.AppendUint32(file, 0)
		file = binary.LittleEndian.AppendUint32(file, uint32(len(r)))
		file = binary.LittleEndian.AppendUint32(file, uint32(len(r)))
		file = append(file, r...)
	}

	r, err := NewReader(bytes.NewReader(file), "erf.pcap")
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, r)
	if err != nil || len(got) != len(want) {
		t.Fatalf("%d packets, %v", len(got), err)
	}
	for i, p := range got {
		if p.iface != want[i] {
			t.Errorf("Next: record %d: interface %d, want %d", i+1, p.iface, want[i])
		}
	}

	r, err = NewReader(bytes.NewReader(file), "erf.pcap")
	if err != nil {
		t.Fatal(err)
	}
	pf := NewPrefetch(r)
	defer pf.Close()
	for i := 0; ; i++ {
		var p Packet
		if err := pf.Next(&p); err == io.EOF {
			if i != len(want) {
				t.Errorf("Prefetch: %d packets, want %d", i, len(want))
			}
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Iface != want[i] {
			t.Errorf("Prefetch: record %d: interface %d, want %d", i+1, p.Iface, want[i])
		}
	}
}
