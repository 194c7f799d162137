package testpkt

import (
	"fmt"
	"strings"
)

// DiffLines shows where two multi-line outputs differ: each differing line
// (numbered from 1) as got and want, the first ones up to about 2000 octets;
// "" when they are equal.
func DiffLines(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := range max(len(g), len(w)) {
		var x, y string
		if i < len(g) {
			x = g[i]
		}
		if i < len(w) {
			y = w[i]
		}
		if x != y {
			fmt.Fprintf(&b, "line %d: got %q, want %q\n", i+1, x, y)
			if b.Len() > 2000 {
				b.WriteString("...\n")
				break
			}
		}
	}
	return b.String()
}
