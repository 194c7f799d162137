package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rdx-project/rdx/active/impair"
	"github.com/rdx-project/rdx/active/rx"
	"github.com/rdx-project/rdx/dissect/afs"
	wire "github.com/rdx-project/rdx/dissect/rx"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/pipeline"
)

func init() {
	verbs = append(verbs, verbDef{"rx", func(io *iostreams.IO) *cobra.Command { return newCmdRx(io) }})
}

// RxOptions are the flags every `rdx rx` verb shares.
type RxOptions struct {
	IO      *iostreams.IO
	Target  string
	Impair  string
	Pcap    string
	Timeout time.Duration
	NoJumbo bool
	Verbose bool

	shim *impair.Shim
	rec  *rx.Recorder
	pcap *os.File
}

func rxFlags(f *pflag.FlagSet, o *RxOptions) {
	f.StringVar(&o.Impair, "impair", "", impair.Usage)
	f.StringVar(&o.Pcap, "pcap", "", "record every datagram sent and received into FILE (pcap, raw IPv4)")
	f.DurationVar(&o.Timeout, "timeout", 15*time.Second, "give up after this long")
	f.BoolVar(&o.NoJumbo, "no-jumbo", false, "never send jumbograms (rdx sends them when the peer's ACK trailer allows)")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "log retransmissions, aborts and impairments on standard error")
}

func newCmdRx(io *iostreams.IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rx",
		Short: "Talk Rx (AFS RPC over UDP) to a server with rdx's userspace stack: version, debug, ping, call, serve",
		Long: `rdx rx speaks Rx with rxnull security (no authentication) through rdx's own
userspace stack (package active/rx): calls on the four channels of a
connection, ACKs with the ack window and the MTU/window trailer,
retransmission on timeout and NACK, jumbograms, ACK pings and aborts.

  version HOST[:PORT]        the VERSION packet, as rxdebug -version
  debug HOST[:PORT]          the DEBUG packets, as rxdebug (--conns, --peers, --stats)
  ping HOST[:PORT]           ACK ping round trip time inside a held call
  call HOST[:PORT] SVC OP    one no-auth RPC (vl, pr, bos, vote, fs), reply decoded as rdx read shows it
  serve --port P             answer VERSION, DEBUG and echo calls (for rxdebug/udebug)

Every verb takes --impair (drop, duplicate, reorder, corrupt the Nth datagram
sent) and --pcap FILE (the exchange as sent and received, decodable by rdx
read and rdx check). rxdebug's single-dash flags (-conns, -peers, -rxstats,
-allconnections, -version) are accepted too.`,
	}
	cmd.AddCommand(newCmdRxVersion(io), newCmdRxDebug(io), newCmdRxPing(io), newCmdRxCall(io), newCmdRxServe(io))
	return cmd
}

// rxdebugArgs turns rxdebug's single-dash long flags into pflag's form.
func rxdebugArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			switch a[1:] {
			case "conns", "peers", "stats", "rxstats", "allconnections", "noconns", "version", "long", "impair", "pcap", "timeout":
				a = "-" + a
			}
		}
		out[i] = a
	}
	return out
}

// defaultRxPort is the port when HOST has none: the fileserver's, as rxdebug.
const defaultRxPort = 7000

func parseRxTarget(s string) (netip.AddrPort, error) {
	host, port := s, strconv.Itoa(defaultRxPort)
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	}
	pn, err := strconv.ParseUint(port, 10, 16)
	if err != nil || pn == 0 {
		return netip.AddrPort{}, usageErr("%s: bad port %q", s, port)
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return netip.AddrPort{}, usageErr("%s: %v", s, err)
	}
	for _, ip := range ips {
		if a, ok := netip.AddrFromSlice(ip); ok && a.Unmap().Is4() {
			return netip.AddrPortFrom(a.Unmap(), uint16(pn)), nil
		}
	}
	return netip.AddrPort{}, usageErr("%s: no IPv4 address (Rx is IPv4-only)", s)
}

