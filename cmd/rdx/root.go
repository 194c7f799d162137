package main

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/internal/iostreams"

	_ "github.com/rdx-project/rdx/dissect/all" // every protocol registers itself
)

// Exit codes scripts can trust.
const (
	exitOK       = 0
	exitFindings = 1 // `rdx check` found failures
	exitUsage    = 2 // usage or input error
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageErr(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// newRoot is the whole command tree.
func newRoot(io *iostreams.IO) *cobra.Command {
	root := newBareRoot(io)
	root.AddCommand(newCmdRead(io, nil), newCmdFields(io, nil))
	for _, v := range verbs {
		root.AddCommand(v.make(io))
	}
	return root
}

// newRootFor is the tree run needs for args: when they start with a
// command's name, the root holds that command alone, since making every
// verb's flags cost each run ~1 ms and 220 KB before its first frame.
// Anything else (help, completion, a flag first, an unknown command, which
// cobra answers with suggestions from all of them) gets the whole tree.
func newRootFor(io *iostreams.IO, args []string) *cobra.Command {
	if len(args) == 0 {
		return newRoot(io)
	}
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-v") {
		return newBareRoot(io) // the version, printed before any command is looked at
	}
	var mk func(*iostreams.IO) *cobra.Command
	switch args[0] {
	case "read":
		mk = func(io *iostreams.IO) *cobra.Command { return newCmdRead(io, nil) }
	case "fields":
		mk = func(io *iostreams.IO) *cobra.Command { return newCmdFields(io, nil) }
	default:
		for _, v := range verbs {
			if v.name == args[0] {
				mk = v.make
			}
		}
	}
	if mk == nil {
		return newRoot(io)
	}
	root := newBareRoot(io)
	root.AddCommand(mk(io))
	return root
}

// newBareRoot is the root command with its own flags and no commands.
func newBareRoot(io *iostreams.IO) *cobra.Command {
	root := &cobra.Command{
		Use:   "rdx",
		Short: "Dissect and analyze Rx/AFS, RDS, RPC-over-RDMA, iWARP, InfiniBand/RoCE and RDP traffic",
		Long: `Dissect and analyze Rx/AFS, RDS, RPC-over-RDMA, iWARP, InfiniBand/RoCE and RDP traffic.

Exit status, the same for every verb:
  0  done (findings in a capture do not change it, except in check)
  1  check found a failure (rx call: the server aborted the call)
  2  a usage error (bad flag, value, field, filter or preference) or an input
     error (missing, unreadable or damaged file, frame named); what was read
     before a damaged record is still printed
  128+N  stopped by a second signal N
tshark exits 1 for a bad flag or field; rdx keeps 1 for "check failed" alone so
that a script can tell a failing capture from a mistyped command.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	// -v and --version, as tshark -v
	root.Flags().BoolP("version", "v", false, "print rdx's version and exit")
	root.SetVersionTemplate("rdx {{.Version}}\n")
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	addColorFlags(root, io)
	return root
}

// version is the module version (a tagged build), else the commit the
// binary was built from, and the Go that built it.
func version() string {
	v, rev, dirty := "(devel)", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " commit " + rev
		if dirty {
			v += " (modified)"
		}
	}
	return v + ", " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}

// verbs holds the other commands; each verb's file adds itself in init, so a
// new verb touches no shared file.
var verbs []verbDef

// verbDef is a command by the first word of its Use (TestVerbNames), so
// that run makes only the one it is asked for.
type verbDef struct {
	name string
	make func(*iostreams.IO) *cobra.Command
}

// verb registers a command constructor of the cli/cli shape newCmdX(io,
// runF): flags fill an options struct, and runF (nil here; a test's hook)
// replaces the run.
func verb[O any](newCmd func(*iostreams.IO, func(*O) error) *cobra.Command) func(*iostreams.IO) *cobra.Command {
	return func(io *iostreams.IO) *cobra.Command { return newCmd(io, nil) }
}

func run(io *iostreams.IO, args []string) int {
	return execute(io, newRootFor(io, args), args)
}

// execute runs root on args and gives the exit code.
func execute(io *iostreams.IO, root *cobra.Command, args []string) int {
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(io.ErrOut, "rdx:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage // cobra's own errors are usage errors
}
