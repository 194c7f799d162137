//go:build linux

package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/rdx-project/rdx/report"
)

// The browser tests load the page in headless Chromium (Debian's chromium
// package, installed by .ci/run), driven by its command line alone: a
// probe script added to a copy of the page checks the DOM once the page
// has loaded and leaves its verdict in the DOM, which --dump-dom prints;
// console errors come on standard error (--enable-logging=stderr).

// chromium is the browser's path, or "" when none is installed.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// needChromium skips, loudly, when there is no browser.
func needChromium(t *testing.T) string {
	t.Helper()
	bin := chromium()
	if bin == "" {
		t.Log("!!! SKIPPED: no chromium in PATH (apt-get install chromium): the HTML report is NOT checked in a browser !!!")
		t.Skip("no chromium in PATH (apt-get install chromium)")
	}
	return bin
}

// runChromium runs the browser headless on a page with args, in its own
// process group and profile, and returns what it wrote. Every process it
// started (renderers, the crash handler) is killed when it returns.
func runChromium(t *testing.T, bin, page string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	profile := t.TempDir()
	all := append([]string{"--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"}, args...)
	all = append(all, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, all...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = append(os.Environ(), "HOME="+profile) // no dot files in the real home
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what outlived the browser
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, errb.String())
	}
	return out.String(), errb.String()
}

// consoleErrors are the page's console errors and uncaught exceptions as
// Chromium logs them on standard error ("CONSOLE" lines; the browser's own
// dbus and GPU noise is not the page's).
func consoleErrors(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "CONSOLE") || strings.Contains(l, "Uncaught") {
			out = append(out, l)
		}
	}
	return out
}

// probe is added to a copy of the page: after the load event it checks
// what the page shows and writes the verdict as JSON into #rdx-probe.
const probe = `<script>
var rdxErrors = [];
window.addEventListener("error", function (e) { rdxErrors.push(String(e.message)); });
window.addEventListener("load", function () {
  var v = {tables: {}, checks: 0, findings: 0, images: [], missingTargets: [], links: 0, frames: 0, errors: rdxErrors, overflow: 0};
  document.querySelectorAll("table.stat").forEach(function (t) {
    var r = t.getBoundingClientRect();
    v.tables[t.dataset.name] = {rows: t.tBodies[0].rows.length, shown: r.width > 0 && r.height > 0};
  });
  v.checks = document.querySelectorAll("table.checks tbody tr").length;
  v.findings = document.querySelectorAll("tr.finding").length;
  v.frames = document.querySelectorAll("div.frame pre.tree").length;
  document.querySelectorAll("figure.plot img").forEach(function (img) {
    var r = img.getBoundingClientRect();
    v.images.push({kind: img.parentNode.dataset.kind, complete: img.complete, naturalWidth: img.naturalWidth, width: r.width, height: r.height});
  });
  document.querySelectorAll("a[href]").forEach(function (a) {
    v.links++;
    var h = a.getAttribute("href");
    if (h.charAt(0) !== "#" || !document.getElementById(h.slice(1))) v.missingTargets.push(h);
  });
  v.overflow = document.documentElement.scrollWidth - window.innerWidth;
  var p = document.createElement("pre");
  p.id = "rdx-probe";
  p.textContent = JSON.stringify(v);
  document.body.appendChild(p);
});
</script>`

type probeResult struct {
	Tables map[string]struct {
		Rows  int
		Shown bool
	}
	Checks, Findings, Frames, Links int
	Images                          []struct {
		Kind          string
		Complete      bool
		NaturalWidth  int
		Width, Height float64
	}
	MissingTargets []string
	Errors         []string
	Overflow       int
}

