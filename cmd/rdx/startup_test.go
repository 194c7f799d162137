package main

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// rootBudget bounds what building the command tree may allocate: every
// run pays it before its first frame (`rdx read -q` of a small capture).
// It was ~645 KB when read's -z completion built a whole engine up front.
const rootBudget = 320 << 10

// Building the command tree stays cheap: work only some commands or a shell
// completion need (the -z table list, ...) is done when asked for.
func TestRootIsCheap(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	newRoot(io) // warm: once-only package state
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	newRoot(io)
	runtime.ReadMemStats(&b)
	if got := b.TotalAlloc - a.TotalAlloc; got > rootBudget {
		t.Errorf("newRoot allocated %d bytes, budget %d", got, rootBudget)
	}
}

// initBudget bounds what rdx's own packages may allocate at init, before
// main: every run of every verb pays it. Work only some verbs need
// (report's HTML template, a colour style, lookup tables of one protocol)
// is built on first use.
const initBudget = 800 << 10

// lazyInit lists packages whose init must stay next to free: what they
// used to build at init (report's template, render's ANSI style) only some
// runs use.
var lazyInit = map[string]uint64{
	"github.com/rdx-project/rdx/report": 4 << 10,
	"github.com/rdx-project/rdx/render": 4 << 10,
}

// initTrace runs the test binary, which links what rdx links, with
// GODEBUG=inittrace=1: each package's init in the order run, with the
// bytes it allocated.
func initTrace(t *testing.T) []initLine {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var inits []initLine
	for line := range strings.Lines(string(out)) {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" {
			continue
		}
		b, err := strconv.ParseUint(f[7], 10, 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		inits = append(inits, initLine{f[1], b})
	}
	if len(inits) == 0 {
		t.Fatalf("no init lines in %q", out)
	}
	return inits
}

type initLine struct {
	pkg   string
	bytes uint64
}

// Package init stays cheap.
func TestInitIsCheap(t *testing.T) {
	var total uint64
	seen := 0
	for _, in := range initTrace(t) {
		if !strings.HasPrefix(in.pkg, "github.com/rdx-project/rdx/") {
			continue
		}
		seen++
		total += in.bytes
		if max, ok := lazyInit[in.pkg]; ok && in.bytes > max {
			t.Errorf("%s allocates %d bytes at init, want <= %d", in.pkg, in.bytes, max)
		}
	}
	if seen == 0 {
		t.Fatal("no init lines from rdx's packages")
	}
	if total > initBudget {
		t.Errorf("rdx's packages allocate %d bytes at init, budget %d", total, initBudget)
	}
}

// Every verb is registered under its command's name: run finds it by
// that name and makes it alone.
func TestVerbNames(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	for _, v := range verbs {
		if got := v.make(io).Name(); got != v.name {
			t.Errorf("verb %q makes command %q", v.name, got)
		}
	}
	if len(verbs)+2 != len(newRoot(io).Commands()) {
		t.Errorf("%d verbs + read + fields, the tree has %d commands", len(verbs), len(newRoot(io).Commands()))
	}
}

// A root holding only the command asked for answers as the whole tree
// does: help, bad flags, missing arguments, subcommands; and it makes far
// less than the whole tree.
func TestRootForOneCommand(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	for _, c := range newRoot(io).Commands() {
		for _, args := range [][]string{{"--help"}, {"--no-such-flag"}, {}, {"no-such-arg", "-h"}} {
			args = append([]string{c.Name()}, args...)
			lio, _, lout, lerr := iostreams.Test()
			lcode := run(lio, args)
			fio, _, fout, ferr := iostreams.Test()
			fcode := execute(fio, newRoot(fio), args)
			if lcode != fcode || lout.String() != fout.String() || lerr.String() != ferr.String() {
				t.Errorf("%q: one command: exit %d, %q, %q; whole tree: exit %d, %q, %q",
					args, lcode, lout, lerr, fcode, fout, ferr)
			}
		}
	}
	for _, args := range [][]string{{"--version"}, {"-v"}, {"-v", "read"}, {"--version", "--help"}} {
		lio, _, lout, lerr := iostreams.Test()
		lcode := run(lio, args)
		fio, _, fout, ferr := iostreams.Test()
		fcode := execute(fio, newRoot(fio), args)
		if lcode != fcode || lout.String() != fout.String() || lerr.String() != ferr.String() || lout.Len()+lerr.Len() == 0 {
			t.Errorf("%q: one command: exit %d, %q, %q; whole tree: exit %d, %q, %q",
				args, lcode, lout, lerr, fcode, fout, ferr)
		}
	}
	if got := len(newRootFor(io, []string{"--version"}).Commands()); got != 0 {
		t.Errorf("rdx --version makes %d commands", got)
	}
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	newRootFor(io, []string{"read", "-q", "x.pcap"})
	runtime.ReadMemStats(&b)
	if got := b.TotalAlloc - a.TotalAlloc; got > readRootBudget {
		t.Errorf("the tree for read allocated %d bytes, budget %d", got, readRootBudget)
	}
}

// readRootBudget bounds what the tree for `rdx read` may allocate (the
// whole tree, ~220 KB, is for help and completion).
const readRootBudget = 64 << 10

// internal/startup's init runs before the inits that allocate most (it
// sets MemProfileRate and maps in the heap they fill): after at most
// earlyBudget bytes of allocations, before tablewriter's, gonum/plot's and
// any of rdx's. A dependency added to it that is initialised late would
// move it after them.
func TestStartupInitIsEarly(t *testing.T) {
	const earlyBudget = 256 << 10
	var before uint64
	for _, in := range initTrace(t) {
		if in.pkg == "github.com/rdx-project/rdx/internal/startup" {
			if before > earlyBudget {
				t.Errorf("%d bytes allocated by inits before internal/startup's, want <= %d", before, earlyBudget)
			}
			return
		}
		if strings.HasPrefix(in.pkg, "github.com/rdx-project/rdx/dissect") || in.pkg == "github.com/olekukonko/tablewriter/pkg/twwidth" || in.pkg == "gonum.org/v1/plot" {
			t.Errorf("%s initialised before internal/startup", in.pkg)
		}
		before += in.bytes
	}
	t.Fatal("no init line for internal/startup")
}
