package capture

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// Prefetch yields the same packets, in order, then the reader's own error;
// Close works before the end.
func TestPrefetch(t *testing.T) {
	var file bytes.Buffer
	w, err := NewPcapWriter(&file, LinkEthernet, 65535, true)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	for i := 0; i < n; i++ {
		d := bytes.Repeat([]byte{byte(i)}, 60+i%200)
		if err := w.WritePacket(&Packet{Data: d, TimeNS: int64(i), CapLen: len(d), WireLen: len(d)}); err != nil {
			t.Fatal(err)
		}
	}
	good := file.Bytes()
	r, err := NewReader(bytes.NewReader(good[:len(good)-5]), "cut.pcap") // last record truncated
	if err != nil {
		t.Fatal(err)
	}
	p := NewPrefetch(r)
	var pkt Packet
	for i := 0; i < n-1; i++ {
		if err := p.Next(&pkt); err != nil {
			t.Fatalf("packet %d: %v", i+1, err)
		}
		if pkt.TimeNS != int64(i) || len(pkt.Data) != 60+i%200 || pkt.Data[0] != byte(i) {
			t.Fatalf("packet %d: time %d len %d", i+1, pkt.TimeNS, len(pkt.Data))
		}
	}
	err = p.Next(&pkt)
	var ce *Error
	if !errors.As(err, &ce) || ce.Frame != n {
		t.Fatalf("want the reader's error at frame %d, got %v", n, err)
	}
	if err2 := p.Next(&pkt); err2 != err {
		t.Errorf("error not sticky: %v", err2)
	}
	p.Close()

	r, _ = NewReader(bytes.NewReader(good), "full.pcap")
	p = NewPrefetch(r)
	p.Next(&pkt)
	if err := p.Close(); err != nil {
		t.Errorf("early close: %v", err)
	}
	r, _ = NewReader(bytes.NewReader(good), "full.pcap")
	p = NewPrefetch(r)
	count := 0
	for p.Next(&pkt) == nil {
		count++
	}
	if err := p.Next(&pkt); !errors.Is(err, io.EOF) || count != n {
		t.Errorf("count %d, end %v", count, err)
	}
	p.Close()
}

// Large frames end a batch by size: the batches in flight hold a few MiB,
// not 1024 frames of 64 KiB each.
func TestPrefetchBatchBytes(t *testing.T) {
	var file bytes.Buffer
	w, err := NewPcapWriter(&file, LinkEthernet, 65535, true)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	d := make([]byte, 65000)
	for i := 0; i < n; i++ {
		d[0] = byte(i)
		if err := w.WritePacket(&Packet{Data: d, TimeNS: int64(i), CapLen: len(d), WireLen: len(d)}); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := NewReader(bytes.NewReader(file.Bytes()), "big.pcap")
	p := NewPrefetch(r)
	defer p.Close()
	var pkt Packet
	for i := 0; i < n; i++ {
		if err := p.Next(&pkt); err != nil || pkt.Data[0] != byte(i) {
			t.Fatalf("packet %d: %v", i+1, err)
		}
		if b := p.cur; len(b.buf) > batchBytes+len(d) || cap(b.buf) > 2*(batchBytes+len(d)) {
			t.Fatalf("packet %d: a batch holds %d octets (capacity %d)", i+1, len(b.buf), cap(b.buf))
		}
	}
}
