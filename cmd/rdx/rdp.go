package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/rdx-project/rdx/active/impair"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/active/rdp"
	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/iostreams"
)

func init() {
	verbs = append(verbs, verbDef{"rdp", func(io *iostreams.IO) *cobra.Command { return newCmdRdp(io, nil, nil) }})
}

// RdpOptions are the flags of `rdx rdp listen` and `rdx rdp send`.
type RdpOptions struct {
	IO          *iostreams.IO
	Host        string
	Port        int
	Output      string // listen -o
	File        string // send FILE or -
	Unsequenced bool
	MSS         int
	Window      int
	Transport   string // auto, ip, udp
	UDPPort     int
	Pcap        string
	Timeout     time.Duration
	Linger      time.Duration
	Stats       bool
	Impair      string // active/impair spec for the segments this side sends
	impairSpec  impair.Spec
	shim        *impair.Shim
}

func (o *RdpOptions) impair(t rdp.Transport) rdp.Transport {
	if !o.impairSpec.Active() {
		return t
	}
	if o.shim == nil {
		o.shim = impair.New(o.impairSpec)
		o.shim.Log = o.IO.ErrOut
	}
	return rdp.Impair(t, o.shim)
}

// newCmdRdp groups listen and send; their runF hooks replace the runs.
func newCmdRdp(io *iostreams.IO, listenF, sendF func(*RdpOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rdp",
		Short: "Move data over RDP (RFC 908/1151, IP protocol 27) with rdx's userspace stack",
		Long: `rdx rdp listen and rdx rdp send talk RDP version 2 (RFC 1151) with rdx's
userspace stack: one message per segment, cumulative ACKs and EACKs,
retransmission from a smoothed RTT estimate, NUL keepalives, RST close.

--transport ip sends raw IPv4 protocol 27 (needs root or CAP_NET_RAW);
--transport udp puts each segment in a UDP datagram to --udp-port (no
privileges). The default, auto, is ip when running as root and udp otherwise;
both ends must use the same transport. Over raw IP a sender to a port where
nothing listens gets no answer (the kernel knows nothing of RDP ports) and
times out; over UDP the ICMP port unreachable is reported as a refusal.`,
	}
	cmd.AddCommand(newCmdRdpListen(io, listenF), newCmdRdpSend(io, sendF))
	return cmd
}

func rdpFlags(cmd *cobra.Command, o *RdpOptions) {
	f := cmd.Flags()
	f.IntVar(&o.Port, "port", 0, "RDP port (1-65535, required)")
	f.BoolVar(&o.Unsequenced, "unsequenced", false, "ask for arrival-order delivery (SDM off); sequenced wins if either side asks for it")
	f.IntVar(&o.MSS, "mss", 1024, "max segment size: largest message accepted, and the size of the messages sent (octets)")
	f.IntVar(&o.Window, "window", 16, "max outstanding segments the peer may send (my receive window, 1-256)")
	f.StringVar(&o.Transport, "transport", "auto", "ip (raw IPv4 protocol 27, root), udp, or auto (ip as root, else udp)")
	f.IntVar(&o.UDPPort, "udp-port", rdp.DefaultUDPPort, "UDP port of the listener with --transport udp")
	f.StringVar(&o.Pcap, "pcap", "", "record the segments sent and received as raw IPv4 frames (pcap, link type 228)")
	f.DurationVar(&o.Timeout, "timeout", 10*time.Second, "give up when the peer is silent this long")
	f.BoolVar(&o.Stats, "stats", false, "print the connection's counters on standard error at the end")
	f.StringVar(&o.Impair, "impair", "", impair.Usage)
	cmd.MarkFlagRequired("port")
}

