package capture

import "github.com/rdx-project/rdx/internal/prefault"

// Prefetch reads packets from a Source on its own goroutine, in batches, so
// reading and decoding use both cores. Batches are recycled: after warm-up
// no allocation happens per packet. Packet data stays valid until the next
// call to Next, NextRef or NextBatch.
//
// From a pcap file a batch's packets are views of the Reader's read buffer,
// not copies (Reader.TakeBuffered lends the buffer): a buffer the reader
// moved on from travels with the batch being filled at that time, the last
// one with views of it, and is read into again once that batch comes back
// free. Other records (pcapng, a record cut by the end of the buffer) are
// copied into the batch.
type Prefetch struct {
	src        Source
	full, free chan *batch
	done       chan struct{}
	cur        *batch
	i          int
	err        error
	// spent are used batches not yet handed back: they go back
	// together, so the reader wakes once for them all (handBack).
	spent  [batches]*batch
	nspent int
	mapped int // batches whose packets' pages fill mapped in
	// made are the batches in circulation: narrow, or batches while
	// roomy says there is room (Widen).
	made  int
	roomy func() bool
}

type batch struct {
	pkts []Packet
	buf  []byte   // copies of the packets Next returned
	bufs [][]byte // read buffers the reader left while filling this batch
	err  error
	// taken: fill filled the batch before (prefault.First maps a fresh
	// batch's pkts in once a batch before came full).
	taken bool
	// room is the octets it may hold: batchBytes, half that in the wide
	// ring, so the ring holds as many octets either way.
	room int
	// small: it ended at batchLen packets within half of batchBytes, so a
	// wide ring of such batches holds no more octets than the narrow one.
	small bool
}

// A batch ends at batchLen packets or batchBytes octets, whichever comes
// first: with 64 KiB frames a count alone let 4 batches hold 256 MiB. So the
// memory the batches hold is bounded: views of at most batchBytes of the
// reader's buffers (and the buffers they are in) and copies of as many
// octets, one record more.
//
// Every hand-over to a reader waiting for a free batch wakes it on the
// other core (a futex wake, an idle thread spinning to steal it, a context
// switch there and back). rdx read -q -j1 of 1M small Rx packets made
// 1,500 voluntary context switches with 1024 packets a batch, each handed
// back at once; 850 with 2048 handed back two at a time (the narrow ring
// below), while the decoder works on the other two (100 of those are
// start-up). Larger batches wake it less still (4096: 800) but hold more
// memory, which counts when the tables fill the heap to the collector's
// limit: 300,000 RDS/TCP connections took 83 collections instead of 62.
// (So did 8 batches of 2048 and at most 512 KiB, handed back 4 at a time:
// 86 instead of 60, for 272 futex calls instead of 422 on the Rx packets.)
//
// Those hand-overs cost the decoder too: the wake is its futex call, and
// the reader's goroutine is queued on its processor first. So while the
// heap has room (Widen) and packets are small (a batch of batchLen takes
// under half of batchBytes) the ring widens to 8 batches of at most half
// batchBytes, as many octets as the narrow 4 (for one round as it widens,
// the narrow ring's batches keep their room: 6 MiB), handed back 6 at a
// time: rdx read -q -j1 of 1M Rx packets (150 octets) took 139 ms instead
// of 149 (medians of 9 alternated runs). Larger packets keep the narrow
// ring: there half-size batches only made twice the hand-overs the other
// way, to a decoder waiting for the reader (1 GiB of RDS/TCP in 1448-octet
// segments: 223 ms instead of 180).
const (
	batches    = 8
	narrow     = 4
	batchLen   = 2048
	batchBytes = 1 << 20
)

// handBack is how many spent batches go back at once: 3/4 of the ring
// wide, half of it narrow.
func handBack(wide bool) int {
	if wide {
		return batches * 3 / 4
	}
	return narrow / 2
}

// NewPrefetch starts reading src in the background.
func NewPrefetch(src Source) *Prefetch {
	p := &Prefetch{src: src, full: make(chan *batch, batches), free: make(chan *batch, batches), done: make(chan struct{}), made: narrow}
	for range narrow {
		p.free <- newBatch(batchBytes)
	}
	go p.fill()
	return p
}

func newBatch(room int) *batch { return &batch{pkts: make([]Packet, 0, batchLen), room: room} }

// roomOf is a batch's room in the wide or the narrow ring.
func roomOf(wide bool) int {
	if wide {
		return batchBytes * narrow / batches
	}
	return batchBytes
}

// Widen lets the ring widen while roomy says the heap has room for it;
// without, it stays narrow. roomy is called on the goroutine that takes
// the packets, once a used batch, from the next call of Next, NextRef or
// NextBatch on.
func (p *Prefetch) Widen(roomy func() bool) { p.roomy = roomy }

