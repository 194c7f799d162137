package render_test

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/render"
)

// TestTable pins both looks: -z tables in ASCII, rdx check's in box
// characters; headers left-aligned and kept as given (no upper-casing).
func TestTable(t *testing.T) {
	var b strings.Builder
	if err := render.Table(&b, render.TableASCII, []string{"Flag", "frames"}, [][]string{{"a", "1"}, {"long name", "22"}}); err != nil {
		t.Fatal(err)
	}
	want := `+-----------+--------+
| Flag      | frames |
+-----------+--------+
| a         | 1      |
| long name | 22     |
+-----------+--------+
`
	if b.String() != want {
		t.Errorf("ASCII table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := render.Table(&b, render.TableLight, []string{"Check", "Failed"}, [][]string{{"mpa.crc", "1"}}); err != nil {
		t.Fatal(err)
	}
	want = `┌─────────┬────────┐
│ Check   │ Failed │
├─────────┼────────┤
│ mpa.crc │ 1      │
└─────────┴────────┘
`
	if b.String() != want {
		t.Errorf("light table:\n%s\nwant:\n%s", b.String(), want)
	}
}
