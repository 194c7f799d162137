package oncrpc

import "testing"

// TestProcName holds the flat procTable to the programs map it is built
// from: every program, version and procedure, and the misses around them.
func TestProcName(t *testing.T) {
	n := 0
	for prog, pi := range programs {
		for vers, procs := range pi.procs {
			for proc := range uint32(40) {
				if got, want := ProcName(prog, vers, proc), procs[proc]; got != want {
					t.Errorf("ProcName(%d, %d, %d) = %q, want %q", prog, vers, proc, got, want)
				}
				n++
			}
			if got := ProcName(prog, vers, 1<<31); got != "" {
				t.Errorf("ProcName(%d, %d, 1<<31) = %q, want none", prog, vers, got)
			}
		}
		if got := ProcName(prog, 99, 0); got != "" {
			t.Errorf("ProcName(%d, 99, 0) = %q, want none", prog, got)
		}
	}
	if got := ProcName(1, 3, 1); got != "" {
		t.Errorf("ProcName of an unknown program = %q", got)
	}
	if ProcName(nfsProgram, 3, 1) != "GETATTR" || n == 0 {
		t.Errorf("NFSv3 GETATTR: %q", ProcName(nfsProgram, 3, 1))
	}
}
