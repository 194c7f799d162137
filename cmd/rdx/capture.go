package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/internal/iostreams"
)

func init() { verbs = append(verbs, verbDef{"capture", verb(newCmdCapture)}) }

// CaptureOptions are `rdx capture`'s flags, named as dumpcap/tshark's.
type CaptureOptions struct {
	IO        *iostreams.IO
	Iface     string
	File      string
	Count     int
	Autostop  []string // duration:S, packets:N
	Filter    string
	Snaplen   int
	NoPromisc bool
	Ring      []string // filesize:K, files:N
	Direction string

	duration time.Duration
	fileSize int64 // bytes; 0: one file
	files    int   // ring of N files; 0: keep all
}

func newCmdCapture(io *iostreams.IO, runF func(*CaptureOptions) error) *cobra.Command {
	o := &CaptureOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "capture -i IFACE -w FILE",
		Short: "Capture live traffic to a pcapng file (AF_PACKET, no libpcap), like dumpcap",
		Example: `  rdx capture -i eth0 -w rx.pcapng -f "udp portrange 7000-7009"
  rdx capture -i eth0 -w ring.pcapng -b filesize:10000 -b files:5 -a duration:60`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.parse(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return captureRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Iface, "interface", "i", "", "interface to capture on")
	f.StringVarP(&o.File, "write", "w", "", "pcapng file to write (- for standard output)")
	f.IntVarP(&o.Count, "count", "c", 0, "stop after N packets")
	f.StringArrayVarP(&o.Autostop, "autostop", "a", nil, "stop condition: duration:SECONDS or packets:N")
	f.StringVarP(&o.Filter, "capture-filter", "f", "", `capture filter: host, net, port, portrange, src/dst, tcp, udp, icmp, ip, ip6, vlan [N], proto N, ether proto N, and/or/not`)
	f.IntVarP(&o.Snaplen, "snapshot-length", "s", capture.DefaultSnaplen, "bytes to keep of each packet")
	f.BoolVarP(&o.NoPromisc, "no-promiscuous-mode", "p", false, "do not put the interface in promiscuous mode")
	f.StringVarP(&o.Direction, "direction", "Q", "inout", "in, out or inout: which direction of traffic to capture (as tcpdump -Q)")
	f.StringArrayVarP(&o.Ring, "ring-buffer", "b", nil, "filesize:KB (1 kB = 1000 bytes) starts a new file; files:N keeps the last N")
	return cmd
}

func (o *CaptureOptions) parse() error {
	if o.Iface == "" {
		return usageErr("no interface: use rdx capture -i IFACE -w FILE")
	}
	if o.File == "" {
		return usageErr("no output file: use -w FILE")
	}
	if o.Count < 0 {
		return usageErr("-c %d: want a positive count", o.Count)
	}
	for _, a := range o.Autostop {
		k, v, _ := strings.Cut(a, ":")
		switch k {
		case "duration":
			s, err := strconv.ParseFloat(v, 64)
			if err != nil || s <= 0 {
				return usageErr("-a %s: want duration:SECONDS", a)
			}
			o.duration = time.Duration(s * float64(time.Second))
		case "packets":
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return usageErr("-a %s: want packets:N", a)
			}
			o.Count = n
		default:
			return usageErr("-a %s: want duration:SECONDS or packets:N", a)
		}
	}
	for _, b := range o.Ring {
		k, v, _ := strings.Cut(b, ":")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return usageErr("-b %s: want filesize:KB or files:N", b)
		}
		switch k {
		case "filesize":
			o.fileSize = n * 1000
		case "files":
			o.files = int(n)
		default:
			return usageErr("-b %s: want filesize:KB or files:N", b)
		}
	}
	if o.files > 0 && o.fileSize == 0 {
		return usageErr("-b files:N needs -b filesize:KB")
	}
	if o.fileSize > 0 && o.File == "-" {
		return usageErr("-b cannot write to standard output")
	}
	if o.Snaplen <= 0 || o.Snaplen > capture.DefaultSnaplen {
		return usageErr("-s %d: want 1..%d", o.Snaplen, capture.DefaultSnaplen)
	}
	return nil
}

