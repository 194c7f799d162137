package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"
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
		if err := w.WritePacket(&Packet{Data: d, TimeNS: int64(i) * 1000, CapLen: len(d), WireLen: len(d)}); err != nil { // microseconds: the file's
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
		b := p.cur
		held := 0
		for _, q := range b.pkts {
			held += len(q.Data)
		}
		if held > batchBytes+len(d) || len(b.buf) > batchBytes+len(d) || len(b.bufs) > 2 {
			t.Fatalf("packet %d: a batch holds %d octets of views, %d of copies, %d read buffers", i+1, held, len(b.buf), len(b.bufs))
		}
	}
}

// A pcap file's packets are views of the read buffer, not copies, and stay
// as they were while the reader runs ahead into the next buffers: a batch
// is checked only once the reader has filled every other batch and waits.
func TestPrefetchViews(t *testing.T) {
	var file bytes.Buffer
	w, err := NewPcapWriter(&file, LinkEthernet, 2000, false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 24000 // about 13 MB: the reader refills its 1 MiB buffers while batches hold views of them
	data := func(i int) []byte { return bytes.Repeat([]byte{byte(i), byte(i >> 8)}, 20+i%480) }
	for i := 0; i < n; i++ {
		if err := w.WritePacket(&Packet{Data: data(i), TimeNS: int64(i) * 1000, CapLen: len(data(i)), WireLen: len(data(i))}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewReader(struct{ io.Reader }{bytes.NewReader(file.Bytes())}, "views.pcap") // no Len: a full-size buffer
	if err != nil {
		t.Fatal(err)
	}
	p := NewPrefetch(r)
	defer p.Close()
	i, copied, batchCount := 0, 0, 0
	for _, pkts := range eachBatch(t, p) {
		batchCount++
		copied += len(p.cur.buf)
		// The reader fills the batches it has (not this one, nor the used
		// ones not yet handed back); batches here end at their room, at
		// most batchBytes, about 1,950 records, so the last ones are not
		// waited for.
		for wait := 0; len(p.full) < p.made-1-p.nspent && i+len(pkts) < n-batches*1950 && wait < 2000; wait++ {
			time.Sleep(time.Millisecond)
		}
		for _, q := range pkts {
			if !bytes.Equal(q.Data, data(i)) || q.TimeNS != int64(i)*1000 {
				t.Fatalf("packet %d (batch %d) changed under the reader: %d %x", i+1, batchCount, q.TimeNS, q.Data[:8])
			}
			i++
		}
	}
	if i != n {
		t.Fatalf("read %d of %d packets", i, n)
	}
	// Only records cut by the end of a read buffer are copied.
	if copied > (file.Len()/readBufSize+1)*2000 {
		t.Errorf("%d octets copied; want only the records cut by a buffer's end", copied)
	}
}

// chunkReader returns at most a few hundred octets per Read, hiding Len,
// so records straddle the read buffer's refills.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	c.n = (c.n*7 + 13) % 7919
	k := min(len(p), len(c.b), 1+c.n%700)
	copy(p, c.b[:k])
	c.b = c.b[k:]
	return k, nil
}

// Prefetch's batch path (records taken straight from the read buffer) gives
// exactly what Reader.Next gives: every packet, and the same error with the
// same frame and offset, whether records straddle buffer refills, the file
// is larger than the buffer, or a record is oversized or cut.
func TestPrefetchBatchPathAsNext(t *testing.T) {
	var file bytes.Buffer
	w, err := NewPcapWriter(&file, LinkEthernet, 2000, false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 12000 // about 3 MiB: more than one read buffer
	for i := 0; i < n; i++ {
		d := bytes.Repeat([]byte{byte(i), byte(i >> 8)}, 20+i%480)
		if err := w.WritePacket(&Packet{Data: d, TimeNS: int64(i) * 1001, CapLen: len(d), WireLen: len(d) + i%3}); err != nil {
			t.Fatal(err)
		}
	}
	good := file.Bytes()
	oversized := bytes.Clone(good)
	// the 7000th record's caplen (past the 24-octet file header) says 5000 > snaplen
	off := 24
	for i := 0; i < 6999; i++ {
		off += 16 + int(uint32(oversized[off+8])|uint32(oversized[off+9])<<8)
	}
	oversized[off+8], oversized[off+9] = 0x88, 0x13
	// the same file as a big-endian writer writes it: every header field swapped
	bigEndian := bytes.Clone(good)
	swap := func(b []byte) { b[0], b[1], b[2], b[3] = b[3], b[2], b[1], b[0] }
	swap(bigEndian[0:4])
	bigEndian[4], bigEndian[5], bigEndian[6], bigEndian[7] = bigEndian[5], bigEndian[4], bigEndian[7], bigEndian[6]
	for _, o := range []int{8, 12, 16, 20} {
		swap(bigEndian[o : o+4])
	}
	for off := 24; off < len(bigEndian); {
		caplen := int(binary.LittleEndian.Uint32(bigEndian[off+8:]))
		for o := 0; o < 16; o += 4 {
			swap(bigEndian[off+o : off+o+4])
		}
		off += 16 + caplen
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"whole", good}, {"big-endian", bigEndian}, {"cut", good[:len(good)-7]}, {"cut-header", good[:len(good)-(16+2*(20+(n-1)%480))+5]}, {"oversized", oversized}} {
		for _, chunked := range []bool{false, true} {
			open := func() *Reader {
				var src io.Reader = bytes.NewReader(c.data)
				if chunked {
					src = &chunkReader{b: c.data}
				}
				r, err := NewReader(src, c.name)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			var want []Packet
			r := open()
			wantErr := func() error {
				var p Packet
				for {
					if err := r.Next(&p); err != nil {
						return err
					}
					p.Data = bytes.Clone(p.Data)
					want = append(want, p)
				}
			}()
			p := NewPrefetch(open())
			var got Packet
			for i := 0; ; i++ {
				err := p.Next(&got)
				if err != nil {
					if i != len(want) || err.Error() != wantErr.Error() {
						t.Fatalf("%s (chunked %v): after %d packets %v, Next gave %d then %v", c.name, chunked, i, err, len(want), wantErr)
					}
					break
				}
				if i >= len(want) || !bytes.Equal(got.Data, want[i].Data) || got.TimeNS != want[i].TimeNS ||
					got.CapLen != want[i].CapLen || got.WireLen != want[i].WireLen || got.LinkType != want[i].LinkType ||
					got.Iface != want[i].Iface {
					t.Fatalf("%s (chunked %v): packet %d differs", c.name, chunked, i+1)
				}
			}
			p.Close()
			if (c.name == "whole" || c.name == "big-endian") && len(want) != n {
				t.Fatalf("read %d of %d packets", len(want), n)
			}
		}
	}
}

// Used batches go back to the reader handBack at a time, so it wakes once
// for them, and the reader never has more than the others to fill: with
// room (Widen) the ring has 8 batches (after the first one used), 6 handed
// back at a time; without, as without Widen, 4 and 2.
func TestPrefetchGiveBack(t *testing.T) {
	for i, wide := range []bool{true, false, false} {
		const n = 20 * batchLen
		p := NewPrefetch(zeroPackets(t, n, 60))
		if i < 2 { // the second narrow ring: no Widen at all
			p.Widen(func() bool { return wide })
		}
		ring := narrow
		if wide {
			ring = batches
		}
		got := 0
		for k, pkts := range eachBatch(t, p) {
			got += len(pkts)
			if k > 0 && p.made != ring {
				t.Fatalf("wide %v, batch %d: %d batches, want %d", wide, k+1, p.made, ring)
			}
			if want := k % handBack(wide); p.nspent != want {
				t.Fatalf("wide %v, batch %d: %d used batches held back, want %d", wide, k+1, p.nspent, want)
			}
			if f := len(p.full) + len(p.free); f > p.made-1-p.nspent {
				t.Fatalf("wide %v, batch %d: %d batches full or free beside the current one and %d held back", wide, k+1, f, p.nspent)
			}
		}
		p.Close()
		if got != n {
			t.Fatalf("wide %v: read %d of %d packets", wide, got, n)
		}
	}
}

// Packets whose batch of batchLen would take more than half of batchBytes
// keep the narrow ring even with room: half-size batches would only hand
// over more often.
func TestPrefetchBigPacketsNarrow(t *testing.T) {
	for _, c := range []struct {
		size int
		ring int
	}{{200, batches}, {300, narrow}, {1500, narrow}} {
		p := NewPrefetch(zeroPackets(t, 16*batchLen, c.size))
		p.Widen(func() bool { return true })
		most := 0
		for range eachBatch(t, p) {
			most = max(most, p.made)
		}
		p.Close()
		if most != c.ring {
			t.Errorf("%d-octet packets: a ring of %d batches, want %d", c.size, most, c.ring)
		}
	}
}

// The ring narrows when the heap fills and widens again when it empties,
// whatever the batches in flight: every packet comes once, in order, and
// nothing waits for a batch nobody has.
func TestPrefetchRingWidensNarrows(t *testing.T) {
	const n = 60 * batchLen
	var file bytes.Buffer
	w, err := NewPcapWriter(&file, LinkEthernet, 2000, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		d := []byte{byte(i), byte(i >> 8), byte(i >> 16), 0}
		if err := w.WritePacket(&Packet{Data: d, TimeNS: int64(i), CapLen: len(d), WireLen: len(d)}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewReader(bytes.NewReader(file.Bytes()), "numbered.pcap")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPrefetch(r)
	defer p.Close()
	wide := true
	p.Widen(func() bool { return wide })
	var sizes []int
	got := 0
	for k, pkts := range eachBatch(t, p) {
		for i := range pkts {
			if ts := pkts[i].TimeNS; ts != int64(got) {
				t.Fatalf("batch %d: packet %d has time %d", k+1, got+1, ts)
			}
			got++
		}
		wide = k%16 < 8 || k%16 == 11 // narrow at 8, for a batch at 11
		if len(sizes) == 0 || sizes[len(sizes)-1] != p.made {
			sizes = append(sizes, p.made)
		}
	}
	if got != n {
		t.Fatalf("read %d of %d packets", got, n)
	}
	if slices.Max(sizes) != batches || slices.Min(sizes) != narrow {
		t.Errorf("ring sizes %v: never %d and %d", sizes, batches, narrow)
	}
}

// A fresh batch's packets are mapped in (prefault) once a batch before came
// full, at batchLen packets or batchBytes octets, the input being large; a
// small input's batches map nothing.
func TestPrefetchMapsBatches(t *testing.T) {
	for _, c := range []struct {
		n, size, want int
	}{{batchLen - 1, 60, 0}, {3 * batches * batchLen, 60, narrow - 1}, {3 * batches * batchBytes / 1000, 1000, narrow - 1}} { // no Widen: the narrow ring
		p := NewPrefetch(zeroPackets(t, c.n, c.size))
		got := 0
		for _, pkts := range eachBatch(t, p) {
			got += len(pkts)
		}
		p.Close() // fill has returned: its count is read after
		if got != c.n || p.mapped != c.want {
			t.Errorf("%d packets: read %d, %d batches mapped in, want %d", c.n, got, p.mapped, c.want)
		}
	}
}

// zeroPackets reads a pcap file, held in memory, of n packets of size zero
// octets each.
// eachBatch yields p's batches (NextBatch) with their index, to the end of
// the input; any other error fails the test.
func eachBatch(t *testing.T, p *Prefetch) iter.Seq2[int, []Packet] {
	return func(yield func(int, []Packet) bool) {
		for k := 0; ; k++ {
			pkts, err := p.NextBatch()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !yield(k, pkts) {
				return
			}
		}
	}
}

func zeroPackets(t *testing.T, n, size int) *Reader {
	t.Helper()
	var file bytes.Buffer
	w, err := NewPcapWriter(&file, LinkEthernet, 2000, false)
	if err != nil {
		t.Fatal(err)
	}
	d := make([]byte, size)
	for i := 0; i < n; i++ {
		if err := w.WritePacket(&Packet{Data: d, TimeNS: int64(i) * 1000, CapLen: len(d), WireLen: len(d)}); err != nil { // microseconds: the file's
			t.Fatal(err)
		}
	}
	r, err := NewReader(bytes.NewReader(file.Bytes()), "zero.pcap")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTakeBufferedPcapng: a pcapng file's Enhanced Packet Blocks are taken
// from the read buffer as a pcap file's records are (no copy, no Next per
// packet), with what Next reads of them; every other block (a second
// section in the other byte order, an interface, a Simple or obsolete
// Packet Block, an unknown block) and a doubtful one (an interface not
// defined) is left to Next, which reads or reports it.
func TestTakeBufferedPcapng(t *testing.T) {
	n := &ngb{}
	n.shb().idb(LinkEthernet, 0).idb(LinkRaw, 1500, n.opt(optTsresol, []byte{9}))
	for i := range 400 {
		n.epb(uint32(i%2), uint64(1000+i), strings.Repeat(string(rune('a'+i%26)), 1+i%70), uint32(100+i))
	}
	n.epb(0, 5, "with a comment", 14, n.opt(1, []byte("a comment")))
	n.block(0x0bad, []byte("unknown block"))
	n.pb(1, 6, "obsolete", 8)
	be := &ngb{be: true}
	be.shb().idb(LinkRaw, 0)
	for i := range 300 {
		be.epb(0, uint64(i), strings.Repeat("z", 1+i%40), uint32(50+i))
	}
	be.block(blockSPB, []byte{0, 0, 0, 4, 1, 2, 3, 4})
	be.epb(3, 1, "no such interface", 17)
	file := append(n.b, be.b...)

	type rec struct {
		data         string
		ts           int64
		capLen, wire int
		link         uint16
		iface        int
	}
	var want []rec
	var wantErr error
	r, err := NewReader(bytes.NewReader(file), "t.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	var p Packet
	for {
		if wantErr = r.Next(&p); wantErr != nil {
			break
		}
		want = append(want, rec{string(p.Data), p.TimeNS, p.CapLen, p.WireLen, p.LinkType, p.Iface})
	}
	var got []rec
	var gotErr error
	taken := 0
	r, _ = NewReader(bytes.NewReader(file), "t.pcapng")
	for {
		pkts, _ := r.TakeBuffered(nil, 64, 1<<20)
		for _, p := range pkts {
			got = append(got, rec{string(p.Data), p.TimeNS, p.CapLen, p.WireLen, p.LinkType, p.Iface})
		}
		taken += len(pkts)
		if len(pkts) > 0 {
			continue
		}
		if gotErr = r.Next(&p); gotErr != nil {
			break
		}
		got = append(got, rec{string(p.Data), p.TimeNS, p.CapLen, p.WireLen, p.LinkType, p.Iface})
	}
	if !slices.Equal(got, want) || gotErr.Error() != wantErr.Error() {
		t.Fatalf("taken and read: %d packets, %v; read: %d packets, %v", len(got), gotErr, len(want), wantErr)
	}
	if len(want) != 703 || !strings.Contains(wantErr.Error(), "interface 3") {
		t.Errorf("%d packets, then %v: the file is not what the test meant", len(want), wantErr)
	}
	if taken < 650 {
		t.Errorf("TakeBuffered took %d of the 700 Enhanced Packet Blocks", taken)
	}
}
