package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profileEnv names a file to write a CPU profile of the whole run to, for
// finding where a read spends its time (a debugging aid, not a flag users
// need: go tool pprof bin/rdx FILE).
const profileEnv = "RDX_CPUPROFILE"

// startProfile starts the CPU profile profileEnv asks for and returns what
// stops it.
func startProfile() func() {
	path := os.Getenv(profileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rdx:", profileEnv+":", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "rdx:", profileEnv+":", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