func captureRun(o *CaptureOptions) error {
	live, err := capture.OpenLive(capture.LiveOptions{Iface: o.Iface, Snaplen: o.Snaplen, NoPromisc: o.NoPromisc, Filter: o.Filter, Direction: o.Direction})
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	intr := notifyInterrupt(o.IO.ErrOut)
	defer intr.Release()
	// Packets pass through a queue so the file can be flushed whenever
	// none is waiting: `-w -` feeds a pipe frame by frame, not 256 KiB at
	// a time. Closing it stops the capture and closes the socket.
	q := capture.NewQueue(live, live.Stop, intr.Done())
	defer q.Close()
	if o.duration > 0 {
		time.AfterFunc(o.duration, live.Stop)
	}
	out := &ringWriter{o: o}
	if err := out.rotate(); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	mode := "promiscuous"
	if o.NoPromisc {
		mode = "not promiscuous"
	}
	// Tests and scripts wait for this line: the socket is open and filtered.
	fmt.Fprintf(o.IO.ErrOut, "rdx: capturing on %s (snaplen %d, %s", o.Iface, live.Snaplen(), mode)
	if o.Filter != "" {
		fmt.Fprintf(o.IO.ErrOut, ", filter %q", o.Filter)
	}
	fmt.Fprintln(o.IO.ErrOut, ")")

	var written uint64
	for o.Count == 0 || written < uint64(o.Count) {
		if !q.Ready() {
			if err = out.flush(); err != nil {
				break
			}
		}
		var pkt *capture.Packet
		if pkt, err = q.NextRef(); err != nil {
			break
		}
		if err = out.write(pkt); err != nil {
			break
		}
		written++
	}
	intr.Ack()
	if err == io.EOF {
		err = nil
	}
	if cerr := out.close(); err == nil && cerr != nil {
		err = cerr
	}
	q.Close()
	st := live.Stats()
	// Captured: written to the file (the queue may have read a few more
	// from the socket before -c or the signal stopped it).
	fmt.Fprintf(o.IO.ErrOut, "rdx: %d packets captured, %d received by filter, %d dropped by kernel\n", written, st.Received, st.Dropped)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	return nil
}

// ringWriter writes one pcapng file, or a ring of them named as dumpcap
// does (PREFIX_NNNNN_YYYYMMDDhhmmss.EXT).
type ringWriter struct {
	o     *CaptureOptions
	f     *os.File
	bw    *bufio.Writer
	pw    *capture.PcapngWriter
	size  int64
	n     int
	names []string
}

func (r *ringWriter) rotate() error {
	if err := r.close(); err != nil {
		return err
	}
	r.n++
	var w io.Writer
	if r.o.File == "-" {
		w = r.o.IO.Out
	} else {
		name := r.o.File
		if r.o.fileSize > 0 {
			ext := filepath.Ext(name)
			name = fmt.Sprintf("%s_%05d_%s%s", strings.TrimSuffix(name, ext), r.n, time.Now().Format("20060102150405"), ext)
		}
		f, err := os.Create(name)
		if err != nil {
			return err
		}
		r.f, w = f, f
		r.names = append(r.names, name)
		if r.o.files > 0 && len(r.names) > r.o.files {
			os.Remove(r.names[0])
			r.names = r.names[1:]
		}
	}
	r.bw = bufio.NewWriterSize(w, 256<<10)
	pw, err := capture.NewPcapngWriter(r.bw)
	if err != nil {
		return err
	}
	if _, err := pw.AddInterface(capture.LinkEthernet, r.o.Snaplen, r.o.Iface); err != nil {
		return err
	}
	r.pw, r.size = pw, 0
	return nil
}

func (r *ringWriter) write(p *capture.Packet) error {
	if r.o.fileSize > 0 && r.size > 0 && r.size+int64(len(p.Data))+32 > r.o.fileSize {
		if err := r.rotate(); err != nil {
			return err
		}
	}
	p.Iface = 0
	r.size += int64(len(p.Data)) + 32
	return r.pw.WritePacket(p)
}

// flush writes out what is buffered.
func (r *ringWriter) flush() error {
	if r.bw == nil || r.bw.Buffered() == 0 {
		return nil
	}
	return r.bw.Flush()
}

func (r *ringWriter) close() error {
	if r.bw == nil {
		return nil
	}
	err := r.bw.Flush()
	if r.f != nil {
		if cerr := r.f.Close(); err == nil {
			err = cerr
		}
	}
	r.bw, r.f = nil, nil
	return err
}