// artefacts is where the browser tests keep their screenshot: $RDX_ARTEFACTS
// (CI keeps it), else the test's temporary directory.
func artefacts(t *testing.T) string {
	if d := os.Getenv("RDX_ARTEFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// TestReportInBrowser loads a two-file report in Chromium: the tables have
// the rows the report has, the plots are images with a size, every link
// has its target, nothing is logged on the console, and the screenshot is
// a real picture of the page.
func TestReportInBrowser(t *testing.T) {
	bin := needChromium(t)
	files := []string{badSums, lossy}
	r, _, raw := page(t, files, report.Options{Figure: barFigure})
	dir := t.TempDir()
	pagePath := filepath.Join(dir, "report.html")
	if err := os.WriteFile(pagePath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	withProbe := bytes.Replace(raw, []byte("</body>"), []byte(probe+"\n</body>"), 1)
	probePath := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(probePath, withProbe, 0o644); err != nil {
		t.Fatal(err)
	}

	dom, stderr := runChromium(t, bin, probePath, "--virtual-time-budget=10000", "--window-size=1280,2000", "--dump-dom")
	if ce := consoleErrors(stderr); len(ce) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(ce, "\n"))
	}
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		t.Fatal(err)
	}
	pre := find(doc, func(n *html.Node) bool { return attr(n, "id") == "rdx-probe" })
	if len(pre) != 1 {
		t.Fatalf("the probe did not run: no #rdx-probe in the DOM (%d bytes)", len(dom))
	}
	var v probeResult
	if err := json.Unmarshal([]byte(text(pre[0])), &v); err != nil {
		t.Fatalf("probe: %v: %s", err, text(pre[0]))
	}
	t.Logf("browser saw: %d stat tables, %d check rows, %d findings, %d trees, %d links, %d images", len(v.Tables), v.Checks, v.Findings, v.Frames, v.Links, len(v.Images))

	// What the browser shows is what the report holds.
	var wantFindings, wantTrees, wantChecks int
	wantTables := map[string]int{}
	for _, f := range r.Files {
		wantFindings += len(f.Findings)
		wantTrees += len(f.Trees)
		for _, c := range f.Checks {
			if c.Checked > 0 || len(c.NotChecked) > 0 {
				wantChecks++
			}
		}
		for _, tabs := range [][]*report.Table{{f.PHS, f.Expert}, f.Stats, f.Flows} {
			for _, tb := range tabs {
				if tb != nil {
					wantTables[tb.Name] += len(tb.Rows)
				}
			}
		}
	}
	gotTables := map[string]int{}
	for name, tb := range v.Tables {
		gotTables[name] = tb.Rows
		if !tb.Shown {
			t.Errorf("table %s has no size on the page", name)
		}
	}
	// Two files with the same table: the browser's map keeps the last;
	// compare the names and, for tables of one file, the rows.
	for name, n := range wantTables {
		got, ok := gotTables[name]
		if !ok {
			t.Errorf("table %s not rendered", name)
			continue
		}
		if one := inOneFile(r, name); one && got != n {
			t.Errorf("table %s: %d rows in the browser, %d in the report", name, got, n)
		}
	}
	if v.Checks != wantChecks || v.Findings != wantFindings || v.Frames != wantTrees || wantFindings == 0 {
		t.Errorf("browser: %d check rows, %d findings, %d trees; report: %d, %d, %d", v.Checks, v.Findings, v.Frames, wantChecks, wantFindings, wantTrees)
	}
	if len(v.Images) != len(report.Kinds())-1 { // barFigure fails qp
		t.Errorf("%d plots, want %d", len(v.Images), len(report.Kinds())-1)
	}
	for _, img := range v.Images {
		if !img.Complete || img.NaturalWidth != 320 || img.Width <= 0 || img.Height <= 0 {
			t.Errorf("plot %s not drawn: %+v", img.Kind, img)
		}
	}
	if len(v.MissingTargets) > 0 || v.Links == 0 {
		t.Errorf("%d links, without a target: %q", v.Links, v.MissingTargets)
	}
	if len(v.Errors) > 0 {
		t.Errorf("script errors: %q", v.Errors)
	}
	if v.Overflow > 0 {
		t.Errorf("the page is %d px wider than the 1280 px window", v.Overflow)
	}

	// The screenshot, kept as an artefact.
	shot := filepath.Join(artefacts(t), "report-screenshot.png")
	_, stderr = runChromium(t, bin, pagePath, "--window-size=1280,2000", "--hide-scrollbars", "--screenshot="+shot)
	if ce := consoleErrors(stderr); len(ce) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(ce, "\n"))
	}
	checkScreenshot(t, shot, 1280, 2000)
	t.Logf("screenshot: %s", shot)
}

// inOneFile says whether only one of r's files has table name.
func inOneFile(r *report.Report, name string) bool {
	n := 0
	for _, f := range r.Files {
		for _, tabs := range [][]*report.Table{{f.PHS, f.Expert}, f.Stats, f.Flows} {
			for _, tb := range tabs {
				if tb != nil && tb.Name == name {
					n++
				}
			}
		}
	}
	return n == 1
}

// checkScreenshot fails unless path is a w x h PNG with something drawn:
// the dark header and the light page both present.
func checkScreenshot(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot is %v, want %dx%d", b, w, h)
	}
	dark, light := 0, 0
	for y := 0; y < img.Bounds().Dy(); y += 7 {
		for x := 0; x < img.Bounds().Dx(); x += 7 {
			if l := luma(img, x, y); l < 60 {
				dark++
			} else if l > 230 {
				light++
			}
		}
	}
	if dark == 0 || light == 0 {
		t.Errorf("screenshot looks blank: %d dark and %d light samples", dark, light)
	}
}

func luma(img image.Image, x, y int) int {
	r, g, b, _ := img.At(x, y).RGBA()
	return int((299*r + 587*g + 114*b) / 1000 >> 8)
}

// TestBrowserSeesErrors proves the console check works: a page with a
// script error is caught, so a quiet run of the report means no errors.
func TestBrowserSeesErrors(t *testing.T) {
	bin := needChromium(t)
	p := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(p, []byte(`<!DOCTYPE html><html><body><script>undefinedFunctionRdx();</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr := runChromium(t, bin, p, "--virtual-time-budget=2000", "--dump-dom")
	ce := consoleErrors(stderr)
	if len(ce) == 0 || !strings.Contains(strings.Join(ce, "\n"), "undefinedFunctionRdx") {
		t.Errorf("the console error was not seen; stderr:\n%s", stderr)
	}
}
