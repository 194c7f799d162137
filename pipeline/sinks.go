package pipeline

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/rdx-project/rdx/capture"
	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/render"
)

// pcapngSink writes frames to a pcapng file (-w), one interface per link
// type met (a pcapng file can mix them). A regular file is written under a
// temporary name beside it and renamed at the end, so a failed write
// leaves no partial file and the file it replaces stays whole until then.
type pcapngSink struct {
	path   string
	stdout io.Writer
	f      *os.File
	target string // the file the temporary one becomes ("": f is the target)
	bw     *bufio.Writer
	w      *capture.PcapngWriter
	ifaces map[ifaceKey]int
	// format is -F: "" or "pcapng", "pcap" (microseconds, as tshark's
	// pcap) or "nsecpcap"; a pcap holds one link type, the first frame's,
	// and its header waits for that frame.
	format  string
	snaplen int // recorded in the file (0: capture.MaxRecord); a live capture's -s
	pw      *capture.PcapWriter
	pcapLT  uint16
	closed  bool
	discard bool // the run did not start: remove the temporary file
	err     error
	// mu guards the file against GiveUp, which runs on the interrupt's
	// watchdog goroutine while a frame may be written.
	mu sync.Mutex
}

// NewWriteSink is the -w sink of cfg (Write, WriteOut, WriteFormat) for a
// caller that writes the frames of several runs into one file
// (Config.WriteSink): it starts it, hands it frames in the order they are
// to be written, and ends it. Its GiveUp keeps what was written.
func NewWriteSink(cfg Config) interface {
	Sink
	GiveUp()
} {
	return &pcapngSink{path: cfg.Write, stdout: cfg.WriteOut, format: cfg.WriteFormat}
}

// ifaceKey names an interface of the written file: a link type, and for
// ERF records the reader's ERF interface + 1 (each its own, as tshark writes
// them), else 0.
type ifaceKey struct {
	lt  uint16
	erf int
}

func (s *pcapngSink) Start(*dissect.Engine) error {
	s.ifaces = map[ifaceKey]int{}
	out := s.stdout
	if s.path != "-" {
		f, target, err := createBeside(s.path)
		if err != nil {
			return err
		}
		s.f, s.target, out = f, target, f
	}
	s.bw = bufio.NewWriterSize(out, 1<<20)
	if s.format == "pcap" || s.format == "nsecpcap" {
		return nil // the header names the first frame's link type
	}
	w, err := capture.NewPcapngWriter(s.bw)
	if err != nil {
		s.discard = true
		s.End(err) // no temporary file left behind
		return err
	}
	s.w = w
	return nil
}

func (s *pcapngSink) Frame(f *dissect.Frame, _ *dissect.Tree) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.closed {
		return
	}
	if s.w == nil {
		s.err = s.pcapFrame(f)
		return
	}
	k, name := ifaceKey{lt: f.LinkType}, ""
	if f.LinkType == dissect.LinkTypeERF && len(f.Data) >= 16 {
		port := f.Data[9] & 3 // the ERF flags' capture interface
		k.erf = f.Iface + 1
		name = "Port " + string(rune('A'+port)) + " (ERF Interface " + strconv.Itoa(int(port)) + ")"
	}
	id, ok := s.ifaces[k]
	if !ok {
		if id, s.err = s.w.AddInterface(f.LinkType, s.snaplenOr(), name); s.err != nil {
			return
		}
		s.ifaces[k] = id
	}
	t, wire := f.Record() // the record as read (an ERF frame's header says other lengths)
	s.err = s.w.WritePacket(&capture.Packet{Data: f.Data, TimeNS: erfTime(f, t, wire), CapLen: len(f.Data), WireLen: wire,
		LinkType: f.LinkType, Iface: id})
}

// erfTime is the time to write for frame f, read from a record of time t
// and original length wire, into a file of nanosecond times: an ERF
// record's own header time (nanoseconds, where the pcap record that
// carried it had microseconds), as tshark writes it; tshark reads a pcapng
// record's time from its block, so the record's microseconds would lose
// the rest. (The -j writer's frames carry the record's values only.)
func erfTime(f *dissect.Frame, t int64, wire int) int64 {
	return dissect.FrameTimeNS(f.LinkType, f.Data, len(f.Data), wire, t)
}