func newCmdRdpListen(io *iostreams.IO, runF func(*RdpOptions) error) *cobra.Command {
	o := &RdpOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "listen --port P [-o FILE]",
		Short: "Accept one RDP connection and print what arrives (or write it to FILE); exit when the peer closes",
		Example: `  rdx rdp listen --port 7000 -o received.bin
  rdx rdp listen --port 7000 --transport udp --udp-port 9000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return rdpListen(o)
		},
	}
	rdpFlags(cmd, o)
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "write the data to FILE instead of standard output")
	return cmd
}

func newCmdRdpSend(io *iostreams.IO, runF func(*RdpOptions) error) *cobra.Command {
	o := &RdpOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "send HOST --port P [FILE|-]",
		Short: "Send FILE (or standard input) over RDP; exit 0 once the peer acknowledged everything",
		Example: `  rdx rdp send 198.51.100.1 --port 7000 big.iso
  echo hello | rdx rdp send localhost --port 7000 --transport udp`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Host = args[0]
			if len(args) == 2 {
				o.File = args[1]
			}
			if err := o.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return rdpSend(o)
		},
	}
	rdpFlags(cmd, o)
	cmd.Flags().DurationVar(&o.Linger, "linger", time.Second, "stay in CLOSE-WAIT this long after closing, answering a peer that missed the RST")
	return cmd
}

func (o *RdpOptions) check() error {
	if o.Port < 1 || o.Port > 65535 {
		return usageErr("--port %d: want 1-65535", o.Port)
	}
	if o.MSS < 1 || o.MSS > 8192 {
		return usageErr("--mss %d: want 1-8192", o.MSS)
	}
	if o.Window < 1 || o.Window > 256 {
		return usageErr("--window %d: want 1-256", o.Window)
	}
	if o.UDPPort < 1 || o.UDPPort > 65535 {
		return usageErr("--udp-port %d: want 1-65535", o.UDPPort)
	}
	if o.Timeout <= 0 {
		return usageErr("--timeout must be positive")
	}
	sp, err := impair.Parse(o.Impair)
	if err != nil {
		return usageErr("--impair: %v", err)
	}
	o.impairSpec = sp
	switch o.Transport {
	case "auto":
		o.Transport = "udp"
		if os.Geteuid() == 0 {
			o.Transport = "ip"
		}
	case "ip", "udp":
	default:
		return usageErr("--transport %s: want ip, udp or auto", o.Transport)
	}
	return nil
}

func (o *RdpOptions) config() rdp.Config {
	return rdp.Config{MaxOutstanding: o.Window, MaxSegment: o.MSS, Unsequenced: o.Unsequenced,
		UserTimeout: o.Timeout, CloseWait: max(o.Linger, 100*time.Millisecond), Keepalive: 300 * time.Millisecond}
}

// pcapTrace records segments as raw IPv4 frames (link type 228).
type pcapTrace struct {
	mu  sync.Mutex
	f   *os.File
	bw  *bufio.Writer
	pw  *capture.PcapWriter
	buf []byte
	err error
}

func openPcap(path string) (*pcapTrace, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	bw := bufio.NewWriter(f)
	pw, err := capture.NewPcapWriter(bw, capture.LinkIPv4, 65535, true)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &pcapTrace{f: f, bw: bw, pw: pw}, nil
}

func (p *pcapTrace) trace(_ bool, seg []byte, src, dst netip.Addr) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = rdp.IPv4Frame(p.buf[:0], src, dst, seg)
	if err := p.pw.WritePacket(&capture.Packet{Data: p.buf, TimeNS: time.Now().UnixNano()}); err != nil && p.err == nil {
		p.err = err
	}
}

func (p *pcapTrace) close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.bw.Flush()
	if e := p.f.Close(); err == nil {
		err = e
	}
	if p.err != nil {
		err = p.err
	}
	return err
}

func (o *RdpOptions) where() string {
	if o.Transport == "udp" {
		return fmt.Sprintf("%s port %d (UDP port %d)", o.Host, o.Port, o.UDPPort)
	}
	return fmt.Sprintf("%s port %d", o.Host, o.Port)
}

// explain turns stack errors into messages that name the peer.
func (o *RdpOptions) explain(err error, what string) error {
	switch {
	case errors.Is(err, rdp.ErrRefused):
		how := "RST"
		if o.Transport == "udp" {
			how = "RST or ICMP port unreachable"
		}
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %s refused the connection (%s)", what, o.where(), how)}
	case errors.Is(err, rdp.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: no answer from %s after %v (timeout)", what, o.where(), o.Timeout)}
	case errors.Is(err, rdp.ErrReset):
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %s reset the connection (RST)", what, o.where())}
	case errors.Is(err, context.Canceled):
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: interrupted", what)}
	}
	return &exitError{code: exitUsage, err: fmt.Errorf("%s: %s: %w", what, o.where(), err)}
}

func (o *RdpOptions) transport(dst netip.Addr) (rdp.Transport, netip.AddrPort, error) {
	if o.Transport == "ip" {
		t, err := rdp.ListenRawIP(netip.Addr{})
		if err != nil {
			return nil, netip.AddrPort{}, &exitError{code: exitUsage, err: fmt.Errorf("raw IP protocol 27 socket: %w (needs root or CAP_NET_RAW; try --transport udp)", err)}
		}
		return o.impair(t), netip.AddrPortFrom(dst, 0), nil
	}
	if !dst.IsValid() {
		t, err := rdp.ListenUDP(netip.AddrPortFrom(netip.IPv6Unspecified(), uint16(o.UDPPort)))
		if err != nil {
			return nil, netip.AddrPort{}, &exitError{code: exitUsage, err: fmt.Errorf("UDP port %d: %w", o.UDPPort, err)}
		}
		return o.impair(t), netip.AddrPort{}, nil
	}
	link := netip.AddrPortFrom(dst, uint16(o.UDPPort))
	t, err := rdp.DialUDP(link)
	if err != nil {
		return nil, netip.AddrPort{}, &exitError{code: exitUsage, err: err}
	}
	return o.impair(t), link, nil
}

func (o *RdpOptions) printStats(s rdp.Stats) {
	if !o.Stats {
		return
	}
	fmt.Fprintf(o.IO.ErrOut, "rdp stats: segs_sent=%d segs_rcvd=%d data_sent=%d data_rcvd=%d bytes_sent=%d bytes_rcvd=%d retransmits=%d fast_retransmits=%d timeouts=%d acks_sent=%d eacks_sent=%d eacks_rcvd=%d out_of_order=%d duplicates=%d nuls_sent=%d dropped=%d\n",
		s.SegsSent, s.SegsRcvd, s.DataSent, s.DataRcvd, s.BytesSent, s.BytesRcvd, s.Retransmits, s.FastRetransmits, s.Timeouts,
		s.AcksSent, s.EACKsSent, s.EACKsRcvd, s.OutOfOrder, s.Duplicates, s.NULsSent, s.Dropped)
}

// printEndpointStats reports what the listening endpoint turned away; the
// evictions always, since they mean someone sent SYNs that never completed
// (a SYN flood, or a very lossy path).
func (o *RdpOptions) printEndpointStats(s rdp.EndpointStats) {
	if s.Evicted > 0 {
		fmt.Fprintf(o.IO.ErrOut, "rdx: rdp: evicted %d half-open connections to admit new SYNs (SYN flood?)\n", s.Evicted)
	}
	if o.Stats {
		fmt.Fprintf(o.IO.ErrOut, "rdp endpoint: received=%d invalid=%d bad_checksum=%d other_port=%d rsts_sent=%d evicted_half_open=%d\n",
			s.Received, s.Invalid, s.BadChecksum, s.OtherPort, s.RSTsSent, s.Evicted)
	}
}

// progress shows a status line on a terminal only; the returned func
// erases it (and may be called again).
func (o *RdpOptions) progress(c *rdp.Conn, verb string) func() {
	m, _ := newProgress(o.IO, true, verb)
	m.Status(func() string {
		s, st := c.Stats(), c.Status()
		n := s.BytesSent
		if verb == "received" {
			n = s.BytesRcvd
		}
		return fmt.Sprintf("%s %d KiB, %s, unacked %d, retransmits %d, rtt %v", verb, n>>10, st.State, st.Unacked, s.Retransmits, st.SRTT.Round(time.Microsecond))
	})
	m.Start()
	return m.Stop
}

// interruptCtx is a context that SIGINT and SIGTERM cancel; the stack's
// calls all take it, so a signal ends them at once.
func (o *RdpOptions) interruptCtx() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	intr := notifyInterrupt(o.IO.ErrOut)
	intr.OnStop(cancel)
	return ctx, func() { intr.Release(); cancel() }
}

func rdpListen(o *RdpOptions) error {
	ctx, cancel := o.interruptCtx()
	defer cancel()
	o.Host = "listener"
	var out io.Writer = o.IO.Out
	var file *os.File
	if o.Output != "" && o.Output != "-" {
		var err error
		if file, err = os.Create(o.Output); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		defer file.Close()
		out = file
	}
	bw := bufio.NewWriterSize(out, 256<<10)
	var pt *pcapTrace
	cfg := o.config()
	if o.Pcap != "" {
		var err error
		if pt, err = openPcap(o.Pcap); err != nil {
			return err
		}
		cfg.Trace = pt.trace
	}
	tr, _, err := o.transport(netip.Addr{})
	if err != nil {
		pt.close()
		return err
	}
	ep := rdp.NewEndpoint(tr, uint16(o.Port), cfg)
	ep.Listen()
	c, err := ep.Accept(ctx)
	if err != nil {
		es := ep.Stats()
		ep.Close()
		pt.close()
		o.printEndpointStats(es)
		if errors.Is(err, context.Canceled) {
			// Stopped by the user, as a capture is: nothing went wrong.
			fmt.Fprintln(o.IO.ErrOut, "rdx: rdp: interrupted before any connection")
			return nil
		}
		return o.explain(err, "listen")
	}
	stop := o.progress(c, "received")
	var rerr error
	for {
		b, err := c.Recv(ctx)
		if err == io.EOF {
			break
		}
		if errors.Is(err, context.Canceled) {
			// What arrived is written out; the peer sees our RST.
			fmt.Fprintf(o.IO.ErrOut, "rdx: rdp: interrupted after %d octets received\n", c.Stats().BytesRcvd)
			c.Close()
			break
		}
		if err != nil {
			rerr = o.explain(err, "receive")
			break
		}
		if _, err := bw.Write(b); err != nil {
			rerr = &exitError{code: exitUsage, err: err}
			break
		}
	}
	stop()
	s := c.Stats()
	es := ep.Stats()
	ep.Close()
	if err := bw.Flush(); err != nil && rerr == nil {
		rerr = &exitError{code: exitUsage, err: err}
	}
	if err := pt.close(); err != nil && rerr == nil {
		rerr = &exitError{code: exitUsage, err: err}
	}
	o.printStats(s)
	o.printEndpointStats(es)
	return rerr
}

func resolve(host string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap(), nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip4", host)
	if err != nil || len(addrs) == 0 {
		return netip.Addr{}, fmt.Errorf("cannot resolve %s: %v", host, err)
	}
	return addrs[0].Unmap(), nil
}

func rdpSend(o *RdpOptions) error {
	ctx, cancel := o.interruptCtx()
	defer cancel()
	dst, err := resolve(o.Host)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if o.Transport == "ip" && !dst.Is4() {
		return usageErr("%s: --transport ip speaks IPv4 only", o.Host)
	}
	var in io.Reader = o.IO.In
	if o.File != "" && o.File != "-" {
		f, err := os.Open(o.File)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		defer f.Close()
		in = f
	}
	cfg := o.config()
	var pt *pcapTrace
	if o.Pcap != "" {
		if pt, err = openPcap(o.Pcap); err != nil {
			return err
		}
		cfg.Trace = pt.trace
	}
	defer pt.close()
	tr, link, err := o.transport(dst)
	if err != nil {
		return err
	}
	// An ephemeral local RDP port (RFC 1151: allocable ports are >= 1024).
	lport := uint16(49152 + rand.IntN(16384))
	if int(lport) == o.Port {
		lport++
	}
	ep := rdp.NewEndpoint(tr, lport, cfg)
	defer ep.Close()
	dctx, dcancel := context.WithTimeout(ctx, o.Timeout)
	c, err := ep.Dial(dctx, link, uint16(o.Port))
	dcancel()
	if err != nil {
		return o.explain(err, "send")
	}
	stop := o.progress(c, "sent")
	defer stop()
	chunk := min(o.MSS, c.Status().SendMax)
	buf := make([]byte, chunk)
	var total int64
	for {
		n, rerr := io.ReadFull(in, buf)
		if n > 0 {
			if err := c.Send(ctx, buf[:n]); err != nil {
				stop()
				o.printStats(c.Stats())
				return o.explain(fmt.Errorf("after %d octets: %w", total, err), "send")
			}
			total += int64(n)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			c.Close()
			return &exitError{code: exitUsage, err: rerr}
		}
	}
	if err := c.WaitAcked(ctx); err != nil {
		stop()
		o.printStats(c.Stats())
		return o.explain(fmt.Errorf("%d segments unacknowledged: %w", c.Status().Unacked, err), "send")
	}
	// Everything is acknowledged, so RDP's close loses nothing (Faber §2).
	c.Close()
	lctx, lcancel := context.WithTimeout(ctx, o.Linger)
	c.WaitClosed(lctx)
	lcancel()
	stop()
	o.printStats(c.Stats())
	return nil
}