// endpoint opens the verb's Rx endpoint with its impairment and recording.
// client is a client verb's endpoint on any local port, and the context
// its exchange has (--timeout).
func (o *RxOptions) client(cfg rx.Config) (*rx.Endpoint, context.Context, context.CancelFunc, error) {
	e, err := o.endpoint(":0", cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	return e, ctx, cancel, nil
}

func (o *RxOptions) endpoint(laddr string, cfg rx.Config) (*rx.Endpoint, error) {
	sp, err := impair.Parse(o.Impair)
	if err != nil {
		return nil, usageErr("--impair: %v", err)
	}
	if sp.Active() {
		o.shim = impair.New(sp)
		o.shim.Log = o.IO.ErrOut
		cfg.Impair = o.shim
	}
	if o.Pcap != "" {
		if o.pcap, err = os.Create(o.Pcap); err != nil {
			return nil, &exitError{code: exitUsage, err: err}
		}
		if o.rec, err = rx.NewRecorder(o.pcap); err != nil {
			return nil, err
		}
		cfg.Trace = o.rec.Trace
	}
	cfg.Jumbo = !o.NoJumbo
	if o.Verbose {
		cfg.Log = o.IO.ErrOut
	}
	e, err := rx.Listen(laddr, cfg)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return e, nil
}

// finish closes the endpoint and the recording.
func (o *RxOptions) finish(e *rx.Endpoint) error {
	e.Close()
	if o.rec == nil {
		return nil
	}
	err := o.rec.Flush()
	if cerr := o.pcap.Close(); err == nil {
		err = cerr
	}
	return err
}

func rxTargetArgs(o *RxOptions, min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || len(args) > max {
			return usageErr("%s: want %s", cmd.Name(), cmd.Use)
		}
		o.Target = args[0]
		return nil
	}
}

func newCmdRxVersion(io *iostreams.IO) *cobra.Command {
	o := &RxOptions{IO: io}
	cmd := &cobra.Command{
		Use:     "version HOST[:PORT]",
		Short:   "Ask an Rx server for its version string (VERSION packet, as rxdebug -version)",
		Example: "  rdx rx version afsdb1.example.org:7003",
		Args:    rxTargetArgs(o, 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			to, err := parseRxTarget(o.Target)
			if err != nil {
				return err
			}
			e, ctx, cancel, err := o.client(rx.Config{})
			if err != nil {
				return err
			}
			defer cancel()
			v, err := e.Version(ctx, to)
			ferr := o.finish(e)
			if err != nil {
				return fmt.Errorf("rx version %v: %w", to, err)
			}
			fmt.Fprintf(io.Out, "AFS version: %s\n", v)
			return ferr
		},
	}
	rxFlags(cmd.Flags(), o)
	return cmd
}

func newCmdRxDebug(io *iostreams.IO) *cobra.Command {
	o := &RxOptions{IO: io}
	var conns, all, peers, stats, noconns, version, long bool
	cmd := &cobra.Command{
		Use:   "debug HOST[:PORT] [--conns|--allconnections] [--peers] [--stats]",
		Short: "Query an Rx server's statistics, connections and peers (DEBUG packets, as rxdebug)",
		Long: `debug sends the DEBUG packets rxdebug sends (struct rx_debugIn: GETSTATS,
GETCONN, GETALLCONN, GETPEER, RXSTATS) and prints the replies. Without a flag
it prints the server's basic statistics and its interesting connections
(those with an active call), as rxdebug does.`,
		Example: `  rdx rx debug 198.51.100.7:7000 --peers
  rdx rx debug 198.51.100.7:7003 -allconnections -rxstats`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmd.Flags().Parse(rxdebugArgs(args)); err != nil {
				return usageErr("%v", err)
			}
			if h, _ := cmd.Flags().GetBool("help"); h {
				return cmd.Help()
			}
			args = cmd.Flags().Args()
			if len(args) != 1 {
				return usageErr("debug: want HOST[:PORT]")
			}
			to, err := parseRxTarget(args[0])
			if err != nil {
				return err
			}
			e, ctx, cancel, err := o.client(rx.Config{})
			if err != nil {
				return err
			}
			defer cancel()
			d := &rxDebugger{e: e, to: to, ctx: ctx, w: io.Out}
			if version {
				err = d.version()
			} else {
				err = d.stats()
				if err == nil && !noconns && (conns || all || !(peers || stats)) {
					err = d.conns(all)
				}
				if err == nil && peers {
					err = d.peers(long)
				}
				if err == nil && stats {
					err = d.rxstats()
				}
			}
			ferr := o.finish(e)
			if err != nil {
				return fmt.Errorf("rx debug %v: %w", to, err)
			}
			return ferr
		},
	}
	f := cmd.Flags()
	rxFlags(f, o)
	f.BoolVar(&conns, "conns", false, "list the connections with an active call (GETCONN)")
	f.BoolVar(&all, "allconnections", false, "list every connection (GETALLCONN)")
	f.BoolVar(&peers, "peers", false, "list the peers (GETPEER)")
	f.BoolVar(&stats, "stats", false, "print the Rx counters (RXSTATS)")
	f.BoolVar(&stats, "rxstats", false, "same as --stats (rxdebug's name)")
	f.BoolVar(&noconns, "noconns", false, "print no connections")
	f.BoolVar(&version, "version", false, "print the version only (as rdx rx version)")
	f.BoolVar(&long, "long", false, "more peer detail")
	f.BoolP("help", "h", false, "help for debug")
	return cmd
}

