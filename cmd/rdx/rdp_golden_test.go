package main

import (
	"path/filepath"
	"strings"
)

// rdpGoldenCases: the two reference RDP captures made by the stack's tests
// (clean and with loss), as summaries.
func rdpGoldenCases() map[string][]string {
	cases := map[string][]string{}
	caps, _ := filepath.Glob("../../pcaps/rdp/*.pcap")
	for _, c := range caps {
		cases["rdp-"+strings.TrimSuffix(filepath.Base(c), ".pcap")+".summary"] = []string{"read", "--color", "never", c}
	}
	return cases
}
