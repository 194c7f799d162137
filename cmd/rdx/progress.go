package main

import (
	"fmt"
	"os"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/internal/progress"
)

// newProgress is a verb's status line: only when show and standard error
// is a terminal (nil, which draws nothing, otherwise). The returned IO is
// io with standard error erasing the line before each message.
func newProgress(io *iostreams.IO, show bool, label string) (*progress.Meter, *iostreams.IO) {
	m := progress.New(io.ErrOut, show && io.IsStderrTTY(), label)
	if m == nil {
		return nil, io
	}
	c := *io
	c.ErrOut = m.Writer(io.ErrOut)
	return m, &c
}

// fileSize is name's size for a meter's position (0: unknown, as standard
// input's).
func fileSize(name string) int64 {
	if name == "-" {
		return 0
	}
	if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
		return fi.Size()
	}
	return 0
}

// newFilesProgress is the status line of a verb that reads several files,
// each in its own engine (export, stats, flows): captures done, frames and
// the position in every file. The returned IO's standard error erases the
// line before each line printed; Start is called, Stop is the caller's.
func newFilesProgress(io *iostreams.IO, label string, files []string) (*progress.Meter, []*progress.Part, *iostreams.IO) {
	return filesProgress(io, true, label, files)
}

// filesProgress is newFilesProgress drawn only when show (rdx read: not
// among frames printed to the terminal).
func filesProgress(io *iostreams.IO, show bool, label string, files []string) (*progress.Meter, []*progress.Part, *iostreams.IO) {
	prog, pio := newProgress(io, show, label)
	parts := make([]*progress.Part, len(files))
	for i, file := range files {
		parts[i] = prog.Part(fileSize(file))
	}
	prog.Items(0, len(files), "captures")
	prog.Start()
	return prog, parts, pio
}

// manyEngines is the set-up of rdx read, check, stats and flows over
// several files: the count checked, -j's files at once (at most one a
// file), each file's engine options (fileEngines) and the collector's
// limit for that many engines at once.
func manyEngines(ef *EngineFlags, files []string) (int, []dissect.Options, error) {
	if err := checkManyFiles(files); err != nil {
		return 0, nil, err
	}
	nw, err := ef.workers()
	if err != nil {
		return 0, nil, err
	}
	nw = min(nw, len(files))
	eos, err := fileEngines(*ef, files)
	if err != nil {
		return 0, nil, err
	}
	setMemoryLimit(eos[0].MaxMem*int64(nw), nw)
	return nw, eos, nil
}

// fileEngines is the engine options of each file of a verb that gives every
// file its own engine with one file's budget, whatever -j is (-j says how
// many files run at once, not how a file is split).
func fileEngines(ef EngineFlags, files []string) ([]dissect.Options, error) {
	ef.Workers = 1
	eos := make([]dissect.Options, len(files))
	for i, file := range files {
		var err error
		if eos[i], err = engineOptions(&ef, file); err != nil {
			return nil, err
		}
	}
	return eos, nil
}

// unreadCaptures is the input error (exit 2) of a verb over many files
// when n of them stopped early; held says what the run still wrote ("the
// output holds", "their files hold").
func unreadCaptures(n, files int, held string) error {
	return &exitError{code: exitUsage, err: fmt.Errorf("%d of %d captures were not read to the end (%s what was read)", n, files, held)}
}