type rxDebugger struct {
	e   *rx.Endpoint
	to  netip.AddrPort
	ctx context.Context
	w   io.Writer
}

func (d *rxDebugger) ask(typ, index uint32) ([]byte, error) {
	in := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, typ), index)
	b, err := d.e.Debug(d.ctx, d.to, wire.TypeDebug, in, 5)
	if err != nil {
		return nil, err
	}
	if len(b) >= 4 && binary.BigEndian.Uint32(b) == wire.DebugBadType {
		return nil, fmt.Errorf("the server does not know DEBUG type %d", typ)
	}
	return b, nil
}

func (d *rxDebugger) version() error {
	v, err := d.e.Version(d.ctx, d.to)
	if err == nil {
		fmt.Fprintf(d.w, "AFS version: %s\n", v)
	}
	return err
}

func be32(b []byte, off int) uint32 {
	if off+4 > len(b) {
		return 0
	}
	return binary.BigEndian.Uint32(b[off:])
}

func be16(b []byte, off int) uint16 {
	if off+2 > len(b) {
		return 0
	}
	return binary.BigEndian.Uint16(b[off:])
}

func (d *rxDebugger) stats() error {
	b, err := d.ask(wire.DebugGetStats, 0)
	if err != nil {
		return err
	}
	if len(b) < 16 {
		return fmt.Errorf("GETSTATS reply of %d octets (want %d)", len(b), wire.DebugStatsLen)
	}
	fmt.Fprintf(d.w, "Trying %v (port %d):\n", d.to.Addr(), d.to.Port())
	fmt.Fprintf(d.w, "Debug version %q, free packets: %d/%d, packet reclaims: %d, calls: %d, used FDs: %d\n",
		rune(b[14]), int32(be32(b, 0)), int32(be32(b, 28)), be32(b, 4), be32(b, 8), b[13])
	fmt.Fprintf(d.w, "%d calls waiting for a thread, %d threads are idle, %d calls have waited for a thread\n",
		int32(be32(b, 16)), int32(be32(b, 20)), int32(be32(b, 24)))
	return nil
}

// conns lists rx_debugConn replies until the end marker (at most
// rxMaxListing, so a server that never ends the list cannot loop us).
func (d *rxDebugger) conns(all bool) error {
	typ := uint32(wire.DebugGetConn)
	if all {
		typ = wire.DebugGetAllConn
	}
	n := 0
	for i := uint32(0); i < rxMaxListing; i++ {
		b, err := d.ask(typ, i)
		if err != nil {
			return err
		}
		if len(b) < 56 || be32(b, 4) == wire.DebugEnd {
			break
		}
		n++
		kind := "client"
		if b[35] == 1 {
			kind = "server"
		}
		fmt.Fprintf(d.w, "Connection from host %d.%d.%d.%d, port %d, Cuid %x/%x\n", b[0], b[1], b[2], b[3], be16(b, 32), be32(b, 132), be32(b, 4))
		fmt.Fprintf(d.w, "  serial %d, natMTU %d, flags 0x%x, security index %d, %s conn, error %d\n",
			be32(b, 8), be32(b, 136), b[34], b[36], kind, int32(be32(b, 28)))
		for c := range 4 {
			fmt.Fprintf(d.w, "    call %d: # %d, state %s, mode %d, flags 0x%x, other %d\n",
				c, be32(b, 12+4*c), rxCallState(b[40+c]), b[44+c], b[48+c], b[52+c])
		}
	}
	fmt.Fprintf(d.w, "Done, %d connections.\n", n)
	return nil
}

// rxMaxListing bounds a GETCONN/GETPEER listing.
const rxMaxListing = 10000

func rxCallState(s byte) string {
	switch s {
	case 0:
		return "not initialized"
	case 1:
		return "precall"
	case 2:
		return "active"
	case 3:
		return "dally"
	case 4:
		return "hold"
	case 5:
		return "reset"
	}
	return "state " + strconv.Itoa(int(s))
}

