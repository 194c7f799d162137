package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/active/replay"
	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/iostreams"
)

func init() { verbs = append(verbs, verbDef{"replay", verb(newCmdReplay)}) }

// ReplayOptions are `rdx replay`'s flags, named after tcpreplay's.
type ReplayOptions struct {
	IO       *iostreams.IO
	File     string
	Iface    string
	TopSpeed bool
	Speed    float64
	PPS      float64
	Mbps     float64
	Loop     int
	Rewrite  []string
	DryRun   bool
	Limit    int
	Stats    int
	timed    bool // a rate flag was given: --dry-run keeps the timing
}

func newCmdReplay(io *iostreams.IO, runF func(*ReplayOptions) error) *cobra.Command {
	o := &ReplayOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "replay FILE -i IFACE",
		Short: "Send the frames of a capture out of an interface, like tcpreplay",
		Long: `Send the frames of a capture out of an interface, like tcpreplay.

--rewrite changes addresses and ports and fixes what they invalidate: the
IPv4 header checksum, the TCP/UDP checksum (recomputed over a whole
datagram; adjusted per RFC 1624 in IPv4 fragments and frames cut by the
snapshot length, so the reassembled datagram still checks) and the RoCEv2
ICRC. A zero UDP checksum over IPv4 (none) stays zero. A frame whose
checksums cannot be fixed (headers cut by the snapshot length or by their
own length fields, source routes, IPsec, a RoCEv2 packet not whole in the
frame) is skipped, not sent with its old addresses, and counted by reason
in the closing summary.`,
		Example: `  rdx replay pcaps/rx/pts-ops.pcap -i veth0 --topspeed
  rdx replay FILE -i veth0 --speed 2 --loop 3
  rdx replay FILE -i veth0 --pps 1000 --rewrite ip.dst=198.51.100.2 --rewrite udp.dstport=7000
  rdx replay FILE --dry-run --rewrite eth.dst=02:00:00:00:00:02
  rdx replay FILE -i veth0 -L 100 --stats 1 --pps 10`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			for _, n := range []string{"topspeed", "speed", "pps", "mbps"} {
				o.timed = o.timed || cmd.Flags().Changed(n)
			}
			if runF != nil {
				return runF(o)
			}
			return replayRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Iface, "interface", "i", "", "interface to send on (not needed with --dry-run)")
	f.BoolVarP(&o.TopSpeed, "topspeed", "t", false, "send as fast as possible")
	f.Float64VarP(&o.Speed, "speed", "x", 1, "multiply the recorded rate by X (2 = twice as fast)")
	f.Float64VarP(&o.PPS, "pps", "p", 0, "send N packets per second")
	f.Float64VarP(&o.Mbps, "mbps", "M", 0, "send at N megabits per second")
	f.IntVarP(&o.Loop, "loop", "l", 1, "send the file N times")
	f.StringArrayVar(&o.Rewrite, "rewrite", nil, "FIELD=VALUE, FIELD one of "+strings.Join(replay.RewriteFields, ", ")+" (repeatable)")
	f.BoolVarP(&o.DryRun, "dry-run", "n", false, "print what would be sent, send nothing; at once unless --speed, --pps or --mbps is given")
	f.IntVarP(&o.Limit, "limit", "L", 0, "send at most N packets (as tcpreplay -L)")
	f.IntVar(&o.Stats, "stats", 0, "print the counts every N seconds while sending (as tcpreplay --stats)")
	return cmd
}