// pcapFrame writes f to a -F pcap file.
func (s *pcapngSink) pcapFrame(f *dissect.Frame) error {
	if err := s.pcapHeader(f.LinkType); err != nil {
		return err
	}
	if f.LinkType != s.pcapLT {
		return fmt.Errorf("frame %d has link type %d, but a pcap file holds one link type (%d, the first frame's): use -F pcapng", f.Num, f.LinkType, s.pcapLT)
	}
	t, wire := f.Record()
	if s.format == "nsecpcap" {
		t = erfTime(f, t, wire)
	}
	return s.pw.WritePacket(&capture.Packet{Data: f.Data, TimeNS: t, CapLen: len(f.Data), WireLen: wire, LinkType: f.LinkType})
}

// snaplenOr is the snapshot length the file records: the live capture's
// (-i with -s), else the largest record rdx reads.
func (s *pcapngSink) snaplenOr() int {
	if s.snaplen > 0 {
		return s.snaplen
	}
	return capture.MaxRecord
}

// pcapHeader writes the pcap file header once, for link type lt.
func (s *pcapngSink) pcapHeader(lt uint16) (err error) {
	if s.pw == nil {
		s.pw, err = capture.NewPcapWriter(s.bw, lt, s.snaplenOr(), s.format == "nsecpcap")
		s.pcapLT = lt
	}
	return err
}

// Flush writes out the frames buffered so far.
func (s *pcapngSink) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && !s.closed {
		s.err = s.bw.Flush()
	}
	return s.err
}

// GiveUp ends the file as End does when the process is about to exit
// without ending the run (a stop the verb did not notice in time): the
// frames written so far are kept under the name asked for.
// A write stuck holding the lock is left alone: the exit must not wait.
func (s *pcapngSink) GiveUp() {
	if s.mu.TryLock() {
		s.end()
		s.mu.Unlock()
	}
}

func (s *pcapngSink) End(error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.end()
}

func (s *pcapngSink) end() error {
	if s.closed {
		return s.err
	}
	s.closed = true
	if s.bw == nil { // never started
		return nil
	}
	if s.w == nil && s.err == nil { // a pcap without frames: Ethernet's header
		s.err = s.pcapHeader(dissect.LinkTypeEthernet)
	}
	if err := s.bw.Flush(); err != nil && s.err == nil {
		s.err = err
	}
	if s.f != nil {
		if err := s.f.Close(); err != nil && s.err == nil {
			s.err = err
		}
		if s.target != "" {
			// After a bad input record the frames before it are a whole
			// file, kept as the other outputs keep what was read; a failed
			// write or a run that never started leaves nothing.
			if s.err != nil || s.discard {
				os.Remove(s.f.Name())
			} else if err := os.Rename(s.f.Name(), s.target); err != nil {
				os.Remove(s.f.Name())
				s.err = err
			}
		}
	}
	if s.err != nil {
		return fmt.Errorf("writing the -w file: %w", s.err)
	}
	return nil
}

// createBeside creates the file to write path through: a new file in
// path's directory (renamed onto target at the end), or path itself when
// it is not a regular file (/dev/null, a FIFO), which renaming would
// replace. A symbolic link is followed, so its target is what is written.
func createBeside(path string) (f *os.File, target string, err error) {
	target = path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	st, err := os.Stat(target)
	if err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
		return f, "", err
	}
	mode := os.FileMode(0)
	if err == nil {
		mode = st.Mode().Perm() // a replaced file keeps its mode, as os.Create's truncation would
	}
	dir, base := filepath.Split(target)
	for i := 0; ; i++ {
		// 0666 as os.Create, so the umask decides as it would for it.
		name := filepath.Join(dir, "."+base+".rdx-"+strconv.Itoa(os.Getpid())+"-"+strconv.Itoa(i))
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil || !errors.Is(err, fs.ErrExist) || i == 100 {
			if err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) { // name the file the user gave, not the temporary one
					err = pe.Err
				}
				return nil, "", fmt.Errorf("-w %s: %w", path, err)
			}
			if mode != 0 {
				f.Chmod(mode)
			}
			return f, target, nil
		}
	}
}

