package capture

// Prefetch reads packets from a Source on its own goroutine, in batches, so
// reading and decoding use both cores. Batches are recycled: after warm-up
// no allocation happens per packet. Packet data stays valid until the next
// call to Next.
type Prefetch struct {
	src        Source
	full, free chan *batch
	done       chan struct{}
	cur        *batch
	i          int
	err        error
}

type batch struct {
	pkts []Packet
	offs []int
	buf  []byte
	err  error
}

// A batch ends at batchLen packets or batchBytes octets, whichever comes
// first: with 64 KiB frames a count alone let 4 batches hold 256 MiB.
const (
	batchLen   = 1024
	batchBytes = 1 << 20
)

// NewPrefetch starts reading src in the background.
func NewPrefetch(src Source) *Prefetch {
	p := &Prefetch{src: src, full: make(chan *batch, 4), free: make(chan *batch, 4), done: make(chan struct{})}
	for i := 0; i < 4; i++ {
		p.free <- &batch{pkts: make([]Packet, 0, batchLen), offs: make([]int, 0, batchLen)}
	}
	go p.fill()
	return p
}

func (p *Prefetch) fill() {
	defer close(p.full)
	for {
		var b *batch
		select {
		case b = <-p.free:
		case <-p.done:
			return
		}
		b.pkts, b.offs, b.buf, b.err = b.pkts[:0], b.offs[:0], b.buf[:0], nil
		var pkt Packet
		r, bulk := p.src.(*Reader)
		for len(b.pkts) < batchLen && len(b.buf) < batchBytes {
			if bulk { // what is buffered, without a call per record
				b.pkts, b.offs, b.buf = r.appendBuffered(b.pkts, b.offs, b.buf, batchLen, batchBytes)
				if len(b.pkts) == batchLen || len(b.buf) >= batchBytes {
					break
				}
			}
			if err := p.src.Next(&pkt); err != nil {
				b.err = err
				break
			}
			b.offs = append(b.offs, len(b.buf))
			b.buf = append(b.buf, pkt.Data...)
			b.pkts = append(b.pkts, pkt)
		}
		// the buffer may have moved while growing: point the packets at it now
		for i := range b.pkts {
			b.pkts[i].Data = b.buf[b.offs[i] : b.offs[i]+len(b.pkts[i].Data)]
		}
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

// NextRef is Next without the copy: the packet stays owned by the batch and
// is valid until the next call.
func (p *Prefetch) NextRef() (*Packet, error) {
	for {
		if p.err != nil {
			return nil, p.err
		}
		if p.cur != nil && p.i < len(p.cur.pkts) {
			p.i++
			return &p.cur.pkts[p.i-1], nil
		}
		if p.cur != nil {
			if p.cur.err != nil {
				p.err = p.cur.err
				continue
			}
			p.free <- p.cur
		}
		b, ok := <-p.full
		if !ok {
			p.err = errClosed
			continue
		}
		p.cur, p.i = b, 0
	}
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

// AppendBuffered appends every complete record already in the read buffer
// to pkts (its data copied to buf at offs), consuming it, up to maxPkts
// packets or maxBytes octets of buf, as Prefetch's batches do: for a caller
// that copies packets into batches of its own (rdx -j's reader), one call
// per bufferful instead of one Next per record. It returns at once for
// anything but a pcap file, and leaves to Next whatever it does not take (a
// record cut by the end of the buffer, one it must report). Each packet's
// Data is the record in the read buffer, valid until the next call.
func (r *Reader) AppendBuffered(pkts []Packet, offs []int, buf []byte, maxPkts, maxBytes int) ([]Packet, []int, []byte) {
	return r.appendBuffered(pkts, offs, buf, maxPkts, maxBytes)
}