func replayRun(o *ReplayOptions) error {
	modes := 0
	for _, on := range []bool{o.TopSpeed, o.PPS != 0, o.Mbps != 0, o.Speed != 1} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return usageErr("choose one of --topspeed, --speed, --pps, --mbps")
	}
	if o.Speed <= 0 || o.PPS < 0 || o.Mbps < 0 || o.Loop < 1 {
		return usageErr("--speed, --pps and --mbps must be positive, --loop at least 1")
	}
	if o.Limit < 0 || o.Stats < 0 {
		return usageErr("-L and --stats want a count of at least 0")
	}
	ro := replay.Options{TopSpeed: o.TopSpeed, Speed: o.Speed, PPS: o.PPS, Mbps: o.Mbps, Loop: o.Loop, Limit: uint64(o.Limit)}
	if o.DryRun && !o.timed { // nothing goes on the wire: no reason to wait out the capture
		ro.TopSpeed = true
	}
	if o.Stats > 0 {
		ro.StatsEvery = time.Duration(o.Stats) * time.Second
		ro.Progress = func(st replay.Stats) {
			fmt.Fprintf(o.IO.ErrOut, "rdx: %d packets, %d bytes in %.3f s so far (%.0f packets/s, %.2f Mbit/s)\n",
				st.Packets, st.Bytes, st.Elapsed.Seconds(), st.PPS(), st.Mbps())
		}
	}
	for _, r := range o.Rewrite {
		rw, err := replay.ParseRewrite(r)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		ro.Rewrites = append(ro.Rewrites, rw)
	}
	// Fail on a bad file before touching the interface.
	if src, err := capture.Open(o.File); err != nil {
		return &exitError{code: exitUsage, err: err}
	} else {
		src.Close()
	}
	// The status line on a terminal (not among --dry-run's lines on it):
	// each loop's position in the file, frames sent, rate.
	prog, pio := newProgress(o.IO, !o.DryRun || !o.IO.IsStdoutTTY(), "replay")
	prog.Rounds("loop")
	part := prog.Part(fileSize(o.File))
	open := func() (capture.Source, error) { return capture.OpenWith(o.File, part.Open) }

	var send replay.Sender
	out := newTimedOut(o.IO.Out, 64<<10) // --dry-run lines show as frames go, even at --pps 1
	defer out.Close()
	var each func(uint64, time.Duration, []byte, replay.Reason)
	if o.DryRun {
		send = replay.DryRun{}
		each = func(n uint64, at time.Duration, b []byte, why replay.Reason) {
			if why != replay.OK {
				fmt.Fprintf(out, "%6d %12.6f %5d  skipped: %s\n", n, at.Seconds(), len(b), why)
				return
			}
			fmt.Fprintf(out, "%6d %12.6f %5d  %s\n", n, at.Seconds(), len(b), replay.Summary(b))
		}
	} else {
		if o.Iface == "" {
			return usageErr("no interface: use rdx replay FILE -i IFACE (or --dry-run)")
		}
		s, err := replay.OpenInterface(o.Iface)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		defer s.Close()
		send = s
	}
	if prog != nil {
		shown := each
		each = func(n uint64, at time.Duration, b []byte, why replay.Reason) {
			part.SetFrames(n)
			if shown != nil {
				shown(n, at, b, why)
			}
		}
	}
	intr := notifyInterrupt(pio.ErrOut)
	defer intr.Release()
	prog.Start()
	st, err := replay.Run(open, send, ro, each, intr.Done())
	prog.Stop()
	intr.Ack()
	verb := "sent"
	if o.DryRun {
		verb = "would send"
	}
	out.Close()
	fmt.Fprintf(o.IO.ErrOut, "rdx: %s %d packets, %d bytes in %.3f s (%.0f packets/s, %.2f Mbit/s)\n",
		verb, st.Packets, st.Bytes, st.Elapsed.Seconds(), st.PPS(), st.Mbps())
	if n := st.SkippedTotal(); n > 0 {
		// As tcpreplay counts failed packets: the rest were still sent.
		var why []string
		for r, c := range st.Skipped {
			if c > 0 {
				why = append(why, fmt.Sprintf("%d %s", c, replay.Reason(r)))
			}
		}
		fmt.Fprintf(o.IO.ErrOut, "rdx: skipped %d frames: %s\n", n, strings.Join(why, "; "))
	}
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	return nil
}