func (d *rxDebugger) peers(long bool) error {
	n := 0
	for i := uint32(0); i < rxMaxListing; i++ {
		b, err := d.ask(wire.DebugGetPeer, i)
		if err != nil {
			return err
		}
		if len(b) < 8 || be32(b, 0) == wire.DebugEnd {
			break
		}
		n++
		fmt.Fprintf(d.w, "Peer at host %d.%d.%d.%d, port %d\n", b[0], b[1], b[2], b[3], be16(b, 4))
		fmt.Fprintf(d.w, "\tifMTU %d\tnatMTU %d\tmaxMTU %d\n", be16(b, 6), be16(b, 60), be16(b, 62))
		fmt.Fprintf(d.w, "\tpackets sent %d\tpacket resends %d\n", be32(b, 40), be32(b, 44))
		fmt.Fprintf(d.w, "\tbytes sent high %d low %d\n\tbytes received high %d low %d\n", be32(b, 76), be32(b, 80), be32(b, 84), be32(b, 88))
		if long {
			fmt.Fprintf(d.w, "\trtt %d msec, rtt_dev %d msec\n", be32(b, 24)>>3, be32(b, 28)>>2)
			fmt.Fprintf(d.w, "\tmaxDgramPackets %d ifDgramPackets %d MTU %d cwind %d nDgramPackets %d congestSeq %d\n",
				be16(b, 64), be16(b, 66), be16(b, 68), be16(b, 70), be16(b, 72), be16(b, 74))
		}
	}
	fmt.Fprintf(d.w, "Done, %d peers.\n", n)
	return nil
}

// rxStatNames names struct rx_statistics' words (rx.h, OpenAFS 1.8).
var rxStatNames = func() []string {
	n := []string{"packetRequests", "receivePktAllocFailures", "sendPktAllocFailures", "specialPktAllocFailures",
		"socketGreedy", "bogusPacketOnRead", "bogusHost", "noPacketOnRead", "noPacketBuffersOnRead", "selects", "sendSelects"}
	types := []string{"data", "ack", "busy", "abort", "ackall", "challenge", "response", "debug", "params", "unused", "unused", "unused", "version"}
	for _, t := range types {
		n = append(n, "packetsRead["+t+"]")
	}
	n = append(n, "dataPacketsRead", "ackPacketsRead", "dupPacketsRead", "spuriousPacketsRead")
	for _, t := range types {
		n = append(n, "packetsSent["+t+"]")
	}
	return append(n, "ackPacketsSent", "pingPacketsSent", "abortPacketsSent", "busyPacketsSent", "dataPacketsSent",
		"dataPacketsReSent", "dataPacketsPushed", "ignoreAckedPacket", "totalRtt.sec", "totalRtt.usec", "minRtt.sec",
		"minRtt.usec", "maxRtt.sec", "maxRtt.usec", "nRttSamples", "nServerConns", "nClientConns", "nPeerStructs",
		"nCallStructs", "nFreeCallStructs", "netSendFailures", "fatalErrors", "ignorePacketDally",
		"receiveCbufPktAllocFailures", "sendCbufPktAllocFailures", "nBusies")
}()

func (d *rxDebugger) rxstats() error {
	b, err := d.ask(wire.DebugRxStats, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.w, "rx stats (%d octets):\n", len(b))
	for i := 0; i+4 <= len(b); i += 4 {
		name := "spare"
		if i/4 < len(rxStatNames) {
			name = rxStatNames[i/4]
		}
		if v := be32(b, i); v != 0 || !strings.HasPrefix(name, "packets") {
			fmt.Fprintf(d.w, "  %-28s %d\n", name, int32(v))
		}
	}
	return nil
}

func newCmdRxPing(io *iostreams.IO) *cobra.Command {
	o := &RxOptions{IO: io}
	var count int
	var service int
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "ping HOST[:PORT] [-c N] [--service ID]",
		Short: "Measure the round trip time with ACK pings (reason PING, answered by PING_RESPONSE)",
		Long: `ping opens a call with one empty DATA packet that does not end the request
(OpenAFS ignores ACKs for calls it does not have), sends ACK pings on it,
prints each PING_RESPONSE's round trip time, then aborts the call. The
service defaults to the one on the port: 7000 FS (1), 7002 PR (73), 7003 VL
(52), 7005 VOL (4), 7007 BOS (1).`,
		Example: "  rdx rx ping 198.51.100.7:7003 -c 5",
		Args:    rxTargetArgs(o, 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			to, err := parseRxTarget(o.Target)
			if err != nil {
				return err
			}
			if count < 1 {
				return usageErr("-c %d: want at least 1", count)
			}
			svc := uint16(service)
			if service < 0 {
				svc = rxPortService(to.Port())
			}
			e, ctx, cancel, err := o.client(rx.Config{})
			if err != nil {
				return err
			}
			defer cancel()
			c, err := e.Dial(to, svc)
			if err == nil {
				err = rxPing(ctx, c, count, interval, io.Out)
			}
			ferr := o.finish(e)
			if err != nil {
				return fmt.Errorf("rx ping %v: %w", to, err)
			}
			return ferr
		},
	}
	rxFlags(cmd.Flags(), o)
	cmd.Flags().IntVarP(&count, "count", "c", 3, "pings to send")
	cmd.Flags().IntVar(&service, "service", -1, "Rx service ID of the held call (default: by port)")
	cmd.Flags().DurationVarP(&interval, "interval", "i", 200*time.Millisecond, "time between pings")
	return cmd
}

