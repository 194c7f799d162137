//go:build !lean

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// leanLeavesOut are packages the lean build (lean.go) must not link: each
// runs an init of its own at every start. The full build links them all,
// so the check can fail.
var leanLeavesOut = []string{
	"gonum.org/v1/plot",
	"codeberg.org/go-latex/latex/mtex",
	"github.com/parquet-go/parquet-go",
	"google.golang.org/protobuf/proto",
	"net/http",
}

func TestLeanBuildLeavesOut(t *testing.T) {
	deps := func(tags ...string) []string {
		out, err := exec.Command("go", append(append([]string{"list", "-deps"}, tags...), ".")...).Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		return strings.Fields(string(out))
	}
	lean, full := deps("-tags", "lean"), deps()
	for _, pkg := range leanLeavesOut {
		if slices.Contains(lean, pkg) {
			t.Errorf("the lean build links %s", pkg)
		}
		if !slices.Contains(full, pkg) {
			t.Errorf("the full build does not link %s: what is this test guarding?", pkg)
		}
	}
}

// The lean build's plot, report, export and read -z ...,plot=FILE run
// rdx-full: what they write is what the full build writes, their help is
// its help, and without rdx-full they fail with a clear error (exit 2).
func TestLeanBuildForwards(t *testing.T) {
	// The full build is the subprocess tests' (rdxBin), beside the lean one
	// as rdx-full.
	dir := t.TempDir()
	lean, full := filepath.Join(dir, "rdx"), filepath.Join(dir, "rdx-full")
	if out, err := exec.Command("go", "build", "-tags", "lean", "-o", lean, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags lean: %v\n%s", err, out)
	}
	if err := os.Symlink(rdxBin(t), full); err != nil {
		t.Fatal(err)
	}
	// rdxIn runs bin with args in the directory wd, PATH without rdx-full.
	rdxIn := func(bin, wd string, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = wd
		cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s %v: %v", bin, args, err)
		}
		return o.String(), e.String(), code
	}
	ptsOps, _ := filepath.Abs("../../pcaps/rx/pts-ops.pcap")
	lossy, _ := filepath.Abs("../../pcaps/kernel/lossy_rds_tcp.pcap")
	for _, c := range []struct {
		name string
		args []string // OUT is replaced by the output's path
		want []string // in what it wrote
	}{
		{"plot", []string{"plot", "srt", ptsOps, "-o", "OUT.svg"}, []string{"out.svg: <?xml", "</svg>"}},
		{"report", []string{"report", lossy, "-o", "OUT.html"}, []string{"out.html: <!DOCTYPE html>", "lossy_rds_tcp"}},
		{"export", []string{"export", "-w", "OUT", ptsOps}, []string{"frames/host=pts-ops/pts-ops.pcap.parquet: PAR1"}},
		{"read -z plot", []string{"read", "-q", "-z", "io,stat,0.01,plot=OUT.svg", ptsOps}, []string{"IO statistics", "out.svg: <?xml"}},
		{"help plot", []string{"help", "plot"}, []string{"plot decodes the captures", "--interval"}},
		{"plot --help", []string{"plot", "--help"}, []string{"plot decodes the captures", "--interval"}},
		{"export, bad flag", []string{"export", "--no-such-flag"}, []string{"unknown flag: --no-such-flag\n\n--\n2"}},
	} {
		var outs [2]string
		for i, bin := range []string{lean, full} {
			wd := t.TempDir()
			args := slices.Clone(c.args)
			for j := range args {
				args[j] = strings.Replace(args[j], "OUT", filepath.Join(wd, "out"), 1)
			}
			stdout, stderr, code := rdxIn(bin, wd, args...)
			// what it wrote: stdout, stderr, the exit code and every file
			// under wd by its name there
			var files []string
			filepath.WalkDir(wd, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					rel, _ := filepath.Rel(wd, p)
					files = append(files, rel+": "+string(b))
				}
				return nil
			})
			outs[i] = strings.ReplaceAll(strings.Join(append([]string{stdout, stderr, string(rune('0' + code))}, files...), "\n--\n"), wd, "WD")
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: lean and full builds differ:\n%.600s\n====\n%.600s", c.name, outs[0], outs[1])
		}
		for _, w := range c.want {
			if !strings.Contains(outs[0], w) {
				t.Errorf("%s: no %q in what it wrote:\n%.600s", c.name, w, outs[0])
			}
		}
	}

	// Alone, without rdx-full beside it or in PATH.
	alone := filepath.Join(t.TempDir(), "rdx")
	b, err := os.ReadFile(lean)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"plot", "io", ptsOps, "-o", "x.svg"}, {"read", "-z", "io,stat,1,plot=x.svg", ptsOps}} {
		_, stderr, code := rdxIn(alone, t.TempDir(), args...)
		if code != exitUsage || !strings.Contains(stderr, "rdx-full, which is neither beside this rdx nor in PATH") {
			t.Errorf("lean rdx %v without rdx-full: exit %d, %q", args, code, stderr)
		}
	}
	// A lean rdx-full: an error, not a loop.
	if err := os.WriteFile(filepath.Join(filepath.Dir(alone), "rdx-full"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := rdxIn(alone, t.TempDir(), "plot", "io", ptsOps, "-o", "x.svg"); code != exitUsage || !strings.Contains(stderr, "rdx-full is a lean build too") {
		t.Errorf("lean rdx with a lean rdx-full: exit %d, %q", code, stderr)
	}
	// What stays in the lean build runs there.
	if stdout, _, code := rdxIn(alone, t.TempDir(), "read", "-c", "1", ptsOps); code != 0 || !strings.Contains(stdout, "RX") {
		t.Errorf("lean rdx read: exit %d, %q", code, stdout)
	}
}

// `make install` puts the lean rdx and rdx-full side by side, so the lean
// one's plot runs (the installed rdx-full, found beside it, not in PATH),
// and writes the shell completions.
func TestMakeInstall(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("SKIP: no make in PATH; `make install` not checked")
	}
	tmp := t.TempDir()
	dest := filepath.Join(tmp, "dest")
	cmd := exec.Command(mk, "-C", "../..", "install", "BIN="+filepath.Join(tmp, "build", "rdx"), "DESTDIR="+dest, "PREFIX=/usr")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	bin := filepath.Join(dest, "usr", "bin")
	for _, c := range []struct{ name, want string }{
		{"bin/rdx", "-tags=lean"},
		{"bin/rdx-full", "path\tgithub.com/rdx-project/rdx/cmd/rdx"},
	} {
		out, err := exec.Command("go", "version", "-m", filepath.Join(dest, "usr", c.name)).Output()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: go version -m: %v, no %q in\n%s", c.name, err, c.want, out)
		}
		if c.name == "bin/rdx-full" && strings.Contains(string(out), "-tags=lean") {
			t.Errorf("%s is a lean build", c.name)
		}
	}
	plot := exec.Command(filepath.Join(bin, "rdx"), "plot", "--help")
	plot.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
	out, err := plot.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "plot decodes the captures") {
		t.Errorf("installed rdx plot --help: %v\n%s", err, out)
	}
	for _, c := range []struct{ path, want string }{
		{"share/bash-completion/completions/rdx", "__start_rdx"},
		{"share/zsh/site-functions/_rdx", "#compdef rdx"},
		{"share/fish/vendor_completions.d/rdx.fish", "complete -c rdx"},
	} {
		b, err := os.ReadFile(filepath.Join(dest, "usr", c.path))
		if err != nil || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %v, no %q", c.path, err, c.want)
		}
	}
}
