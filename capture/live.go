//go:build linux

package capture

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gopacket/gopacket/afpacket"
	xbpf "golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/rdx-project/rdx/capture/bpf"
)

// LiveOptions configure a live capture.
type LiveOptions struct {
	Iface     string
	Snaplen   int    // 0: 262144
	NoPromisc bool   // promiscuous unless set (tshark -p)
	Filter    string // capture filter; "" accepts everything
	Direction string // "in", "out", or "" / "inout" for both (tcpdump -Q)
}

// DefaultSnaplen is what tcpdump and tshark use.
const DefaultSnaplen = 262144

// Live reads packets from an interface through an AF_PACKET TPACKET_V3 ring
// (no libpcap, no cgo). It implements Source: Next returns io.EOF after
// Stop.
type Live struct {
	tp      *afpacket.TPacket
	name    string
	snaplen int
	// user is the filter run in user space: always for VLAN filters (the
	// kernel filter sees frames with the tag removed), and for frames that
	// reached the ring before the kernel filter was attached.
	user      *xbpf.VM
	userAll   bool
	attached  time.Time
	stop      atomic.Bool
	captured  atomic.Uint64
	closed    bool
	lastStats LiveStats
}

// LiveStats are the kernel's counters for the socket (tcpdump's "received by
// filter" and "dropped by kernel") and the packets Next returned.
type LiveStats struct {
	Captured uint64
	Received uint64
	Dropped  uint64
}

// pollTimeout bounds how long Next blocks, so Stop takes effect promptly.
const pollTimeout = 100 * time.Millisecond

// OpenLive opens iface for capture. Its errors say what to do: no such
// interface, interface down, not permitted.
func OpenLive(o LiveOptions) (*Live, error) {
	if o.Snaplen <= 0 || o.Snaplen > DefaultSnaplen {
		o.Snaplen = DefaultSnaplen
	}
	if err := CheckInterface(o.Iface); err != nil {
		return nil, err
	}
	prog, err := bpf.Compile(o.Filter, o.Snaplen)
	if err != nil {
		return nil, err
	}
	// Blocks of 1 MiB hold a full 256 KiB frame; 32 of them give the
	// reader 32 MiB of slack before the kernel drops.
	tp, err := afpacket.NewTPacket(
		afpacket.OptInterface(o.Iface),
		afpacket.OptTPacketVersion(afpacket.TPacketVersion3),
		afpacket.OptFrameSize(1<<16),
		afpacket.OptBlockSize(1<<20),
		afpacket.OptNumBlocks(32),
		afpacket.OptBlockTimeout(10*time.Millisecond),
		afpacket.OptPollTimeout(pollTimeout),
		afpacket.OptAddVLANHeader(true), // frames as they were on the wire
	)
	if err != nil {
		return nil, LiveError(o.Iface, err)
	}
	l := &Live{tp: tp, name: o.Iface, snaplen: o.Snaplen}
	kernel := prog.Insns
	if prog.VLAN {
		// Accept everything (cut to snaplen) in the kernel; filter here.
		kernel = []xbpf.Instruction{xbpf.RetConstant{Val: uint32(o.Snaplen)}}
		l.userAll = true
	}
	// The direction is the packet type the kernel gives the filter (as
	// libpcap does for -Q); prepending keeps the program's relative jumps.
	switch o.Direction {
	case "", "inout":
	case "in", "out":
		skip := xbpf.JumpIf{Cond: xbpf.JumpEqual, Val: unix.PACKET_OUTGOING, SkipTrue: 0, SkipFalse: 1}
		if o.Direction == "out" {
			skip.SkipTrue, skip.SkipFalse = 1, 0
		}
		kernel = append([]xbpf.Instruction{xbpf.LoadExtension{Num: xbpf.ExtType}, skip, xbpf.RetConstant{Val: 0}}, kernel...)
	default:
		tp.Close()
		return nil, fmt.Errorf("direction %q: want in, out or inout", o.Direction)
	}
	raw, err := xbpf.Assemble(kernel)
	if err != nil {
		tp.Close()
		return nil, err
	}
	if err := tp.SetBPF(raw); err != nil {
		tp.Close()
		return nil, LiveError(o.Iface, fmt.Errorf("attaching the capture filter: %w", err))
	}
	l.attached = time.Now()
	if l.user, err = xbpf.NewVM(prog.Insns); err != nil {
		tp.Close()
		return nil, err
	}
	if !o.NoPromisc {
		if err := tp.SetPromiscuous(true); err != nil {
			tp.Close()
			return nil, LiveError(o.Iface, fmt.Errorf("promiscuous mode: %w", err))
		}
	}
	// Counters start at zero once the filter is in place.
	tp.InitSocketStats()
	return l, nil
}