func rxPing(ctx context.Context, c *rx.Conn, count int, interval time.Duration, w io.Writer) error {
	cl, err := c.Start(nil, false)
	if err != nil {
		return err
	}
	defer cl.Abort(rx.CodeCallDead)
	var sum, lo, hi time.Duration
	for i := range count {
		if i > 0 {
			time.Sleep(interval)
		}
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		rtt, err := cl.Ping(pctx)
		cancel()
		if err != nil {
			return fmt.Errorf("ping %d: %w", i+1, err)
		}
		fmt.Fprintf(w, "PING_RESPONSE from %v: call %d, time=%.3f ms\n", c.Addr(), cl.Number(), float64(rtt.Microseconds())/1000)
		sum += rtt
		if i == 0 || rtt < lo {
			lo = rtt
		}
		hi = max(hi, rtt)
	}
	fmt.Fprintf(w, "%d pings, rtt min/avg/max = %.3f/%.3f/%.3f ms\n", count,
		float64(lo.Microseconds())/1000, float64(sum.Microseconds())/1000/float64(count), float64(hi.Microseconds())/1000)
	return nil
}

// rxPortService is the Rx service a well-known AFS port serves.
func rxPortService(port uint16) uint16 {
	switch port {
	case 7002:
		return 73
	case 7003:
		return 52
	case 7005:
		return 4
	}
	return 1 // fileserver 7000, bosserver 7007, callbacks 7001
}

func newCmdRxServe(io *iostreams.IO) *cobra.Command {
	o := &RxOptions{IO: io}
	var port int
	var bind, version string
	var duration time.Duration
	cmd := &cobra.Command{
		Use:   "serve --port P",
		Short: "Answer VERSION and DEBUG packets and echo calls, so rxdebug can probe rdx",
		Long: `serve runs an Rx server on UDP port P until interrupted (or --duration): it
answers VERSION and the DEBUG family (GETSTATS, GETCONN, GETALLCONN, GETPEER,
RXSTATS) as an OpenAFS server does, and serves an echo service on every
service ID: the reply is the request's octets. Opcode 1 aborts the call with
code 1 (to see an ABORT); opcode 3 N replies with N octets (a bulk reply).`,
		Example: "  rdx rx serve --port 7010 &\n  rxdebug localhost 7010 -version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if port < 1 || port > 65535 {
				return usageErr("--port %d: want 1-65535", port)
			}
			if version == "" {
				version = "rdx " + rdxVersion()
			}
			self, _ := netip.ParseAddr(bind)
			handler := func(svc uint16, req []byte) ([]byte, uint32) { return rxEcho(svc, req, self) }
			e, err := o.endpoint(net.JoinHostPort(bind, strconv.Itoa(port)), rx.Config{Handler: handler, Version: version})
			if err != nil {
				return err
			}
			fmt.Fprintf(io.ErrOut, "rdx rx serve: listening on %v\n", e.LocalAddr())
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
			defer signal.Stop(sig)
			var tc <-chan time.Time
			if duration > 0 {
				tc = time.After(duration)
			}
			select {
			case <-sig:
			case <-tc:
			}
			s := e.Stats()
			fmt.Fprintf(io.ErrOut, "rdx rx serve: %d calls, %d DEBUG and %d VERSION requests answered\n",
				s.CallsExecuted, s.PacketsRead[wire.TypeDebug], s.PacketsRead[wire.TypeVersion])
			return o.finish(e)
		},
	}
	rxFlags(cmd.Flags(), o)
	cmd.Flags().IntVar(&port, "port", 0, "UDP port (required)")
	cmd.Flags().StringVar(&bind, "bind", "0.0.0.0", "address to bind")
	cmd.Flags().StringVar(&version, "version-string", "", "the VERSION reply (default \"rdx VERSION\")")
	cmd.Flags().DurationVar(&duration, "duration", 0, "stop after this long (default: until interrupted)")
	return cmd
}

