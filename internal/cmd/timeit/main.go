// Command timeit runs a command once, its output discarded, and writes one
// line to the file -o: the wall seconds from just before the process is
// started to just after it is reaped, then its user and system CPU seconds
// and peak RSS in KB (from wait4's rusage, which counts the children it
// waited for, as /usr/bin/time does). It exits with the command's status.
//
// The bench scripts time with it instead of bash's clock around
// /usr/bin/time: that span also held a bash fork and the start of
// /usr/bin/time itself, ~11 ms a command on the 2-core VM (timing
// /usr/bin/true), a twelfth of a 0.15 s rdx run. Here the clock holds only
// the command's own process: its start-up, work and exit.
//
//	timeit -o FILE command [args...]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "file to write `wall user sys maxrssKB` to")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: timeit -o FILE command [args...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	os.Exit(run(*out, flag.Args()))
}

// run times args and writes the line; it returns the exit status for
// timeit to exit with (2 when the command could not be run at all).
func run(out string, args []string) int {
	path, err := exec.LookPath(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "timeit:", err)
		return 2
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "timeit:", err)
		return 2
	}
	defer null.Close()
	// Everything the start needs is ready before the clock starts.
	attr := &os.ProcAttr{Files: []*os.File{os.Stdin, null, null}}
	t0 := time.Now()
	p, err := os.StartProcess(path, args, attr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "timeit:", err)
		return 2
	}
	st, err := p.Wait()
	wall := time.Since(t0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "timeit:", err)
		return 2
	}
	line := fmt.Sprintf("%.4f ? ? ?\n", wall.Seconds())
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		line = fmt.Sprintf("%.4f %.3f %.3f %d\n", wall.Seconds(), tv(ru.Utime), tv(ru.Stime), ru.Maxrss)
	}
	if err := os.WriteFile(out, []byte(line), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "timeit:", err)
		return 2
	}
	if code := st.ExitCode(); code >= 0 {
		return code
	}
	return 128 + int(st.Sys().(syscall.WaitStatus).Signal()) // killed by a signal, as a shell says it
}

// tv is a rusage time in seconds.
func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
