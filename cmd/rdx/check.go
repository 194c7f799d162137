package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/iostreams"
)

func init() { verbs = append(verbs, newCmdCheck) }

// maxFailFrames is how many failing frames per check are listed.
const maxFailFrames = 5

// checkRow is one registered check's tally.
type checkRow struct {
	Check   string   `json:"check"`
	Proto   string   `json:"proto"`
	Desc    string   `json:"description"`
	Checked uint64   `json:"checked"`
	Passed  uint64   `json:"passed"`
	Failed  uint64   `json:"failed"`
	Frames  []uint64 `json:"first_failing_frames"`
}

func newCmdCheck(io *iostreams.IO) *cobra.Command {
	o := &ReadOptions{IO: io, Quiet: true}
	cmd := &cobra.Command{
		Use:   "check FILE | check -i IFACE",
		Short: "Run every validation (CRCs, markers, checksums) over a capture and tabulate the results",
		Long: `check decodes the whole capture once and counts, for every check a protocol
registered (mpa.crc, mpa.marker, infiniband.icrc, ...), how many PDUs it ran
on, how many passed and failed, and the first failing frames. With -i it
checks live traffic instead (as rdx read -i; stop with -c N or Ctrl-C, the
table is printed at the end). Exit status: 0 when nothing failed, 1 when a
check failed, 2 on usage or input errors.`,
		Example: `  rdx check pcaps/iwarp/iwarp_rping_crc.pcap
  rdx check -T json FILE
  rdx check -d tcp.port==4210,mpa FILE
  rdx check -i eth1 -f "tcp port 4210" -c 1000`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.File = args[0]
			}
			if o.Iface != "" && o.File != "" {
				return usageErr("give a capture file or -i IFACE, not both")
			}
			if o.File == "" && o.Iface == "" {
				return usageErr("no capture: use rdx check FILE or rdx check -i IFACE")
			}
			if checkRunF != nil {
				return checkRunF(o)
			}
			return checkRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Format, "output-format", "T", "text", "output format: text or json")
	f.StringArrayVarP(&o.DecodeAs, "decode-as", "d", nil, "decode-as rule, e.g. tcp.port==4210,mpa")
	addPrefFlags(f, o)
	f.StringVarP(&o.Iface, "interface", "i", "", "check live traffic from IFACE (AF_PACKET; -c N or Ctrl-C stops)")
	f.StringVarP(&o.CapFilter, "capture-filter", "f", "", "capture filter for -i, e.g. \"tcp port 4210\"")
	f.IntVarP(&o.Count, "count", "c", 0, "stop after N frames")
	return cmd
}

// checkRunF replaces checkRun in tests of the flag parsing.
var checkRunF func(*ReadOptions) error

// checkSource names what was checked: the file, or the interface.
func checkSource(o *ReadOptions) string {
	if o.Iface != "" {
		return "interface " + o.Iface
	}
	return o.File
}

func checkRun(o *ReadOptions) error {
	if o.Format != "text" && o.Format != "json" {
		return usageErr("-T %s: want text or json", o.Format)
	}
	eo, err := engineOptions(o)
	if err != nil {
		return err
	}
	setMemoryLimit(eo.MaxMem)
	all := dissect.Checks()
	rows := make([]checkRow, len(all))
	byID := map[int]int{}
	for i, c := range all {
		rows[i] = checkRow{Check: c.Name, Proto: c.Proto, Desc: c.Desc, Frames: []uint64{}}
		byID[c.ID()] = i
	}
	eng := dissect.NewEngine(eo)
	o.intr = notifyInterrupt(o.IO.ErrOut)
	defer o.intr.Release()
	counts, err := pass(o, eng, 0, func(f *dissect.Frame) {
		for _, r := range f.Checks {
			row := &rows[byID[r.Check.ID()]]
			row.Checked++
			if r.OK {
				row.Passed++
				continue
			}
			row.Failed++
			if n := len(row.Frames); f.Num != 0 && (n == 0 || row.Frames[n-1] != f.Num) && n < maxFailFrames {
				row.Frames = append(row.Frames, f.Num)
			}
		}
	})
	if err != nil {
		return err
	}
	failed := false
	for _, r := range rows {
		failed = failed || r.Failed > 0
	}
	if o.Format == "json" {
		out := struct {
			File     string     `json:"file,omitempty"`
			Iface    string     `json:"interface,omitempty"`
			Frames   uint64     `json:"frames"`
			Checks   []checkRow `json:"checks"`
			Errors   int        `json:"finding_errors"`
			Warnings int        `json:"finding_warnings"`
			Notes    int        `json:"finding_notes"`
			OK       bool       `json:"ok"`
		}{o.File, o.Iface, counts.frames, rows, counts.Errors, counts.Warnings, counts.Notes, !failed}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintf(o.IO.Out, "%s\n", b)
	} else {
		t := tablewriter.NewTable(o.IO.Out,
			tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleLight)})),
			tablewriter.WithHeaderAlignment(tw.AlignLeft),
			tablewriter.WithHeaderAutoFormat(tw.Off))
		t.Header("Check", "Proto", "Checked", "Passed", "Failed", "First failing frames")
		idle := 0
		for _, r := range rows {
			if r.Checked == 0 { // the table shows what ran; JSON lists every check
				idle++
				continue
			}
			fr := make([]string, len(r.Frames))
			for i, n := range r.Frames {
				fr[i] = strconv.FormatUint(n, 10)
			}
			if err := t.Append([]string{r.Check, r.Proto, strconv.FormatUint(r.Checked, 10), strconv.FormatUint(r.Passed, 10),
				strconv.FormatUint(r.Failed, 10), strings.Join(fr, " ")}); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
		}
		if idle < len(rows) {
			if err := t.Render(); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
		}
		fmt.Fprintf(o.IO.Out, "%d of %d checks applied to %s (rdx check -T json lists them all)\n", len(rows)-idle, len(rows), checkSource(o))
	}
	fmt.Fprintf(o.IO.ErrOut, "rdx: %d frames; findings: %d errors, %d warnings, %d notes\n",
		counts.frames, counts.Errors, counts.Warnings, counts.Notes)
	if failed {
		return &exitError{code: exitFindings, err: fmt.Errorf("%s: checks failed", checkSource(o))}
	}
	return nil
}
