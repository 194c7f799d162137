package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/active/impair"
	"github.com/rdx-project/rdx/active/iwarp"
	"github.com/rdx-project/rdx/internal/iostreams"
)

func init() {
	verbs = append(verbs, verbDef{"iwarp", func(io *iostreams.IO) *cobra.Command { return newCmdIwarp(io, nil) }})
}

// IwarpOptions are the flags of `rdx iwarp rping`: rping's own, then the
// MPA negotiation knobs.
type IwarpOptions struct {
	IO         *iostreams.IO
	Server     bool   // -s
	Client     bool   // -c
	Addr       string // -a
	Source     string // -I
	Port       int    // -p
	Count      int    // -C
	Size       int    // -S
	Verbose    bool   // -v
	Validate   bool   // -V
	Debug      bool   // -d
	Persistent bool   // -P
	SelfQP     bool   // -q: accepted, nothing to do (no verbs QP here)

	Rev       int
	CRC       bool
	CRCStrict bool
	Markers   bool
	IRD, ORD  int
	P2P       string
	Private   string
	Reject    bool
	MULPDU    int
	Impair    string
	Timeout   time.Duration

	cfg  iwarp.Config
	shim *impair.Shim
}

func newCmdIwarp(io *iostreams.IO, rpingF func(*IwarpOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "iwarp",
		Short: "Talk iWARP (MPA/DDP/RDMAP over TCP) with rdx's userspace stack",
		Long: `rdx iwarp runs rdx's userspace iWARP stack over an ordinary TCP socket:
MPA revision 1 (RFC 5044) or 2 (RFC 6581, enhanced IRD/ORD and peer-to-peer
RTR), CRC32c and markers as negotiated, DDP tagged and untagged segments,
RDMAP Send, RDMA Write, RDMA Read and Terminate. No RDMA hardware or kernel
module is needed, so it can face Linux siw, a NIC, or itself.`,
	}
	cmd.AddCommand(newCmdIwarpRping(io, rpingF))
	return cmd
}

func newCmdIwarpRping(io *iostreams.IO, runF func(*IwarpOptions) error) *cobra.Command {
	o := &IwarpOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "rping -s|-c -a ADDR [-p PORT] [-C COUNT] [-S SIZE] [-v] [-V]",
		Short: "rdma-core's rping over rdx's iWARP stack (interoperates with rping on siw)",
		Long: `rping speaks the protocol of rdma-core's rping (librdmacm/examples) over
MPA/TCP, as rping does on an iWARP device such as siw: the client advertises
a buffer with a Send, the server RDMA-Reads it, answers with a Send, the
client advertises a second buffer, the server RDMA-Writes the ping back and
answers again; -C pings, then the client disconnects. The flags are
rping's: -s server, -c client, -a address (the server's listen address or
the client's destination), -p port (7174), -C count (0: until interrupted),
-S size (26-65535, 64), -v print the ping data, -V validate it, -P keep
serving connections, -I source address, -d debug (negotiation and
Terminates on standard error). -q is accepted and does nothing.

The rest set the MPA negotiation: --rev, --crc (this side asks for CRCs;
they are on when either side asks), --crc-strict (refuse the other
outcome), --markers (this side asks for markers in what it receives),
--ird/--ord, --p2p (revision 2 peer-to-peer RTR types offered by the client
or accepted by the server: none, send, write, read, any; the server accepts
any unless told otherwise), --private (private
data), --reject (server: refuse every connection). --impair puts faults on
the FPDUs sent, one unit per FPDU: corrupt=N@OFF flips octet OFF of the Nth
FPDU so the peer's CRC check fails and it sends a Terminate. Exit status:
0 when every ping completed, 2 on a usage error, a refused or terminated
connection, or a -V mismatch.`,
		Example: `  rdx iwarp rping -s -a 198.51.100.1 -v
  rdx iwarp rping -c -a 198.51.100.1 -C 10 -S 100 -V -v --crc
  rdx iwarp rping -c -a 127.0.0.1 -C 3 --crc --impair corrupt=2@22`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return iwarpRping(o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.Server, "server", "s", false, "run the server")
	f.BoolVarP(&o.Client, "client", "c", false, "run the client")
	f.StringVarP(&o.Addr, "addr", "a", "", "server address (listen address with -s, destination with -c)")
	f.StringVarP(&o.Source, "source", "I", "", "client source address")
	f.IntVarP(&o.Port, "port", "p", iwarp.RpingPort, "TCP port")
	f.IntVarP(&o.Count, "count", "C", 0, "pings (client; 0: until interrupted)")
	f.IntVarP(&o.Size, "size", "S", iwarp.RpingSize, "ping buffer size")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "print the ping data")
	f.BoolVarP(&o.Validate, "validate", "V", false, "check the data written back (client)")
	f.BoolVarP(&o.Debug, "debug", "d", false, "print negotiation, Terminates and counters on standard error")
	f.BoolVarP(&o.Persistent, "persistent", "P", false, "server: keep serving connections")
	f.BoolVarP(&o.SelfQP, "self-qp", "q", false, "accepted for rping compatibility; no effect")
	f.IntVar(&o.Rev, "rev", 2, "highest MPA revision: 1 (RFC 5044) or 2 (RFC 6581)")
	f.BoolVar(&o.CRC, "crc", false, "ask for MPA CRCs (on when either side asks)")
	f.BoolVar(&o.CRCStrict, "crc-strict", false, "refuse a connection whose CRC outcome differs from --crc")
	f.BoolVar(&o.Markers, "markers", false, "ask for MPA markers in what this side receives")
	f.IntVar(&o.IRD, "ird", 1, "inbound RDMA Read depth (revision 2)")
	f.IntVar(&o.ORD, "ord", 1, "outbound RDMA Read depth (revision 2)")
	f.StringVar(&o.P2P, "p2p", "", "peer-to-peer RTR types offered (-c) or accepted (-s): none, send, write, read, any, comma-separated (default: none with -c; any with -s, so a peer-to-peer initiator such as siw with peer_to_peer=1 gets its RTR)")
	f.StringVar(&o.Private, "private", "", "MPA private data (after the IRD/ORD word)")
	f.BoolVar(&o.Reject, "reject", false, "server: reject every connection (--private is the reason)")
	f.IntVar(&o.MULPDU, "mulpdu", 0, "largest DDP segment sent (0: from the TCP MSS)")
	f.StringVar(&o.Impair, "impair", "", impair.Usage)
	f.DurationVar(&o.Timeout, "timeout", 0, "give up after this long (0: never)")
	return cmd
}

