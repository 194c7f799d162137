package pipeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/render"
)

// pcapngSink writes frames to a pcapng file (-w), one interface per link
// type met (a pcapng file can mix them).
type pcapngSink struct {
	path   string
	stdout io.Writer
	f      *os.File
	bw     *bufio.Writer
	w      *capture.PcapngWriter
	ifaces map[uint16]int
	closed bool
	err    error
}

func (s *pcapngSink) Start(*dissect.Engine) error {
	s.ifaces = map[uint16]int{}
	out := s.stdout
	if s.path != "-" {
		f, err := os.Create(s.path)
		if err != nil {
			return err
		}
		s.f, out = f, f
	}
	s.bw = bufio.NewWriterSize(out, 1<<20)
	w, err := capture.NewPcapngWriter(s.bw)
	if err != nil {
		return err
	}
	s.w = w
	return nil
}

func (s *pcapngSink) Frame(f *dissect.Frame, _ *dissect.Tree) {
	if s.err != nil {
		return
	}
	id, ok := s.ifaces[f.LinkType]
	if !ok {
		if id, s.err = s.w.AddInterface(f.LinkType, capture.MaxRecord, ""); s.err != nil {
			return
		}
		s.ifaces[f.LinkType] = id
	}
	s.err = s.w.WritePacket(&capture.Packet{Data: f.Data, TimeNS: f.TimeNS, CapLen: f.CapLen, WireLen: f.WireLen,
		LinkType: f.LinkType, Iface: id})
}

// Flush writes out the frames buffered so far.
func (s *pcapngSink) Flush() error {
	if s.err == nil && !s.closed {
		s.err = s.bw.Flush()
	}
	return s.err
}

func (s *pcapngSink) End(error) error {
	if s.closed {
		return s.err
	}
	s.closed = true
	if err := s.bw.Flush(); err != nil && s.err == nil {
		s.err = err
	}
	if s.f != nil {
		if err := s.f.Close(); err != nil && s.err == nil {
			s.err = err
		}
	}
	if s.err != nil {
		return fmt.Errorf("writing the -w file: %w", s.err)
	}
	return nil
}

// MaxFailFrames is how many failing frames per check a CheckRow lists.
const MaxFailFrames = 5

// CheckRow is one registered check's tally.
type CheckRow struct {
	Check   string   `json:"check"`
	Proto   string   `json:"proto"`
	Desc    string   `json:"description"`
	Checked uint64   `json:"checked"`
	Passed  uint64   `json:"passed"`
	Failed  uint64   `json:"failed"`
	Frames  []uint64 `json:"first_failing_frames"`
	// Failures a protocol explained with a checksum note on the same PDU
	// (e.g. an ICRC off by the flow's constant: rewritten addresses), and
	// the first such note.
	Explained   uint64 `json:"explained,omitempty"`
	Explanation string `json:"explanation,omitempty"`
	explFrame   uint64 // the frame Explanation names (-j merges keep the first)
}

// CheckReport asks a run to tally every check; Format "text" or "json"
// prints the report at the end, "" only fills Result.Checks.
type CheckReport struct {
	Format string
}

// checkSink tallies f.Checks per registered check.
type checkSink struct {
	format string
	in     Input
	out    io.Writer
	res    *Result
	byID   map[int]int
}

func newCheckSink(c *CheckReport, in Input, out io.Writer, res *Result) (*checkSink, error) {
	if c.Format != "" && c.Format != "text" && c.Format != "json" {
		return nil, fmt.Errorf("-T %s: want text or json", c.Format)
	}
	all := dissect.Checks()
	res.Checks = make([]CheckRow, len(all))
	s := &checkSink{format: c.Format, in: in, out: out, res: res, byID: map[int]int{}}
	for i, c := range all {
		res.Checks[i] = CheckRow{Check: c.Name, Proto: c.Proto, Desc: c.Desc, Frames: []uint64{}}
		s.byID[c.ID()] = i
	}
	return s, nil
}

func (s *checkSink) Start(*dissect.Engine) error { return nil }

func (s *checkSink) Frame(f *dissect.Frame, _ *dissect.Tree) {
	for _, r := range f.Checks {
		row := &s.res.Checks[s.byID[r.Check.ID()]]
		row.Checked++
		if r.OK {
			row.Passed++
			continue
		}
		row.Failed++
		for i := range f.Findings {
			if fd := &f.Findings[i]; fd.PDU == r.PDU && fd.Sev == dissect.Note && fd.Group == dissect.GroupChecksum {
				row.Explained++
				if row.Explanation == "" {
					row.Explanation = "frame " + strconv.FormatUint(f.Num, 10) + ": " + fd.Msg
					row.explFrame = f.Num
				}
				break
			}
		}
		if n := len(row.Frames); f.Num != 0 && (n == 0 || row.Frames[n-1] != f.Num) && n < MaxFailFrames {
			row.Frames = append(row.Frames, f.Num)
		}
	}
}

// End prints the report (not after an input error: the tally is partial).
func (s *checkSink) End(err error) error {
	rows := s.res.Checks
	for _, r := range rows {
		s.res.ChecksFailed = s.res.ChecksFailed || r.Failed > 0
	}
	if err != nil {
		return nil
	}
	switch s.format {
	case "json":
		out := struct {
			File     string     `json:"file,omitempty"`
			Iface    string     `json:"interface,omitempty"`
			Frames   uint64     `json:"frames"`
			Checks   []CheckRow `json:"checks"`
			Errors   int        `json:"finding_errors"`
			Warnings int        `json:"finding_warnings"`
			Notes    int        `json:"finding_notes"`
			OK       bool       `json:"ok"`
		}{s.in.File, s.in.Iface, s.res.Frames, rows, s.res.Errors, s.res.Warnings, s.res.Notes, !s.res.ChecksFailed}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintf(s.out, "%s\n", b)
	case "text":
		var tab [][]string
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
			tab = append(tab, []string{r.Check, r.Proto, strconv.FormatUint(r.Checked, 10), strconv.FormatUint(r.Passed, 10),
				strconv.FormatUint(r.Failed, 10), strings.Join(fr, " ")})
		}
		if idle < len(rows) {
			if err := render.Table(s.out, render.TableLight, []string{"Check", "Proto", "Checked", "Passed", "Failed", "First failing frames"}, tab); err != nil {
				return err
			}
		}
		for _, r := range rows {
			if r.Explained > 0 {
				fmt.Fprintf(s.out, "%s: %d of %d failures explained, e.g. %s\n", r.Check, r.Explained, r.Failed, r.Explanation)
			}
		}
		fmt.Fprintf(s.out, "%d of %d checks applied to %s (rdx check -T json lists them all)\n", len(rows)-idle, len(rows), s.in.Name())
	}
	return nil
}
