package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/active/impair"
	"github.com/rdx-project/rdx/active/rds"
	rdswire "github.com/rdx-project/rdx/dissect/rds"
	"github.com/rdx-project/rdx/internal/iostreams"
)

func init() {
	verbs = append(verbs, verbDef{"rds", func(io *iostreams.IO) *cobra.Command { return newCmdRds(io, nil, nil) }})
}

// RdsOptions are the flags of `rdx rds listen` and `rdx rds send`.
type RdsOptions struct {
	IO      *iostreams.IO
	Host    string
	Port    int
	Addr    string // listen: local address
	Output  string // listen -o
	File    string // send FILE or -
	Count   int    // listen: stop after N messages
	Sums    string // one line per message: sha256, length, ports, path, seq
	Size    int    // send: message size
	Sizes   string // send: message sizes in turn
	Sport   int
	Dport   int
	Paths   int
	Timeout time.Duration
	Stats   bool
	Impair  string
	Cut     int64 // hidden: cut a path's TCP connection at this stream offset (tests)

	sizes []int
	spec  impair.Spec
}

func newCmdRds(io *iostreams.IO, listenF, sendF func(*RdsOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rds",
		Short: "Exchange RDS datagrams over TCP (port 16385) with rdx's userspace RDS/TCP stack",
		Long: `rdx rds listen and rdx rds send speak RDS over TCP as Linux rds_tcp does
(wire protocol 3.1): up to 8 paths (TCP connections) per address pair, the
handshake probe with NPATHS and GEN_NUM extension headers, congestion map
updates, per-path sequence numbers, messages resent with RDS_FLAG_RETRANSMITTED
after a reconnect, messages up to 1 MiB written in 4096-octet pieces.

A Linux peer accepts RDS/TCP connections only from a lower address than its
own (it resets the SYN and dials back): run rdx rds send from the lower one.`,
	}
	cmd.AddCommand(newCmdRdsListen(io, listenF), newCmdRdsSend(io, sendF))
	return cmd
}

func rdsFlags(cmd *cobra.Command, o *RdsOptions) {
	f := cmd.Flags()
	f.IntVar(&o.Port, "port", rdswire.Port, "TCP port (Linux rds_tcp: 16385)")
	f.IntVar(&o.Paths, "paths", rdswire.MaxPaths, "paths (TCP connections) to offer in the handshake, 1-8")
	f.StringVar(&o.Sums, "sums", "", "write one line per message to FILE: sha256, length, source, destination port, path, seq")
	f.DurationVar(&o.Timeout, "timeout", 10*time.Second, "give up a connect, a congested port or unacknowledged data after this; listen: exit after this long without a message")
	f.BoolVar(&o.Stats, "stats", false, "print the endpoint's counters on standard error at the end")
	f.StringVar(&o.Impair, "impair", "", "faults on sent RDS messages (a unit = one message written to TCP): "+impair.Usage)
	f.Int64Var(&o.Cut, "test-cut", 0, "testing: close a path's TCP connection once it has carried N octets (mid-message), to force a reconnect")
	f.MarkHidden("test-cut")
}

