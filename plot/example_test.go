package plot_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/rdx-project/rdx/plot"
)

// The HTML report's call: an SVG of a kind, or ErrNoData when the capture
// has nothing of it.
func ExampleRender() {
	var svg bytes.Buffer
	err := plot.Render(&svg, "srt", []string{"../pcaps/rx/pts-ops.pcap"}, plot.Options{Format: "svg"})
	fmt.Println(err, bytes.Contains(svg.Bytes(), []byte("PR NameToID (13)")))
	svg.Reset()
	err = plot.Render(&svg, "qp", []string{"../pcaps/rx/pts-ops.pcap"}, plot.Options{Format: "svg"})
	fmt.Println(errors.Is(err, plot.ErrNoData), svg.Len())
	fmt.Println(plot.Kinds())
	// Output:
	// <nil> true
	// true 0
	// [io srt qp rtt checks]
}
