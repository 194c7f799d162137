// Command testsum reads `go test -json` on stdin and prints what `go test`
// would, plus every skipped test with its reason, so a check that did not run
// is never mistaken for one that passed. It exits 1 when anything failed.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() {
	out := map[string][]string{} // package + "\x00" + test -> output lines
	var skips, fails []string
	passed, failed := 0, false
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Println(sc.Text()) // build errors and the like come as plain text
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "output":
			out[key] = append(out[key], e.Output)
			continue
		case "build-output":
			fmt.Print(e.Output)
			continue
		case "build-fail":
			failed = true
			continue
		case "pass":
			if e.Test != "" {
				passed++
			} else {
				fmt.Printf("ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
			}
		case "skip":
			if e.Test != "" {
				skips = append(skips, fmt.Sprintf("  %s %s: %s", short(e.Package), e.Test, reason(out[key])))
			} else if !hasTests(out[key]) {
				fmt.Printf("?   \t%s\t[no test files]\n", e.Package)
			}
		case "fail":
			failed = true
			if e.Test != "" {
				fails = append(fails, strings.Join(out[key], ""))
			} else {
				// A package failure (build error, panic outside a test) has its
				// story in the package's own output.
				// Its output ends with go test's own FAIL line.
				fmt.Print(strings.Join(out[key], ""))
			}
		}
		delete(out, key)
	}
	for _, f := range fails {
		fmt.Print(f)
	}
	if len(skips) > 0 {
		sort.Strings(skips)
		fmt.Printf("\nSKIPPED (%d): these checks did NOT run here\n%s\n", len(skips), strings.Join(skips, "\n"))
	}
	fmt.Printf("\ntests: %d passed, %d skipped, %d failed\n", passed, len(skips), len(fails))
	if failed {
		os.Exit(1)
	}
}

func short(pkg string) string { return strings.TrimPrefix(pkg, "github.com/rdx-project/rdx/") }

// reason is the test's t.Skip message: its output without the RUN and SKIP lines.
func reason(lines []string) string {
	var r []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		r = append(r, l)
	}
	if len(r) == 0 {
		return "(no reason given)"
	}
	return strings.Join(r, " / ")
}

func hasTests(lines []string) bool {
	for _, l := range lines {
		if strings.Contains(l, "no test files") {
			return false
		}
	}
	return true
}
