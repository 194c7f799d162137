//go:build !lean

package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/export"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/pipeline"
	"github.com/rdx-project/rdx/reassembly/budget"
)

func init() { verbs = append(verbs, verbDef{"export", verb(newCmdExport)}) }

// ExportOptions are `rdx export`'s flags.
type ExportOptions struct {
	IO        *iostreams.IO
	Files     []string
	Dir       string   // -w DIR
	Host      string   // --host: the host partition of every file
	Fields    []string // -e: more frames columns
	Filter    string
	Count     int
	Overwrite bool
	Calls     bool     // --calls: the calls table
	Flows     bool     // --flows: the flows table
	Partition []string // --partition-by: host, date
	Tables    []string // --tables: per-protocol tables
	EngineFlags
}

func newCmdExport(io *iostreams.IO, runF func(*ExportOptions) error) *cobra.Command {
	o := &ExportOptions{IO: io}
	cmd := &cobra.Command{
		Use:   exportUse,
		Short: exportShort,
		Long: `export decodes each capture once and writes its frames, findings and check
results as zstd-compressed Parquet files, Hive-partitioned by host:

  DIR/frames/host=H/CAPTURE.parquet     one row per frame: capture, frame_number,
                                        frame_time (ns timestamp), src, dst, src_port,
                                        dst_port, protocol, frame_protocols, frame_len,
                                        frame_cap_len, info, then every -e field
  DIR/findings/host=H/CAPTURE.parquet   capture, frame_number, severity, group,
                                        protocol, field, message
  DIR/checks/host=H/CAPTURE.parquet     capture, frame_number, check, ok
  DIR/calls/host=H/CAPTURE.parquet      with --calls: one row per ONC RPC or Rx reply
                                        matched to its request: capture, protocol (rpc,
                                        rx), call (Rx: "FS FetchData"), request_frame,
                                        reply_frame, request_time, response_time (ns),
                                        rpc_xid, rpc_program, rpc_programversion,
                                        rpc_procedure, rpc_replystat, rpc_state_accept,
                                        rpc_transport (rdma, tcp, udp),
                                        rx_cid, rx_callnumber, rx_serviceid,
                                        rx_server_port, rx_opcode, rx_abort_code;
                                        over RDMA rdma_credits_requested, _granted,
                                        rdma_read_bytes, _write_bytes, _reply_bytes;
                                        RDS pongs matched to pings (protocol rds);
                                        RDP connections (protocol rdp: first to last
                                        frame, rdp_a, rdp_b, per-side counts)
  DIR/flows/host=H/CAPTURE.parquet      with --flows, written at the end: one row per
                                        conversation (kind ip, tcp, udp, ib, rdp, rx, rds:
                                        -z conv,KIND) and per InfiniBand flow (kind qp:
                                        -z infiniband,flows, with psn_gaps, dup_psns, acks,
                                        coalesced_acks, naks, rnr_naks, ecn_ce, fecn, becn,
                                        cnps)
  DIR/TABLE/host=H/CAPTURE.parquet      with --tables rx,rpc,...: one row per PDU of
                                        the protocol (a frame may carry several):
                                        capture, frame_number, then the protocol's
                                        fields an analysis filters on, named and typed
                                        as -e columns (rx_seq, infiniband_bth_destqp);
                                        tables: ` + strings.Join(export.ProtoTables(), ", ") + `

H is --host, else the capture's file name up to its first '.'. With
--partition-by date,host each table's files are DIR/TABLE/date=YYYY-MM-DD/host=H/
(the UTC day of the row's frame; flows: of the conversation's first frame,
InfiniBand flows of the capture's first frame), one file per day a capture
spans. An -e field
becomes a column named with '_' for '.' (rx.seq is rx_seq), typed as the
field is, holding every occurrence (a list). -j N files are decoded at
once (default: one per core), each by its own engine; the files and the
lines printed are the same as with -j 1. A damaged capture still leaves
valid files of the frames before the bad record (their metadata says
rdx.complete=false), the other captures are exported all the same, and
the exit status is 2.`,
		Example: `  rdx export -w out pcaps/rx/*.pcap
  rdx export -w out --host fs1 -e rx.callnumber -e rx.seq capture.pcap
  duckdb -c "SELECT host, protocol, count(*) FROM read_parquet('out/frames/*/*.parquet', hive_partitioning=true) GROUP BY ALL"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			if len(o.Files) == 0 {
				return usageErr("no capture files: use rdx export -w DIR FILE...")
			}
			if o.Dir == "" {
				return usageErr("no output directory: use rdx export -w DIR FILE...")
			}
			if runF != nil {
				return runF(o)
			}
			return exportRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Dir, "write-dir", "w", "", "directory of the Parquet dataset (created if missing)")
	f.StringVar(&o.Host, "host", "", "host partition of every file (default: each file's name up to its first '.')")
	f.StringArrayVarP(&o.Fields, "field", "e", nil, "field to add as a frames column, e.g. -e rx.seq (repeatable)")
	f.StringVarP(&o.Filter, "display-filter", "Y", "", "display filter: only matching frames (and their findings and checks) are written")
	f.IntVarP(&o.Count, "count", "c", 0, "stop after N frames of each file")
	f.BoolVar(&o.Calls, "calls", false, "also write the calls table: every ONC RPC (NFS, MOUNT, ...; also over RDMA, with credits and chunk sizes) and Rx (AFS) reply with its request, RDS pings, RDP connections (reads every frame's tree: slower)")
	f.StringSliceVar(&o.Partition, "partition-by", []string{"host"}, "Hive partitions of the path, outermost first: host, date (UTC day of the row's frame) or both, e.g. date,host")
	f.BoolVar(&o.Flows, "flows", false, "also write the flows table: conversations and InfiniBand flows with their counters (PSN gaps, NAKs, CNPs, ...)")
	f.StringSliceVar(&o.Tables, "tables", nil, "also write per-protocol tables, one row per PDU: "+strings.Join(export.ProtoTables(), ", "))
	f.BoolVar(&o.Overwrite, "overwrite", false, "replace files a former export of the same capture and host wrote")
	f.StringArrayVarP(&o.DecodeAs, "decode-as", "d", nil, "decode-as rule TABLE==KEY,PROTO (-d help lists the tables)")
	addPrefFlags(f, &o.EngineFlags)
	// export decodes whole files in parallel, not flows of one
	f.Lookup("jobs").Usage = "export N files at once, one engine each (the files and lines as with -j 1)"
	f.Lookup("max-mem").Usage = "memory each file's decode aims for (K, M, G; default 256M), whatever -j is, so the files written do not depend on -j; reassembly and tracking state get half of it"
	return cmd
}

func exportRun(o *ExportOptions) error {
	if o.tableHelp() {
		return writeTables(o.IO.Out)
	}
	// A -e field a later frame fills (a reply frame) needs the first pass;
	// else one pass, even though the sink reads trees (-e, --calls): Info
	// is then `rdx read`'s, and the calls table needs only what a reply
	// knows when it is decoded.
	twoPass := false
	for _, name := range o.Fields {
		if f := dissect.Lookup(name); f != nil && f.Later {
			twoPass = true
		}
	}
	// Two files of one name and host would be one file: refuse before reading.
	var targets []string
	sinks := make([]*export.Sink, len(o.Files))
	for i, file := range o.Files {
		name := filepath.Base(file)
		if file == "-" {
			name = "stdin"
		}
		host := o.Host
		if host == "" {
			host = export.HostOf(name)
		}
		s, err := export.New(export.Options{Dir: o.Dir, Host: host, Capture: name,
			Fields: o.Fields, Overwrite: o.Overwrite, Calls: o.Calls, Flows: o.Flows, PartitionBy: o.Partition, Tables: o.Tables})
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		p := export.Path(o.Dir, "frames", host, name)
		if slices.Contains(targets, p) {
			return usageErr("%s: another file of this name and host is exported too (give --host per run)", file)
		}
		targets = append(targets, p)
		sinks[i] = s
	}
	nw, err := o.workers()
	if err != nil {
		return err
	}
	nw = min(nw, len(o.Files))
	// Each file has its own engine with the budget of one (--max-mem, or
	// rdx read -j 1's default), whatever -j is: a smaller share would
	// evict, and so write, differently from -j 1 (at 64M 1M Rx frames took
	// 1.4x the CPU). The process is then up to -j such engines.
	eos, err := fileEngines(o.EngineFlags, o.Files)
	if err != nil {
		return err
	}
	for i := range eos {
		eos[i] = o.engineOptions(eos[i])
	}
	// The collector's soft limit, per file: also the room of its Parquet
	// row groups (tens of MB); at 64M per file it collected 117 times on
	// 1M Rx frames and took 2.4x the CPU (3 collections at 256M).
	share := eos[0].MaxMem
	if share == 0 {
		share = budget.StateShare(exportLimit)
	}
	setMemoryLimit(share*int64(nw), 1)

	// The status line on a terminal: captures done, frames, position in
	// all the files; errOut erases it before each line printed.
	prog, parts, pio := newFilesProgress(o.IO, "export", o.Files)
	defer prog.Stop()
	errOut := pio.ErrOut
	intr := notifyInterrupt(errOut)
	defer intr.Release()
	// nw workers take the files in order, one file each at a time; the
	// lines are printed in the files' order, so the output is -j 1's.
	type outcome struct {
		line    string
		err     error
		skipped bool // interrupted before it started
		done    chan struct{}
	}
	outs := make([]outcome, len(o.Files))
	for i := range outs {
		outs[i].done = make(chan struct{})
	}
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range o.Files {
			if intr.Stopped() {
				for j := i; j < len(outs); j++ {
					outs[j].skipped = true
					close(outs[j].done)
				}
				return
			}
			next <- i
		}
	}()
	for w := 0; w < nw; w++ {
		go func() {
			for i := range next {
				file, s := o.Files[i], sinks[i]
				res, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file, Stdin: o.IO.In, ErrOut: errOut, Progress: parts[i]},
					Engine: eos[i], Stop: intr, Count: o.Count, Filter: o.Filter, Quiet: true, TwoPass: twoPass, SinglePass: !twoPass,
					Sinks: []pipeline.Sink{s}})
				if res.Ran {
					calls := ""
					if o.Calls {
						calls = fmt.Sprintf(", %d calls", s.Rows[3])
					}
					if o.Flows {
						calls += fmt.Sprintf(", %d flows", s.Rows[4])
					}
					for k, name := range o.Tables {
						calls += fmt.Sprintf(", %d %s", s.ProtoRows[k], name)
					}
					outs[i].line = fmt.Sprintf("rdx: %s: %d frames, %d findings, %d check results%s → %s\n",
						file, s.Rows[0], s.Rows[1], s.Rows[2], calls, o.Dir)
				}
				outs[i].err = err
				parts[i].Done()
				sinks[i] = nil // its buffers go with it
				close(outs[i].done)
			}
		}()
	}
	var errs []error
	for i := range o.Files {
		<-outs[i].done
		if outs[i].skipped {
			break
		}
		fmt.Fprint(errOut, outs[i].line)
		if err := outs[i].err; err != nil {
			if len(o.Files) == 1 {
				return err
			}
			fmt.Fprintln(errOut, "rdx:", err)
			errs = append(errs, err)
		}
		prog.Items(i+1, len(o.Files), "captures")
	}
	prog.Stop()
	if len(errs) > 0 {
		return unreadCaptures(len(errs), len(o.Files), "their files hold")
	}
	return nil
}

// engineOptions are a file's engine options for the tables asked for:
// conversations and the dissectors' own flow counters (-z
// infiniband,flows...) only for the flows table (without it a RoCE
// frame's flow counting was 200 of an export's instructions), the
// export's budget unless --max-mem gives one.
func (o *ExportOptions) engineOptions(eo dissect.Options) dissect.Options {
	eo.Conversations = eo.Conversations || o.Flows
	eo.NoProtoStats = !o.Flows
	if eo.MaxMem == 0 {
		eo.MaxMem = exportLimit
	}
	return eo
}

// exportLimit is each file's table budget without --max-mem, larger than
// read's default: rdx export was measured with it (the Parquet row groups
// share the process; at 64M one file of 1M Rx frames collected 117 times
// and took 2.4x the CPU).
const exportLimit = 256 << 20
