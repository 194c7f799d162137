package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/pipeline"
)

// readMany is rdx read over several files: each file is read by its own
// engine (one file's budget, one worker), nw files at once, and printed in
// the order given exactly as rdx read -r FILE prints it alone (orderedOut
// holds a file's output until the files before it are out), except that
// -T json is one array and -T fields prints its -E header=y once (joined). The -z tables
// are counted by each engine and printed once at the end from the engines
// merged in the files' order; the closing counts are the files' summed.
func readMany(o *ReadOptions) error {
	switch {
	case o.MemProfile != "":
		return usageErr("--memprofile profiles one capture's read: give one file")
	}
	nw, eos, err := manyEngines(&o.EngineFlags, o.Files)
	if err != nil {
		return err
	}
	base, plots, err := readConfig(o, eos[0], 1)
	if err != nil {
		return err
	}
	if len(plots) > 0 {
		return usageErr("-z %s: a plot draws one capture; give one file", plots[0].file)
	}
	chk := base
	chk.Out = io.Discard
	if err := pipeline.Check(chk); err != nil { // once, not for every file
		return err
	}
	merge := len(base.Stats) > 0 // else no engine is kept past its file
	prog, parts, pio := filesProgress(o.IO, o.showProgress(), "read", o.Files)
	prog.Rounds("pass")
	defer prog.Stop()
	errOut := pio.ErrOut
	intr := notifyInterrupt(errOut)
	defer intr.Release()
	out := newTimedOut(o.IO.Out, 256<<10)
	defer out.Close()
	intr.OnGiveUp(func() { out.Flush() })
	var to io.Writer = out
	if o.LineFlush {
		to = flushingOut{out}
	}
	// -T json and -T fields -E header=y: one document of all the files
	jn := newJoined(to, o.Format, o.FieldOpts)
	if jn.active() {
		to = jn
	}
	oo := newOrderedOut(to, len(o.Files))
	if jn.active() {
		oo.next = jn.next
	}

	// -w: one file of every file's frames in the order given. A file
	// writes its frames when the files before it are written (its turn);
	// until then its first frame to write waits (writeTurn).
	var w interface {
		pipeline.Sink
		GiveUp()
	}
	turns := make([]chan struct{}, len(o.Files))
	if o.Write != "" {
		for i := range turns {
			turns[i] = make(chan struct{})
		}
		close(turns[0])
		w = pipeline.NewWriteSink(base)
		if err := w.Start(nil); err != nil {
			return err
		}
		intr.OnGiveUp(w.GiveUp)
	}

	var all *dissect.Engine
	var total pipeline.Result
	var errs []error
	var outErr error
	eachFile(len(o.Files), nw, intr, func(i int) (pipeline.Result, error) {
		cfg := base
		cfg.Input = pipeline.Input{File: o.Files[i], Stdin: o.IO.In, ErrOut: errOut, Progress: parts[i]}
		cfg.Engine = eos[i]
		cfg.Engine.NoProtoStats = !merge
		cfg.StatsMerged, cfg.Stop = true, intr
		if w != nil {
			cfg.WriteSink = &writeTurn{w: w, turn: turns[i], stop: intr.Done()}
		}
		if o.LineFlush {
			cfg.Out = oo.writer(i)
			return pipeline.Run(cfg)
		}
		bw := bufio.NewWriterSize(oo.writer(i), 64<<10)
		cfg.Out = bw
		res, err := pipeline.Run(cfg)
		if ferr := bw.Flush(); ferr != nil && err == nil {
			err = fmt.Errorf("writing output: %w", ferr)
		}
		return res, err
	}, func(i int, r pipeline.Result, err error) {
		if err != nil {
			fmt.Fprintf(errOut, "rdx: %s: %v\n", o.Files[i], err)
			errs = append(errs, err)
		}
		if merge {
			all = mergeRun(all, &total, r, i)
		} else {
			addCounts(&total, r)
		}
		if oerr := oo.done(i); oerr != nil && outErr == nil {
			outErr = fmt.Errorf("writing output: %w", oerr)
		}
		if i+1 < len(turns) && turns[i+1] != nil {
			close(turns[i+1])
		}
		prog.Items(i+1, len(o.Files), "captures")
	})
	prog.Stop()
	if w != nil {
		if err := w.End(nil); err != nil {
			errs = append(errs, err)
		}
	}
	if err := jn.close(); err != nil && outErr == nil {
		outErr = fmt.Errorf("writing output: %w", err)
	}
	if all != nil {
		for _, f := range all.MergeFindings() { // tables the merge took past their limits
			fmt.Fprintf(o.IO.ErrOut, "rdx: %s: %s\n", f.Proto, f.Msg)
		}
		if err := pipeline.WriteStatsStyled(out, all, base.Stats, false, "", base.StatsStyle, o.Files...); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil && outErr == nil {
		outErr = fmt.Errorf("writing output: %w", err)
	}
	if outErr != nil {
		return outErr
	}
	printCounts(o.IO, total, nil)
	if len(errs) > 0 {
		return unreadCaptures(len(errs), len(o.Files), "the output holds")
	}
	return nil
}

// writeTurn is one file's view of the -w sink of many files: its frames
// are written once the files before it are (turn is closed). A stop ends
// the wait, and the frames after it are not written.
type writeTurn struct {
	w      pipeline.Sink
	turn   <-chan struct{}
	stop   <-chan struct{}
	waited bool
	drop   bool
}

func (s *writeTurn) Start(*dissect.Engine) error { return nil }
func (s *writeTurn) End(error) error             { return nil } // the caller ends w after every file

func (s *writeTurn) Frame(f *dissect.Frame, t *dissect.Tree) {
	if !s.waited {
		s.waited = true
		select {
		case <-s.turn:
		case <-s.stop:
			s.drop = true
		}
	}
	if !s.drop {
		s.w.Frame(f, t)
	}
}