func (o *IwarpOptions) check() error {
	if o.Server == o.Client {
		return usageErr("give one of -s (server) and -c (client)")
	}
	if o.Addr == "" && o.Client {
		return usageErr("-a ADDR: the server's address")
	}
	if o.Port < 1 || o.Port > 65535 {
		return usageErr("-p %d: want 1-65535", o.Port)
	}
	if o.Size < iwarp.RpingMinSize || o.Size > iwarp.RpingMaxSize {
		return usageErr("-S %d: valid range is %d to %d", o.Size, iwarp.RpingMinSize, iwarp.RpingMaxSize)
	}
	if o.Count < 0 {
		return usageErr("-C %d: want 0 or more", o.Count)
	}
	if o.Rev != 1 && o.Rev != 2 {
		return usageErr("--rev %d: want 1 or 2", o.Rev)
	}
	if o.IRD < 0 || o.IRD > 0x3fff || o.ORD < 0 || o.ORD > 0x3fff {
		return usageErr("--ird/--ord: want 0-16383")
	}
	if o.MULPDU != 0 && (o.MULPDU < 128 || o.MULPDU > 64768) {
		return usageErr("--mulpdu %d: want 128-64768", o.MULPDU)
	}
	if o.P2P == "" {
		o.P2P = "none"
		if o.Server && o.Rev >= 2 {
			o.P2P = "any"
		}
	}
	p2p, err := iwarp.ParseRTR(o.P2P)
	if err != nil {
		return usageErr("--p2p: %v", err)
	}
	if p2p != 0 && o.Rev < 2 {
		return usageErr("--p2p needs --rev 2 (RFC 6581)")
	}
	spec, err := impair.Parse(o.Impair)
	if err != nil {
		return usageErr("--impair: %v", err)
	}
	o.cfg = iwarp.Config{Rev: uint8(o.Rev), CRC: o.CRC, CRCStrict: o.CRCStrict, Markers: o.Markers,
		IRD: uint16(o.IRD), ORD: uint16(o.ORD), P2P: p2p, Private: []byte(o.Private), Reject: o.Reject, MULPDU: o.MULPDU}
	if spec.Active() {
		o.shim = impair.New(spec)
		o.shim.Log = o.IO.ErrOut
		o.cfg.Impair = o.shim
	}
	if o.Debug {
		o.cfg.Log = o.IO.ErrOut
	}
	return nil
}