func newCmdRdsListen(io *iostreams.IO, runF func(*RdsOptions) error) *cobra.Command {
	o := &RdsOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "listen [--port P] [-o FILE]",
		Short: "Accept RDS/TCP connections and write the messages' payloads to FILE (or standard output)",
		Long: `Accept RDS/TCP connections and write every message's payload, in arrival
order, to FILE (or standard output). Exits after --count messages, when every
peer has closed its connections, or after --timeout without a message.`,
		Example: `  rdx rds listen -o received.bin --sums received.sums
  rdx rds listen --port 16385 --count 10 --addr 192.0.2.2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return rdsListen(o)
		},
	}
	rdsFlags(cmd, o)
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "write the payloads to FILE instead of standard output")
	cmd.Flags().StringVar(&o.Addr, "addr", "", "local address to listen on (default: all)")
	cmd.Flags().IntVar(&o.Count, "count", 0, "exit after N messages (0: when the peers close)")
	return cmd
}

func newCmdRdsSend(io *iostreams.IO, runF func(*RdsOptions) error) *cobra.Command {
	o := &RdsOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "send HOST [--port P] [FILE|-]",
		Short: "Send FILE (or standard input) as RDS messages; exit 0 once TCP acknowledged them all",
		Example: `  rdx rds send 198.51.100.1 big.bin
  rdx rds send 192.0.2.200 --sizes 1,100,5000,1048576 --sport 4001 --dport 4000 data.bin`,
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
			return rdsSend(o)
		},
	}
	rdsFlags(cmd, o)
	f := cmd.Flags()
	f.IntVar(&o.Size, "size", rdswire.MaxMsgLen, "octets per message (up to 1048576, RDS_MAX_MSG_SIZE)")
	f.StringVar(&o.Sizes, "sizes", "", "message sizes in turn, comma-separated (repeated until the input ends; a 0 is sent while input remains); overrides --size")
	f.IntVar(&o.Sport, "sport", 4001, "source RDS port (the port an RDS socket is bound to)")
	f.IntVar(&o.Dport, "dport", 4000, "destination RDS port")
	return cmd
}

func (o *RdsOptions) check() error {
	if o.Port < 1 || o.Port > 65535 {
		return usageErr("--port %d: want 1-65535", o.Port)
	}
	if o.Paths < 1 || o.Paths > rdswire.MaxPaths {
		return usageErr("--paths %d: want 1-%d", o.Paths, rdswire.MaxPaths)
	}
	if o.Timeout <= 0 {
		return usageErr("--timeout must be positive")
	}
	if o.Count < 0 {
		return usageErr("--count %d: want 0 or more", o.Count)
	}
	if o.Host != "" { // send
		if o.Size < 0 || o.Size > rdswire.MaxMsgLen {
			return usageErr("--size %d: want 0-%d", o.Size, rdswire.MaxMsgLen)
		}
		if o.Sport < 1 || o.Sport > 65535 || o.Dport < 1 || o.Dport > 65535 {
			return usageErr("--sport %d --dport %d: want 1-65535 (port 0 is RDS ping)", o.Sport, o.Dport)
		}
		o.sizes = []int{o.Size}
		if o.Sizes != "" {
			o.sizes = o.sizes[:0]
			for _, s := range strings.Split(o.Sizes, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil || n < 0 || n > rdswire.MaxMsgLen {
					return usageErr("--sizes %s: %q is not a size 0-%d", o.Sizes, s, rdswire.MaxMsgLen)
				}
				o.sizes = append(o.sizes, n)
			}
		}
		if !slices.ContainsFunc(o.sizes, func(n int) bool { return n > 0 }) {
			return usageErr("message sizes of 0 only would never consume the input")
		}
	}
	var err error
	if o.spec, err = impair.Parse(o.Impair); err != nil {
		return usageErr("--impair: %v", err)
	}
	return nil
}

func (o *RdsOptions) config() rds.Config {
	cfg := rds.Config{NPaths: o.Paths, Timeout: o.Timeout, Log: o.IO.ErrOut, CutAt: o.Cut}
	if o.spec.Active() {
		cfg.Impair = impair.New(o.spec)
		cfg.Impair.Log = o.IO.ErrOut
	}
	return cfg
}

func (o *RdsOptions) printStats(s rds.Stats) {
	if o.Stats {
		fmt.Fprintf(o.IO.ErrOut, "rds stats: msgs_sent=%d msgs_rcvd=%d bytes_sent=%d bytes_rcvd=%d retransmits=%d reconnects=%d duplicates=%d gaps=%d pings=%d pongs=%d cong_sent=%d cong_rcvd=%d\n",
			s.MsgsSent, s.MsgsRcvd, s.BytesSent, s.BytesRcvd, s.Retransmits, s.Reconnects, s.Duplicates, s.Gaps, s.Pings, s.Pongs, s.CongSent, s.CongRcvd)
	}
}

// sumsFile writes the --sums lines.
type sumsFile struct {
	f  *os.File
	bw *bufio.Writer
}

func openSums(path string) (*sumsFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return &sumsFile{f: f, bw: bufio.NewWriter(f)}, nil
}

func (s *sumsFile) line(data []byte, from string, dport uint16, path int, seq uint64) {
	if s != nil {
		fmt.Fprintf(s.bw, "%x %d from %s to %d path %d seq %d\n", sha256.Sum256(data), len(data), from, dport, path, seq)
	}
}

func (s *sumsFile) close() error {
	if s == nil {
		return nil
	}
	err := s.bw.Flush()
	if e := s.f.Close(); err == nil {
		err = e
	}
	return err
}

func rdsListen(o *RdsOptions) error {
	ctx, cancel := context.WithCancel(context.Background())
	intr := notifyInterrupt(o.IO.ErrOut)
	intr.OnStop(cancel)
	defer func() { intr.Release(); cancel() }()
	var out io.Writer = o.IO.Out
	if o.Output != "" && o.Output != "-" {
		f, err := os.Create(o.Output)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		defer f.Close()
		out = f
	}
	bw := bufio.NewWriterSize(out, 256<<10)
	sums, err := openSums(o.Sums)
	if err != nil {
		return err
	}
	addr := net.JoinHostPort(o.Addr, strconv.Itoa(o.Port))
	ep, err := rds.Listen(addr, o.config())
	if err != nil {
		sums.close()
		return &exitError{code: exitUsage, err: fmt.Errorf("rds listen %s: %w", addr, err)}
	}
	fmt.Fprintf(o.IO.ErrOut, "rdx: rds: listening on %s\n", ep.Addr())
	gone := ep.PeersDown()
	n := 0
	var rerr error
	msgs := ep.Messages()
	idle := time.NewTimer(o.Timeout)
	defer idle.Stop()
recv:
	for o.Count == 0 || n < o.Count {
		var m rds.Message
		select {
		case m = <-msgs:
		case <-gone:
			// every path is down, so every reader has queued what it had
			select {
			case m = <-msgs:
			default:
				break recv
			}
		case <-idle.C:
			rerr = &exitError{code: exitUsage, err: fmt.Errorf("rds listen: no message for %v after %d messages", o.Timeout, n)}
			break recv
		case <-ctx.Done():
			fmt.Fprintf(o.IO.ErrOut, "rdx: rds: interrupted after %d messages\n", n)
			break recv
		}
		idle.Reset(o.Timeout)
		n++
		sums.line(m.Data, netip.AddrPortFrom(m.Peer, m.Sport).String(), m.Dport, m.Path, m.Seq)
		if _, err := bw.Write(m.Data); err != nil {
			rerr = &exitError{code: exitUsage, err: err}
			break
		}
	}
	ep.Close()
	if err := bw.Flush(); err != nil && rerr == nil {
		rerr = &exitError{code: exitUsage, err: err}
	}
	if err := sums.close(); err != nil && rerr == nil {
		rerr = &exitError{code: exitUsage, err: err}
	}
	o.printStats(ep.Stats())
	return rerr
}

func rdsSend(o *RdsOptions) error {
	ctx, cancel := context.WithCancel(context.Background())
	intr := notifyInterrupt(o.IO.ErrOut)
	intr.OnStop(cancel)
	defer func() { intr.Release(); cancel() }()
	dst, err := resolve(o.Host)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
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
	sums, err := openSums(o.Sums)
	if err != nil {
		return err
	}
	defer sums.close()
	where := netip.AddrPortFrom(dst, uint16(o.Port))
	c, err := rds.Dial(ctx, where, o.config())
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("rds send: %w", err)}
	}
	buf := make([]byte, rdswire.MaxMsgLen)
	br := bufio.NewReaderSize(in, 64<<10)
	n := 0
	for i := 0; ; i++ {
		// the input's end ends the messages, even before a size 0 turn
		if _, err := br.Peek(1); err == io.EOF {
			break
		}
		size := o.sizes[i%len(o.sizes)]
		k, rerr := io.ReadFull(br, buf[:size])
		if rerr != nil && rerr != io.ErrUnexpectedEOF && rerr != io.EOF {
			c.Endpoint().Close()
			return &exitError{code: exitUsage, err: rerr}
		}
		if err := c.Send(ctx, uint16(o.Sport), uint16(o.Dport), buf[:k]); err != nil {
			c.Endpoint().Close()
			o.printStats(c.Endpoint().Stats())
			return &exitError{code: exitUsage, err: fmt.Errorf("rds send to %s after %d messages: %w", where, n, err)}
		}
		n++
		sums.line(buf[:k], "-", uint16(o.Dport), int(o.Sport)%c.Paths(), 0)
		if rerr == io.ErrUnexpectedEOF {
			break
		}
	}
	err = c.Close(ctx)
	o.printStats(c.Endpoint().Stats())
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("rds send to %s: %w", where, err)}
	}
	fmt.Fprintf(o.IO.ErrOut, "rdx: rds: %d messages sent to %s, all acknowledged\n", n, where)
	return nil
}