// ubikVoteService is ubik's VOTE service ID (ubik_int.xg), which udebug asks.
const ubikVoteService = 50

// rxEcho is the served echo service (see serve's help), and ubik's VOTE
// Debug so udebug gets an answer: rdx is a ubik server with no database,
// not the sync site.
// self is the bound address, listed as the server's interface.
func rxEcho(svc uint16, req []byte, self netip.Addr) ([]byte, uint32) {
	if svc == ubikVoteService && len(req) >= 4 {
		switch op := binary.BigEndian.Uint32(req); op {
		case 10004, 10006: // VOTE_Debug, VOTE_XDebug: struct ubik_debug
			b := make([]byte, 4*28, 4*(28+256+1))
			now := uint32(time.Now().Unix())
			for _, w := range []int{0, 1, 4, 6, 8, 27} { // now, lastYesTime, lastYesClaim, lowestTime, syncTime, epochTime
				binary.BigEndian.PutUint32(b[4*w:], now)
			}
			addrs := make([]byte, 4*256) // interfaceAddr[UBIK_MAX_INTERFACE_ADDR]
			if self.Is4() && !self.IsUnspecified() {
				a := self.As4()
				copy(addrs, a[:])
			}
			b = append(b, addrs...)
			if op == 10006 {
				b = binary.BigEndian.AppendUint32(b, 0) // isClone
			}
			return b, 0
		case 10005, 10007: // VOTE_SDebug, VOTE_XSDebug: no such server (as OpenAFS)
			return nil, 2
		}
		return nil, rx.CodeRxgenOpcode
	}
	if len(req) >= 4 {
		switch binary.BigEndian.Uint32(req) {
		case 1:
			return nil, 1
		case 3:
			if len(req) >= 8 {
				n := min(int(binary.BigEndian.Uint32(req[4:])), rx.MaxCallData)
				b := make([]byte, n)
				for i := range b {
					b[i] = byte('a' + i%26)
				}
				return b, 0
			}
		}
	}
	return req, 0
}

func rdxVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// ---- rdx rx call ----

// rxService is one AFS service `rdx rx call` knows.
type rxService struct {
	id   uint16
	port uint16
	ops  map[string]uint32
}

var rxServices = map[string]rxService{
	"vl":   {52, 7003, map[string]uint32{"getentrybyname": 504, "getentrybynameu": 527, "getentrybyid": 503, "probe": 514}},
	"pr":   {73, 7002, map[string]uint32{"nametoid": 504, "idtoname": 505, "listmax": 510}},
	"bos":  {1, 7007, map[string]uint32{"getstatus": 83, "gettime": 0, "listkeys": 90}},
	"vote": {50, 7003, map[string]uint32{"debug": 10004, "xdebug": 10006, "getsyncsite": 10003}},
	"fs":   {1, 7000, map[string]uint32{"gettime": 153, "fetchstatus": 132}},
}

func init() {
	rxServices["pt"] = rxServices["pr"]
	rxServices["ubik"] = rxServices["vote"]
	delete(rxServices["bos"].ops, "gettime")
}