func (o *IwarpOptions) hostPort() string {
	return net.JoinHostPort(o.Addr, strconv.Itoa(o.Port))
}

func (o *IwarpOptions) rpingOpts() iwarp.RpingOptions {
	return iwarp.RpingOptions{Count: o.Count, Size: o.Size, Verbose: o.Verbose, Validate: o.Validate, Out: o.IO.Out}
}

func (o *IwarpOptions) fail(what string, err error) error {
	if errors.Is(err, context.Canceled) {
		return &exitError{code: exitUsage, err: fmt.Errorf("rping %s: interrupted", what)}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &exitError{code: exitUsage, err: fmt.Errorf("rping %s: no progress within --timeout %v", what, o.Timeout)}
	}
	return &exitError{code: exitUsage, err: fmt.Errorf("rping %s %s: %w", what, o.hostPort(), err)}
}

func (o *IwarpOptions) debugStats(c *iwarp.Conn) {
	if !o.Debug {
		return
	}
	s := c.Stats()
	fmt.Fprintf(o.IO.ErrOut, "iwarp stats: fpdus_sent=%d fpdus_rcvd=%d sends=%d sends_rcvd=%d writes=%d writes_rcvd=%d reads=%d reads_served=%d\n",
		s.FPDUsSent, s.FPDUsRcvd, s.Sends, s.SendsRcvd, s.Writes, s.WritesRcvd, s.Reads, s.ReadsServed)
}

func iwarpRping(o *IwarpOptions) error {
	ctx, cancel := context.WithCancel(context.Background())
	intr := notifyInterrupt(o.IO.ErrOut)
	intr.OnStop(cancel)
	defer func() { intr.Release(); cancel() }()
	if o.Timeout > 0 {
		var c2 context.CancelFunc
		ctx, c2 = context.WithTimeout(ctx, o.Timeout)
		defer c2()
	}
	if o.Server {
		return rpingServe(ctx, o)
	}
	return rpingClient(ctx, o)
}

func rpingClient(ctx context.Context, o *IwarpOptions) error {
	d := net.Dialer{}
	if o.Source != "" {
		ip := net.ParseIP(o.Source)
		if ip == nil {
			return usageErr("-I %s: not an IP address", o.Source)
		}
		d.LocalAddr = &net.TCPAddr{IP: ip}
	}
	nc, err := d.DialContext(ctx, "tcp", o.hostPort())
	if err != nil {
		return o.fail("connect", err)
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	c, err := iwarp.Client(nc, o.cfg)
	if err != nil {
		nc.Close()
		return o.fail("connect", err)
	}
	_, err = iwarp.RpingClient(ctx, c, o.rpingOpts())
	c.Close()
	o.debugStats(c)
	if err == nil {
		if cerr := c.Err(); cerr != nil && !errors.Is(cerr, io.EOF) {
			err = cerr
		}
	}
	if err != nil {
		if cerr := c.Err(); cerr != nil && !errors.Is(cerr, io.EOF) && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w (%v)", err, cerr)
		}
		return o.fail("client", err)
	}
	return nil
}

func rpingServe(ctx context.Context, o *IwarpOptions) error {
	l, err := net.Listen("tcp", o.hostPort())
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("rping server: %w", err)}
	}
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	defer l.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		nc, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return o.fail("server", ctx.Err())
			}
			return o.fail("server", err)
		}
		serve := func() error {
			stopC := context.AfterFunc(ctx, func() { nc.Close() })
			defer stopC()
			c, err := iwarp.Server(nc, o.cfg)
			if err != nil {
				nc.Close()
				return err
			}
			_, err = iwarp.RpingServer(ctx, c, o.rpingOpts())
			c.Close()
			o.debugStats(c)
			if err != nil {
				if cerr := c.Err(); cerr != nil && !errors.Is(cerr, io.EOF) && !errors.Is(err, cerr) {
					err = fmt.Errorf("%w (%v)", err, cerr)
				}
			}
			return err
		}
		if !o.Persistent {
			if err := serve(); err != nil {
				return o.fail("server", err)
			}
			return nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := serve(); err != nil {
				fmt.Fprintf(o.IO.ErrOut, "rdx: rping server: %s: %v\n", nc.RemoteAddr(), err)
			}
		}()
	}
}
