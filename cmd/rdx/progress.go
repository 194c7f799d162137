package main

import (
	"os"

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