func (p *Prefetch) fill() {
	defer close(p.full)
	r, bulk := p.src.(*Reader)
	full := false // a batch was sent full
	for {
		var b *batch
		select {
		case b = <-p.free:
		case <-p.done:
			return
		}
		if bulk { // no view of these is in use any more
			r.Reuse(b.bufs)
		}
		b.pkts, b.buf, b.bufs, b.err = b.pkts[:0], b.buf[:0], b.bufs[:0], nil
		if prefault.First(b.pkts, &b.taken, full) {
			p.mapped++
		}
		var pkt Packet
		held := 0 // octets of views
		for len(b.pkts) < batchLen && held+len(b.buf) < b.room {
			if bulk { // what is buffered, without a call per record
				var n int
				b.pkts, n = r.TakeBuffered(b.pkts, batchLen, b.room-held-len(b.buf))
				held += n
				if len(b.pkts) == batchLen || held+len(b.buf) >= b.room {
					break
				}
			}
			if err := p.src.Next(&pkt); err != nil {
				b.err = err
				break
			}
			// When buf grows, the copies before stay where they are:
			// nothing writes the old array again.
			off := len(b.buf)
			b.buf = append(b.buf, pkt.Data...)
			pkt.Data = b.buf[off:len(b.buf):len(b.buf)]
			b.pkts = append(b.pkts, pkt)
		}
		if bulk {
			b.bufs = r.Retired(b.bufs)
		}
		b.small = len(b.pkts) == batchLen && held+len(b.buf) <= roomOf(true)
		full = full || b.err == nil // ended at batchLen or batchBytes: more is coming
		select {
		case p.full <- b:
		case <-p.done:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// next makes the next batch current once the current one is all returned;
// false with p.err set at the end.
func (p *Prefetch) next() bool {
	for {
		if p.err != nil {
			return false
		}
		if p.cur != nil && p.i < len(p.cur.pkts) {
			return true
		}
		if p.cur != nil {
			if p.cur.err != nil {
				p.err = p.cur.err
				continue
			}
			p.giveBack(p.cur)
			p.cur = nil
		}
		b, ok := <-p.full
		if !ok {
			p.err = errClosed
			continue
		}
		p.cur, p.i = b, 0
	}
}

// giveBack takes a spent batch: the spent go back handBack at a time, and
// the ring widens or narrows here, as the heap has room or not.
func (p *Prefetch) giveBack(b *batch) {
	wide := b.small && p.roomy != nil && p.roomy()
	for ; wide && p.made < batches; p.made++ {
		p.free <- newBatch(roomOf(wide)) // never blocks: free has room for every batch
	}
	if !wide && p.made > narrow {
		p.made-- // out of circulation: its buffers are garbage
	} else {
		p.spent[p.nspent] = b
		p.nspent++
	}
	// Never all spent: the ring is widened first, and narrowed only by
	// batches leaving it.
	if p.nspent < handBack(wide) {
		return
	}
	for _, b := range p.spent[:p.nspent] {
		b.room = roomOf(wide || p.made > narrow) // whole once the ring is narrow again
		p.free <- b
	}
	clear(p.spent[:p.nspent])
	p.nspent = 0
}

// NextRef is Next without the copy: the packet stays owned by the batch and
// is valid until the next call.
func (p *Prefetch) NextRef() (*Packet, error) {
	if p.cur == nil || p.i >= len(p.cur.pkts) {
		if !p.next() {
			return nil, p.err
		}
	}
	p.i++
	return &p.cur.pkts[p.i-1], nil
}

// NextBatch returns the packets not yet returned of the current batch (at
// least one), or the source's error (io.EOF at the end). They stay owned by
// the batch, valid until the next call of NextBatch, NextRef or Next: a
// caller decoding them in a loop makes no call per packet.
func (p *Prefetch) NextBatch() ([]Packet, error) {
	if !p.next() {
		return nil, p.err
	}
	s := p.cur.pkts[p.i:]
	p.i = len(p.cur.pkts)
	return s, nil
}

// Next returns the next packet, or the source's error (io.EOF at the end).
func (p *Prefetch) Next(pkt *Packet) error {
	q, err := p.NextRef()
	if err != nil {
		return err
	}
	*pkt = *q
	return nil
}

// Close stops the reader goroutine and closes the source.
func (p *Prefetch) Close() error {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
	for range p.full { // let fill exit
	}
	return p.src.Close()
}

type closedError struct{}

func (closedError) Error() string { return "capture: prefetch closed" }

var errClosed error = closedError{}