// CheckInterface turns the common mistakes (no such interface, down, not
// Ethernet) into plain messages before a socket is opened.
func CheckInterface(name string) error {
	if name == "" {
		return errors.New("no interface given (-i IFACE)")
	}
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		var names []string
		if all, err := net.Interfaces(); err == nil {
			for _, i := range all {
				names = append(names, i.Name)
			}
		}
		return fmt.Errorf("no such interface %q (interfaces: %s)", name, strings.Join(names, ", "))
	}
	if ifi.Flags&net.FlagUp == 0 {
		return fmt.Errorf("interface %s is down (ip link set %s up)", name, name)
	}
	// Only Ethernet framing (ARPHRD_ETHER 1, loopback 772) is written as
	// LINKTYPE_ETHERNET and understood by the filter compiler.
	if b, err := os.ReadFile("/sys/class/net/" + name + "/type"); err == nil {
		if t := strings.TrimSpace(string(b)); t != "1" && t != "772" {
			return fmt.Errorf("interface %s is not Ethernet (ARPHRD %s); only Ethernet capture is supported", name, t)
		}
	}
	return nil
}

// LiveError explains a packet-socket error on iface.
func LiveError(iface string, err error) error {
	switch {
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return fmt.Errorf("%s: not permitted: packet sockets need root or CAP_NET_RAW (setcap cap_net_raw+ep rdx)", iface)
	case errors.Is(err, unix.ENETDOWN):
		return fmt.Errorf("interface %s is down (ip link set %s up)", iface, iface)
	case errors.Is(err, unix.ENODEV), errors.Is(err, unix.ENXIO):
		return fmt.Errorf("no such interface %q", iface)
	}
	return fmt.Errorf("capture on %s: %w", iface, err)
}

// Next waits for the next packet that passes the filter. p.Data is valid
// until the next call. After Stop it returns io.EOF.
func (l *Live) Next(p *Packet) error {
	for {
		if l.stop.Load() || l.closed {
			return io.EOF
		}
		data, ci, err := l.tp.ZeroCopyReadPacketData()
		if err != nil {
			if errors.Is(err, afpacket.ErrTimeout) || errors.Is(err, unix.EINTR) {
				continue
			}
			return &Error{File: l.name, Frame: l.captured.Load() + 1, Msg: err.Error()}
		}
		if l.userAll || ci.Timestamp.Before(l.attached) {
			n, err := l.user.Run(data)
			if err != nil || n == 0 {
				continue
			}
		}
		if len(data) > l.snaplen {
			data = data[:l.snaplen]
		}
		*p = Packet{
			Data:     data,
			TimeNS:   ci.Timestamp.UnixNano(),
			CapLen:   len(data),
			WireLen:  max(ci.Length, len(data)),
			LinkType: LinkEthernet,
		}
		l.captured.Add(1)
		return nil
	}
}

// Stop makes Next return io.EOF within the poll timeout; safe from any
// goroutine (a signal handler, a timer).
func (l *Live) Stop() { l.stop.Store(true) }

