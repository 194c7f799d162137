//go:build !lean

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// TestReportFlags: -o is the output here, preferences are --option, and
// report takes many files.
func TestReportFlags(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	var o *ReportOptions
	if c := execCmd(newCmdReport(io, hook(&o)), []string{"-o", "r.html", "-d", "tcp.port==4210,mpa", "--option", "mpa.crc=1",
		"--mpa-markers", "0", "a.pcap", "b.pcap"}); c != 0 || o == nil {
		t.Fatalf("report: exit %d", c)
	}
	if o.Output != "r.html" || !slices.Equal(o.Files, []string{"a.pcap", "b.pcap"}) || !slices.Equal(o.DecodeAs, []string{"tcp.port==4210,mpa"}) ||
		!slices.Equal(o.Prefs, []string{"mpa.crc=1", "mpa.markers=0"}) {
		t.Errorf("report parsed as %+v", o)
	}
	for _, args := range [][]string{{"a.pcap"}, {"-o", "r.html"}} { // no -o; no file
		if c := execCmd(newCmdReport(io, hook(&o)), args); c != exitUsage {
			t.Errorf("report %q: exit %d, want %d", args, c, exitUsage)
		}
	}
}

// TestReportRun writes a page and keeps the exit codes: 0 with findings
// (check is for failing on them), 2 for a missing file (no page), 2 for a
// cut capture (a page of the frames before the cut).
func TestReportRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	io, _, _, errb := iostreams.Test()
	if c := run(io, []string{"report", "../../pcaps/crafted/base_fields.pcap", "-o", out}); c != exitOK {
		t.Fatalf("exit %d: %s", c, errb)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<table class="checks">`, `id="frame-1"`, `href="#frame-1"`, "ip.checksum"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("page has no %q", want)
		}
	}
	if !strings.Contains(errb.String(), "19 frames; findings: 33 errors") {
		t.Errorf("stderr %q", errb)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".r.html.rdx-*")); len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}

	missing := filepath.Join(dir, "none.html")
	io, _, _, errb = iostreams.Test()
	if c := run(io, []string{"report", filepath.Join(dir, "missing.pcap"), "-o", missing}); c != exitUsage || !strings.Contains(errb.String(), "missing.pcap") {
		t.Errorf("missing capture: exit %d, want %d; %s", c, exitUsage, errb)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("a page was written for a missing capture")
	}

	src, err := os.ReadFile("../../pcaps/rdp/lossy.pcap")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.pcap")
	if err := os.WriteFile(cut, src[:len(src)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	cutOut := filepath.Join(dir, "cut.html")
	io, _, _, errb = iostreams.Test()
	if c := run(io, []string{"report", cut, "-o", cutOut}); c != exitUsage || !strings.Contains(errb.String(), "cut.pcap") {
		t.Errorf("cut capture: exit %d, want %d; %s", c, exitUsage, errb)
	}
	if b, err := os.ReadFile(cutOut); err != nil || !strings.Contains(string(b), "Reading stopped early") {
		t.Errorf("cut capture: page %d bytes, %v", len(b), err)
	}

	// -o onto a capture (here through a link) is refused before reading.
	capCopy := filepath.Join(dir, "c.pcap")
	if err := os.WriteFile(capCopy, src, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.html")
	if err := os.Symlink(capCopy, link); err != nil {
		t.Fatal(err)
	}
	io, _, _, errb = iostreams.Test()
	if c := run(io, []string{"report", capCopy, "-o", link}); c != exitUsage || !strings.Contains(errb.String(), "refusing to overwrite the capture") {
		t.Errorf("-o onto the capture: exit %d, %s", c, errb)
	}
	if b, err := os.ReadFile(capCopy); err != nil || !bytes.Equal(b, src) {
		t.Error("the capture was changed")
	}
	// A link to a file writes the file.
	page := filepath.Join(dir, "page.html")
	if err := os.WriteFile(page, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(page, filepath.Join(dir, "page-link.html")); err != nil {
		t.Fatal(err)
	}
	io, _, _, errb = iostreams.Test()
	if c := run(io, []string{"report", capCopy, "-o", filepath.Join(dir, "page-link.html")}); c != exitOK {
		t.Errorf("-o a link: exit %d, %s", c, errb)
	}
	if b, err := os.ReadFile(page); err != nil || !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) {
		t.Errorf("-o a link: the linked file has %d bytes, %v", len(b), err)
	}
	// A directory that is not there fails before reading.
	io, _, _, errb = iostreams.Test()
	if c := run(io, []string{"report", capCopy, "-o", filepath.Join(dir, "no", "r.html")}); c != exitUsage || !strings.Contains(errb.String(), "-o ") {
		t.Errorf("-o in a missing directory: exit %d, %s", c, errb)
	}

	io, _, stdout, _ := iostreams.Test()
	if c := run(io, []string{"report", "../../pcaps/crafted/base_fields.pcap", "-o", "-"}); c != exitOK || !strings.HasPrefix(stdout.String(), "<!DOCTYPE html>") {
		t.Errorf("-o -: exit %d, %d bytes", c, stdout.Len())
	}
}