// checkWriteTarget refuses a -w file that is the input itself (the same
// inode, also through a link, or standard input redirected from it):
// writing it would destroy what is read.
func checkWriteTarget(cfg Config) error {
	in := cfg.Input
	if cfg.Write == "" || cfg.Write == "-" || in.Open != nil || in.Iface != "" || in.File == "" {
		return nil
	}
	w, err := os.Stat(cfg.Write)
	if err != nil {
		return nil // not there yet: cannot be the input
	}
	var r os.FileInfo
	name := in.File
	if in.File == "-" {
		if f, ok := in.Stdin.(*os.File); ok {
			r, err = f.Stat()
			name = "standard input"
		}
	} else {
		r, err = os.Stat(in.File)
	}
	if r != nil && err == nil && os.SameFile(w, r) {
		return fmt.Errorf("-w %s: refusing to overwrite the input (%s), which is being read", cfg.Write, name)
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
	// Files says each of Frames' file, over many files (WriteChecks).
	Files []string `json:"first_failing_files,omitempty"`
	// Failures a protocol explained with a checksum note on the same PDU
	// (e.g. an ICRC off by the flow's constant: rewritten addresses), and
	// the first such note.
	Explained   uint64 `json:"explained,omitempty"`
	Explanation string `json:"explanation,omitempty"`
	explFrame   uint64 // the frame of Explanation, for merge
	// PDUs the check applies to but could not run on, by reason
	// (dissect.SkipNames): not in Checked
	Skipped    [dissect.NumSkips]uint64 `json:"-"`
	NotChecked map[string]uint64        `json:"not_checked,omitempty"`
}

// notChecked words r.Skipped: "118 likely offloaded, 2 snapped".
func (r *CheckRow) notChecked() (string, uint64) {
	var b strings.Builder
	var n uint64
	for i, c := range r.Skipped {
		if c == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatUint(c, 10) + " " + dissect.SkipNames[i])
		n += c
	}
	return b.String(), n
}

// merge adds o, the same check tallied over other frames (another worker's
// sink), to r: the counts add up, the first failing frames are the first
// MaxFailFrames of both lists (each ascending, as a sink fills them) and
// the explanation is the earlier one's. Each frame is tallied by one sink.
func (r *CheckRow) merge(o *CheckRow) {
	r.Checked += o.Checked
	r.Passed += o.Passed
	r.Failed += o.Failed
	r.Explained += o.Explained
	for i := range r.Skipped {
		r.Skipped[i] += o.Skipped[i]
	}
	if o.Explanation != "" && (r.Explanation == "" || o.explFrame < r.explFrame) {
		r.Explanation, r.explFrame = o.Explanation, o.explFrame
	}
	if len(o.Frames) == 0 {
		return
	}
	var buf [2 * MaxFailFrames]uint64
	fr := buf[:0]
	a, b := r.Frames, o.Frames
	for len(fr) < MaxFailFrames && (len(a) > 0 || len(b) > 0) {
		var n uint64
		if len(b) == 0 || len(a) > 0 && a[0] <= b[0] {
			n, a = a[0], a[1:]
		} else {
			n, b = b[0], b[1:]
		}
		if len(fr) == 0 || fr[len(fr)-1] != n {
			fr = append(fr, n)
		}
	}
	r.Frames = append(r.Frames[:0:0], fr...)
}

// mergeChecks adds the tally of another check sink (a worker's, over other
// frames of the same input) into rows; both list every registered check in
// the same order (dissect.Checks).
func mergeChecks(rows, from []CheckRow) {
	for i := range rows {
		if i < len(from) && rows[i].Check == from[i].Check {
			rows[i].merge(&from[i])
		}
	}
}

// CheckReport asks a run to tally every check; Format "text" or "json"
// prints the report at the end, "" only fills Result.Checks.
type CheckReport struct {
	Format string
	Style  *render.Style // text: a failing check's row in Style.Failed (nil: plain)
}