// rxCallArgs XDR-encodes an operation's arguments after its opcode. The
// known operations take their own types (PR name and id lists, the FS
// AFSFid); anything else encodes integers as int32 and other words as
// strings.
func rxCallArgs(svc string, op uint32, args []string) ([]byte, error) {
	b := binary.BigEndian.AppendUint32(nil, op)
	switch {
	case (svc == "pr" || svc == "pt") && op == 504:
		// NameToID(namelist): each name is char[PR_MAXNAMELEN=64], and
		// rxgen sends a fixed char array one XDR word per char
		b = binary.BigEndian.AppendUint32(b, uint32(len(args)))
		for _, a := range args {
			if len(a) >= 64 {
				return nil, usageErr("name %q: longer than 63 octets", a)
			}
			for i := range 64 {
				c := byte(0)
				if i < len(a) {
					c = a[i]
				}
				b = binary.BigEndian.AppendUint32(b, uint32(c))
			}
		}
		return b, nil
	case (svc == "pr" || svc == "pt") && op == 505: // IDToName(idlist)
		b = binary.BigEndian.AppendUint32(b, uint32(len(args)))
		for _, a := range args {
			v, err := strconv.ParseInt(a, 0, 32)
			if err != nil {
				return nil, usageErr("id %q: want an integer", a)
			}
			b = binary.BigEndian.AppendUint32(b, uint32(v))
		}
		return b, nil
	case svc == "fs" && op == 132: // FetchStatus(AFSFid VOLUME.VNODE.UNIQUE)
		if len(args) != 1 {
			return nil, usageErr("fs fetchstatus: want one FID VOLUME.VNODE.UNIQUE")
		}
		parts := strings.Split(args[0], ".")
		if len(parts) != 3 {
			return nil, usageErr("FID %q: want VOLUME.VNODE.UNIQUE", args[0])
		}
		for _, p := range parts {
			v, err := strconv.ParseUint(p, 0, 32)
			if err != nil {
				return nil, usageErr("FID %q: %q is not a number", args[0], p)
			}
			b = binary.BigEndian.AppendUint32(b, uint32(v))
		}
		return b, nil
	}
	for _, a := range args {
		if v, err := strconv.ParseInt(a, 0, 64); err == nil && v >= -1<<31 && v < 1<<32 {
			b = binary.BigEndian.AppendUint32(b, uint32(v))
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(a)))
		b = append(b, a...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
	}
	return b, nil
}

func newCmdRxCall(io *iostreams.IO) *cobra.Command {
	o := &RxOptions{IO: io}
	var raw bool
	cmd := &cobra.Command{
		Use:   "call HOST[:PORT] SERVICE OPCODE [ARG...]",
		Short: "Make one unauthenticated RPC and print the reply decoded as rdx read -V shows it",
		Long: `call makes one rxnull (no-auth) call. SERVICE is a name (vl, pr, bos, vote,
fs) or an Rx service ID; OPCODE a name or a number:

  vl   (7003, service 52)  GetEntryByNameU NAME (527), GetEntryByName NAME (504), GetEntryByID ID TYPE (503), Probe (514)
  pr   (7002, service 73)  NameToID NAME... (504), IDToName ID... (505), ListMax (510)
  bos  (7007, service 1)   GetStatus INSTANCE (83), ListKeys (90)
  vote (ubik port, 50)     Debug (10004), XDebug (10006), GetSyncSite (10003)
  fs   (7000, service 1)   GetTime (153), FetchStatus VOLUME.VNODE.UNIQUE (132)

Other operations: integer arguments are sent as XDR int32, others as XDR
strings. The port defaults to the service's. The exchange is decoded by rdx's
own dissectors (Rx and AFS) and the reply printed as a tree; --raw prints its
octets in hex instead. An ABORT exits 1 with the code and its name.`,
		Example: `  rdx rx call 198.51.100.7 vl GetEntryByNameU root.cell
  rdx rx call 198.51.100.7 pr NameToID admin anonymous
  rdx rx call 198.51.100.7:7007 bos GetStatus fs`,
		Args: rxTargetArgs(o, 3, 64),
		RunE: func(cmd *cobra.Command, args []string) error {
			svcName := strings.ToLower(args[1])
			svc, known := rxServices[svcName]
			if !known {
				id, err := strconv.ParseUint(args[1], 0, 16)
				if err != nil {
					return usageErr("service %q: want vl, pr, bos, vote, fs or a service ID", args[1])
				}
				svc = rxService{id: uint16(id), port: defaultRxPort}
			}
			op, ok := svc.ops[strings.ToLower(args[2])]
			if !ok {
				v, err := strconv.ParseUint(args[2], 0, 32)
				if err != nil {
					return usageErr("opcode %q: not an operation of %s and not a number", args[2], args[1])
				}
				op = uint32(v)
			}
			target := o.Target
			if _, _, err := net.SplitHostPort(target); err != nil {
				target = net.JoinHostPort(target, strconv.Itoa(int(svc.port)))
			}
			to, err := parseRxTarget(target)
			if err != nil {
				return err
			}
			req, err := rxCallArgs(svcName, op, args[3:])
			if err != nil {
				return err
			}
			return rxCall(o, to, svc.id, req, raw, known)
		},
	}
	rxFlags(cmd.Flags(), o)
	cmd.Flags().BoolVar(&raw, "raw", false, "print the reply's octets in hex, not decoded")
	return cmd
}