// Stats reads the kernel counters (which the kernel resets on every read;
// afpacket accumulates them).
func (l *Live) Stats() LiveStats {
	if !l.closed {
		if _, s3, err := l.tp.SocketStats(); err == nil {
			l.lastStats = LiveStats{Received: uint64(s3.Packets()), Dropped: uint64(s3.Drops())}
		}
	}
	s := l.lastStats
	s.Captured = l.captured.Load()
	return s
}

// Snaplen is the snapshot length in use.
func (l *Live) Snaplen() int { return l.snaplen }

// Close releases the socket; call it from the goroutine that calls Next.
func (l *Live) Close() error {
	if !l.closed {
		l.Stats()
		l.closed = true
		l.tp.Close()
	}
	return nil
}

// Queue reads a source on its own goroutine into a bounded queue of copies,
// for sources whose packets come when they come (a live interface, a pipe):
// its reader can ask whether a packet is waiting (Ready) before it would
// block, to flush output while the source is quiet, and can give up
// waiting (cancel) even while the source is blocked in a read.
type Queue struct {
	src    Source
	stop   func()
	cancel <-chan struct{}
	full   chan *Packet
	free   chan *Packet
	done   chan struct{}
	filled chan struct{} // closed when the reader goroutine has returned
	ferr   error         // the source's last error, set before full is closed
	cur    *Packet
	closed bool
}

// queueDepth is how many packets the queue holds ahead of its reader (each
// slot's buffer is reused, so memory is bounded by queueDepth × the largest
// packet).
const queueDepth = 256

// NewQueue starts reading src. stop, if not nil, makes a blocked src.Next
// return (Live.Stop); cancel, if not nil, makes Next return io.EOF when
// closed, whatever src is doing.
func NewQueue(src Source, stop func(), cancel <-chan struct{}) *Queue {
	q := &Queue{src: src, stop: stop, cancel: cancel, full: make(chan *Packet, queueDepth),
		free: make(chan *Packet, queueDepth+1), done: make(chan struct{}), filled: make(chan struct{})}
	for range queueDepth + 1 {
		q.free <- &Packet{}
	}
	go q.fill()
	return q
}

func (q *Queue) fill() {
	defer close(q.filled)
	defer close(q.full)
	var pkt Packet
	for {
		var p *Packet
		select {
		case p = <-q.free:
		case <-q.done:
			return
		}
		if err := q.src.Next(&pkt); err != nil {
			q.ferr = err
			return
		}
		data := append(p.Data[:0], pkt.Data...)
		*p = pkt
		p.Data = data
		select {
		case q.full <- p:
		case <-q.done:
			return
		}
	}
}

// Ready reports whether a packet is waiting, i.e. Next will not block.
func (q *Queue) Ready() bool { return len(q.full) > 0 }

// NextRef returns the next packet, valid until the next call.
func (q *Queue) NextRef() (*Packet, error) {
	if q.cur != nil {
		q.free <- q.cur
		q.cur = nil
	}
	select {
	case p, ok := <-q.full:
		if !ok {
			return nil, q.ferr
		}
		q.cur = p
		return p, nil
	case <-q.cancel:
		return nil, io.EOF
	}
}

// Next copies the next packet's description into p.
func (q *Queue) Next(p *Packet) error {
	r, err := q.NextRef()
	if err != nil {
		return err
	}
	*p = *r
	return nil
}

// Close stops the reader. With a stop function it waits for the reader to
// finish and closes the source from here (as Live wants); without one the
// reader may be blocked for good in a read (a silent pipe): then it and the
// source are left to the end of the process, since closing the source under
// a running Next would race with it.
func (q *Queue) Close() error {
	if q.closed {
		return nil
	}
	q.closed = true
	close(q.done)
	if q.stop != nil {
		q.stop()
		<-q.filled
	}
	select {
	case <-q.filled:
		return q.src.Close()
	default:
		return nil
	}
}
