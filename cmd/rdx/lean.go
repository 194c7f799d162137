//go:build lean

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/pipeline"
)

// The lean build (go build -tags lean; make build's bin/rdx) leaves out
// plot, report, export and read's -z io,stat,INTERVAL,plot=FILE, and with
// them the packages only they use: gonum/plot (whose init parses its
// fonts; with go-latex's symbol tables and go-pdf), parquet-go (with
// protobuf's registries and net/http). Go runs every linked package's init
// at every start, whatever the verb: they were 12 of the 42 ms `rdx read -q`
// of a 3 KB capture took, and 16 ms of rdx read -q of 1M Rx packets (about
// 10%), in page faults of a binary twice the size as much as in init.
//
// Those commands run rdx-full, the same program built without the tag,
// with the same arguments, in place of this process (exec): from beside
// this binary, or else from PATH.
const fullName = "rdx-full"

// forwardedEnv marks a process rdx-full was started as: if that one is a
// lean build too, it says so instead of starting itself again.
const forwardedEnv = "RDX_LEAN_FORWARDED"

func init() {
	for _, v := range []struct{ use, short string }{{plotUse, plotShort}, {reportUse, reportShort}, {exportUse, exportShort}} {
		verbs = append(verbs, verbDef{strings.Fields(v.use)[0], func(*iostreams.IO) *cobra.Command { return forwarded(v.use, v.short) }})
	}
}

// forwarded is a command of the full build: its run, its help and its
// shell completion are rdx-full's, so its flags are not parsed here.
func forwarded(use, short string) *cobra.Command {
	cmd := &cobra.Command{
		Use:                use,
		Short:              short,
		DisableFlagParsing: true,
		SilenceUsage:       true,
		RunE:               func(*cobra.Command, []string) error { return execFull() },
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			execFull() // only returns on failure: no completions then
			return nil, cobra.ShellCompDirectiveError
		},
	}
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { // rdx help plot
		if err := execFull(); err != nil {
			fmt.Fprintln(c.ErrOrStderr(), "rdx:", err)
			os.Exit(exitUsage)
		}
	})
	return cmd
}

// execFull runs rdx-full with this process's arguments in its place; it
// returns only when it could not.
func execFull() error {
	if os.Getenv(forwardedEnv) != "" {
		return usageErr("%s is a lean build too (built with -tags lean): build it without the tag", fullName)
	}
	path, err := fullPath()
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	env := append(os.Environ(), forwardedEnv+"=1")
	err = syscall.Exec(path, append([]string{path}, os.Args[1:]...), env)
	return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", path, err)}
}

// fullPath is rdx-full beside this executable, else in PATH.
func fullPath() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), fullName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath(fullName)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("plot, report, export and -z ...%sFILE are in %s, which is neither beside this rdx nor in PATH (make build and make install make both; go install builds a full rdx)", zPlotSep, fullName)
		}
		return "", err
	}
	return p, nil
}

// zPlot is read's -z picture: the lean build draws none (execFull).
type zPlot struct{ file string }

func zPlots(stats []string) (rest []string, plots []zPlot, err error) {
	for _, z := range stats {
		if strings.Contains(z, zPlotSep) {
			return nil, nil, execFull()
		}
	}
	return stats, nil, nil
}

func addZPlots(*pipeline.Config, []zPlot, string) {}

func writeZPlots(_ *iostreams.IO, _ []zPlot, runErr error) error { return runErr }