func rxCall(o *RxOptions, to netip.AddrPort, svc uint16, req []byte, raw, known bool) error {
	// the decode needs the exchange: record it (into a temporary file when
	// --pcap is not given)
	tmp := ""
	if o.Pcap == "" && !raw {
		f, err := os.CreateTemp("", "rdx-rx-call-*.pcap")
		if err != nil {
			return err
		}
		f.Close()
		tmp, o.Pcap = f.Name(), f.Name()
		defer func() { os.Remove(tmp); o.Pcap = "" }()
	}
	// a fileserver calls its new clients back (RXAFSCB on the client's
	// port, service 1) before it answers; a client that cannot answer
	// gets RX_CALL_DEAD
	e, ctx, cancel, err := o.client(rx.Config{Handler: afsCallback, Services: []uint16{1}})
	if err != nil {
		return err
	}
	defer cancel()
	var rep []byte
	c, err := e.Dial(to, svc)
	if err == nil {
		rep, err = c.Call(ctx, req)
	}
	if ferr := o.finish(e); err == nil && ferr != nil {
		err = ferr
	}
	var ae *rx.AbortError
	if errors.As(err, &ae) {
		name := rxAbortName(ae.Code)
		return &exitError{code: exitFindings, err: fmt.Errorf("rx call %v: ABORT code %d%s", to, int32(ae.Code), name)}
	}
	if err != nil {
		return fmt.Errorf("rx call %v: %w", to, err)
	}
	if raw {
		fmt.Fprintf(o.IO.Out, "reply: %d octets\n% x\n", len(rep), rep)
		return nil
	}
	return rxDecode(o.IO, o.Pcap, to.Port(), known)
}

// afsCallback is the cache-manager callback service (RXAFSCB) a client must
// answer for a fileserver to serve it: probes and callback breaks get an
// empty reply, TellMeAboutYourself and WhoAreYou the client's (empty)
// interface list under a random UUID.
func afsCallback(_ uint16, req []byte) ([]byte, uint32) {
	if len(req) < 4 {
		return nil, rx.CodeRxgenOpcode
	}
	switch binary.BigEndian.Uint32(req) {
	case 204, 206, 213, 214: // CallBack, Probe, InitCallBackState3, ProbeUuid
		return nil, 0
	case 212, 65538: // WhoAreYou, TellMeAboutYourself
		// struct interfaceAddr: count, afsUUID (11 words), 3×32 words
		b := make([]byte, 4+44+3*4*32)
		binary.BigEndian.PutUint32(b[4:], cbUUID)
		if binary.BigEndian.Uint32(req) == 65538 {
			b = binary.BigEndian.AppendUint32(b, 1) // Capabilities<>: one word
			b = binary.BigEndian.AppendUint32(b, 1) // CLIENT_CAPABILITY_ERRORTRANS
		}
		return b, 0
	}
	return nil, rx.CodeRxgenOpcode
}

// cbUUID is this process's callback UUID (time_low; the rest zero).
var cbUUID = uint32(time.Now().UnixNano())

func rxAbortName(code uint32) string {
	switch code {
	case rx.CodeCallDead:
		return " (RX_CALL_DEAD)"
	case rx.CodeInvalidOperation:
		return " (RX_INVALID_OPERATION)"
	case rx.CodeCallTimeout:
		return " (RX_CALL_TIMEOUT)"
	case rx.CodeProtocolError:
		return " (RX_PROTOCOL_ERROR)"
	case rx.CodeRxgenOpcode:
		return " (RXGEN_OPCODE)"
	}
	if n := afs.ErrorName(code); n != "" {
		return " (" + n + ")"
	}
	return ""
}

// rxDecode prints the recorded exchange's reply through the dissectors:
// the AFS layer of the reply, as rdx read -V -O afs shows it, or for a
// service rdx does not know the Rx layer of the reply's last packet.
func rxDecode(io *iostreams.IO, file string, port uint16, known bool) error {
	eo, err := engineOptions(&EngineFlags{DecodeAs: []string{"udp.port==" + strconv.Itoa(int(port)) + ",rx"}}, file)
	if err != nil {
		return err
	}
	// the server's packets only: a fileserver's callbacks to us and our
	// replies to them are in the recording too
	from := " && udp.srcport==" + strconv.Itoa(int(port))
	filter, only := "afs && rx.flags.client_init==0"+from, "afs"
	if !known {
		filter, only = "rx.type==1 && rx.flags.client_init==0 && rx.flags.last_packet==1"+from, "rx"
	}
	return runPipeline(io, pipeline.Config{
		Input:  pipeline.Input{File: file, ErrOut: io.ErrOut},
		Engine: eo,
		Filter: filter,
		Print:  pipeline.Print{Format: "text", Verbose: true, Only: []string{only}},
	}, "", false)
}
