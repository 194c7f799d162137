package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/rdx-project/rdx/flows"
	"github.com/rdx-project/rdx/pipeline"
)

// checkManyFiles refuses more files than a merged table can tell apart
// (flows.MaxFiles, far more than a command line holds).
func checkManyFiles(files []string) error {
	if len(files) > flows.MaxFiles {
		return usageErr("%d capture files: at most %d are read together", len(files), flows.MaxFiles)
	}
	return nil
}

// eachFile runs run(i) for each of n files, nw at once, started in the
// files' order, and calls then(i, ...) on the caller's goroutine for every
// file in the files' order, as soon as it and those before it are done:
// rdx read, stats, flows and check over many files print and merge in
// argument order whatever -j is. At most 2*nw runs are ahead of then (their
// engines held until merged). After stop no file starts; then gets a zero
// Result for those.
func eachFile(n, nw int, stop interface{ Stopped() bool }, run func(i int) (pipeline.Result, error),
	then func(i int, res pipeline.Result, err error)) {
	type outcome struct {
		res  pipeline.Result
		err  error
		done chan struct{}
	}
	outs := make([]outcome, n)
	for i := range outs {
		outs[i].done = make(chan struct{})
	}
	next := make(chan int)
	room := make(chan struct{}, 2*nw) // a token per run not yet taken by then
	go func() {
		defer close(next)
		for i := range n {
			room <- struct{}{}
			if stop.Stopped() {
				for j := i; j < n; j++ {
					close(outs[j].done)
				}
				return
			}
			next <- i
		}
	}()
	var wg sync.WaitGroup
	for range min(nw, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				outs[i].res, outs[i].err = run(i)
				close(outs[i].done)
			}
		}()
	}
	for i := range outs {
		<-outs[i].done
		then(i, outs[i].res, outs[i].err)
		outs[i].res = pipeline.Result{} // merged or printed: let the engine go
		<-room
	}
	wg.Wait()
}

// spoolMem is how much of a file's output is kept in memory while it waits
// for the files before it; the rest goes to an unnamed temporary file.
const spoolMem = 4 << 20

// orderedOut is the output of many files read at once, in the files' order:
// the writer of the file at the head writes through to out; the others keep
// what they are given (spoolMem in memory, then a temporary file) and hand
// it over when theirs becomes the head (done).
type orderedOut struct {
	mu     sync.Mutex
	out    io.Writer
	head   int
	spools []*spool
	err    error  // the first error writing out or a spool
	next   func() // called where one file's output ends and the next's begins (joined)
}

type spool struct {
	o   *orderedOut
	i   int
	buf []byte
	f   *os.File // past spoolMem; removed from its directory once created
}

func newOrderedOut(out io.Writer, n int) *orderedOut {
	o := &orderedOut{out: out, spools: make([]*spool, n)}
	for i := range o.spools {
		o.spools[i] = &spool{o: o, i: i}
	}
	return o
}

// writer is file i's output.
func (o *orderedOut) writer(i int) io.Writer { return o.spools[i] }

func (s *spool) Write(p []byte) (int, error) {
	o := s.o
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return 0, o.err
	}
	if o.head == s.i {
		n, err := o.out.Write(p)
		o.err = err
		return n, err
	}
	if s.f == nil && len(s.buf)+len(p) <= spoolMem {
		s.buf = append(s.buf, p...)
		return len(p), nil
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "rdx-read-*")
		if err != nil {
			o.err = err
			return 0, err
		}
		os.Remove(f.Name()) // nothing to clean up, whatever ends the process
		s.f = f
	}
	n, err := s.f.Write(p)
	o.err = err
	return n, err
}

// done says file i's output is complete (i is the head: eachFile's then
// runs in order): the next file's kept output is written out, and its
// writer writes through from now on.
func (o *orderedOut) done(i int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if i != o.head {
		return nil
	}
	o.head++
	if o.next != nil {
		o.next()
	}
	if o.head == len(o.spools) {
		return o.err
	}
	s := o.spools[o.head]
	if o.err == nil {
		_, o.err = o.out.Write(s.buf)
	}
	s.buf = nil
	if s.f != nil {
		if o.err == nil {
			if _, o.err = s.f.Seek(0, io.SeekStart); o.err == nil {
				_, o.err = io.Copy(o.out, s.f)
			}
		}
		s.f.Close()
		s.f = nil
	}
	return o.err
}

// joined is what orderedOut writes through for the output formats in which
// many files make one document, as one capture of them all would: -T json
// (one array of every file's frames, not an array a file) and -T fields
// with -E header=y (the header line once). orderedOut hands it the files'
// outputs in order and says where each ends (next).
type joined struct {
	out      io.Writer
	json     bool
	header   bool
	files    int    // files begun
	skip     int    // JSON: octets of this file's "[\n" still to drop
	skipLine bool   // fields: this file's header line is still to drop
	tail     []byte // JSON: this file's last octets, held back: its "\n]\n" at the end
	body     bool   // JSON: this file has written a frame
	any      bool   // JSON: some file has
}

func newJoined(out io.Writer, format string, fieldOpts []string) *joined {
	j := &joined{out: out, json: format == "json", skip: 2}
	for _, o := range fieldOpts {
		if v, ok := strings.CutPrefix(o, "header="); ok {
			j.header = format == "fields" && v == "y"
		}
	}
	return j
}

// active: without one of its formats joined passes everything through.
func (j *joined) active() bool { return j.json || j.header }

func (j *joined) Write(p []byte) (int, error) {
	n := len(p)
	switch {
	case j.json:
		d := min(j.skip, len(p))
		p, j.skip = p[d:], j.skip-d
		if len(p) == 0 {
			return n, nil
		}
		all := append(j.tail, p...)
		keep := min(3, len(all))
		emit := all[:len(all)-keep]
		if len(emit) > 0 {
			var pre string
			switch {
			case !j.body && j.any:
				pre = ",\n"
			case !j.body:
				pre = "[\n"
			}
			if _, err := io.WriteString(j.out, pre); err != nil {
				return 0, err
			}
			j.body = true
			if _, err := j.out.Write(emit); err != nil {
				return 0, err
			}
		}
		j.tail = append(j.tail[:0:0], all[len(all)-keep:]...)
		return n, nil
	case j.skipLine:
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return n, nil
		}
		j.skipLine = false
		p = p[i+1:]
	}
	if _, err := j.out.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// next says the file being written is complete: JSON drops its closing
// "\n]\n" (or the "]\n" of an empty array), fields the next file's header.
func (j *joined) next() {
	j.files++
	j.any = j.any || j.body
	j.body, j.skip, j.tail = false, 2, nil
	j.skipLine = j.header
}

// close ends the one document: the array's "]" (an empty array when no
// file had a frame).
func (j *joined) close() error {
	if !j.json {
		return nil
	}
	end := "\n]\n"
	if !j.any {
		end = "[\n]\n"
	}
	_, err := io.WriteString(j.out, end)
	return err
}