// checkSink tallies f.Checks per registered check.
type checkSink struct {
	format string
	style  *render.Style
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
	s := &checkSink{format: c.Format, style: c.Style, in: in, out: out, res: res, byID: map[int]int{}}
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
		if r.Skip != dissect.SkipNone {
			row.Skipped[r.Skip]++
			continue
		}
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

// End prints the report, also after an input error: the tally of what was
// read comes before the error, which names the bad record.
func (s *checkSink) End(error) error { return writeChecks(s.out, s.format, s.style, s.in, nil, s.res) }

// TagChecks marks rows, the check tally of one file among many
// (Result.Checks), as file's (flows.FileShift): merged (MergeChecks) the
// first failing frames order file by file, and WriteChecks names them.
func TagChecks(rows []CheckRow, file int) {
	tag := uint64(file) << flows.FileShift
	for i := range rows {
		for j := range rows[i].Frames {
			rows[i].Frames[j] += tag
		}
		rows[i].explFrame += tag
	}
}

// MergeChecks adds from, the check tally of another file (TagChecks), to
// rows.
func MergeChecks(rows, from []CheckRow) { mergeChecks(rows, from) }

// WriteChecks prints the check report of many files (res.Checks, their
// tallies tagged and merged; res's counts summed) as rdx check prints one
// file's: each failing frame named with its file (pts-ops.pcap:12); in
// JSON, first_failing_files says each first_failing_frames' file.
func WriteChecks(out io.Writer, c *CheckReport, files []string, res *Result) error {
	return writeChecks(out, c.Format, c.Style, Input{}, files, res)
}

// writeChecks prints the report of res.Checks, read from in or, over many
// files, from files.
func writeChecks(out io.Writer, format string, style *render.Style, in Input, files []string, res *Result) error {
	var labels []string
	name := in.Name()
	if len(files) > 0 {
		labels = flows.FileLabels(files)
		name = render.Plural(uint64(len(files)), "capture")
	}
	// frame is how the report names frame n: file:n over many files
	frame := func(n uint64) string {
		if i := int(n >> flows.FileShift); labels != nil && i < len(labels) {
			return labels[i] + ":" + strconv.FormatUint(n&(1<<flows.FileShift-1), 10)
		}
		return strconv.FormatUint(n, 10)
	}
	rows := res.Checks
	for i := range rows {
		r := &rows[i]
		res.ChecksFailed = res.ChecksFailed || r.Failed > 0
		r.NotChecked = nil
		for k, c := range r.Skipped {
			if c > 0 {
				if r.NotChecked == nil {
					r.NotChecked = map[string]uint64{}
				}
				r.NotChecked[dissect.SkipNames[k]] = c
			}
		}
		if labels != nil {
			r.Files = make([]string, len(r.Frames))
			for j, n := range r.Frames {
				r.Files[j], r.Frames[j] = labels[min(int(n>>flows.FileShift), len(labels)-1)], n&(1<<flows.FileShift-1)
			}
			if f, msg, ok := strings.Cut(r.Explanation, ": "); ok && strings.HasPrefix(f, "frame ") {
				r.Explanation = "frame " + frame(r.explFrame) + ": " + msg
			}
		}
	}
	switch format {
	case "json":
		doc := struct {
			File     string     `json:"file,omitempty"`
			Files    []string   `json:"files,omitempty"`
			Iface    string     `json:"interface,omitempty"`
			Frames   uint64     `json:"frames"`
			Checks   []CheckRow `json:"checks"`
			Errors   int        `json:"finding_errors"`
			Warnings int        `json:"finding_warnings"`
			Notes    int        `json:"finding_notes"`
			OK       bool       `json:"ok"`
		}{in.File, files, in.Iface, res.Frames, rows, res.Errors, res.Warnings, res.Notes, !res.ChecksFailed && res.Errors == 0}
		b, _ := json.MarshalIndent(doc, "", "  ")
		fmt.Fprintf(out, "%s\n", b)
	case "text":
		var tab [][]string
		var mark []string
		idle := 0
		for _, r := range rows {
			_, skipped := r.notChecked()
			if r.Checked == 0 && skipped == 0 { // the table shows what applied; JSON lists every check
				idle++
				continue
			}
			fr := make([]string, len(r.Frames))
			for i, n := range r.Frames {
				fr[i] = strconv.FormatUint(n, 10)
				if r.Files != nil {
					fr[i] = r.Files[i] + ":" + fr[i]
				}
			}
			tab = append(tab, []string{r.Check, r.Proto, strconv.FormatUint(r.Checked, 10), strconv.FormatUint(r.Passed, 10),
				strconv.FormatUint(r.Failed, 10), strconv.FormatUint(skipped, 10), strings.Join(fr, " ")})
			if style != nil && r.Failed > 0 {
				mark = append(mark, style.Failed)
			} else {
				mark = append(mark, "")
			}
		}
		if idle < len(rows) {
			if err := render.TableStyled(out, render.TableASCII, []string{"Check", "Proto", "Checked", "Passed", "Failed", "Not checked", "First failing frames"}, tab, style, mark); err != nil {
				return err
			}
		}
		for _, r := range rows {
			if why, n := r.notChecked(); n > 0 {
				fmt.Fprintf(out, "%s not checked on %s: %s\n", r.Check, render.Plural(n, "PDU"), why)
			}
		}
		for _, r := range rows {
			if r.Explained > 0 {
				fmt.Fprintf(out, "%s: %d of %d failures explained, e.g. %s\n", r.Check, r.Explained, r.Failed, r.Explanation)
			}
		}
		fmt.Fprintf(out, "%d of %d checks applied to %s (rdx check -T json lists them all)\n", len(rows)-idle, len(rows), name)
	}
	return nil
}
