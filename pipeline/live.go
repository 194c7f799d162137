package pipeline

import (
	"fmt"
	"io"

	"github.com/rdx-project/rdx/capture"
)

// openLive is -i IFACE's source (a stop ends it like the end of a file,
// through the pass's queue, so the closing counts print).
func openLive(in Input) (*liveSource, error) {
	l, err := capture.OpenLive(capture.LiveOptions{Iface: in.Iface, Filter: in.CapFilter, Snaplen: in.Snaplen})
	if err != nil {
		return nil, err
	}
	errOut := in.ErrOut
	if errOut == nil {
		errOut = io.Discard
	}
	fmt.Fprintf(errOut, "rdx: capturing on %s\n", in.Iface)
	return &liveSource{Live: l, errOut: errOut}, nil
}

type liveSource struct {
	*capture.Live
	errOut io.Writer
}

// Close adds the kernel's counters to the closing report.
func (l *liveSource) Close() error {
	err := l.Live.Close()
	st := l.Stats()
	fmt.Fprintf(l.errOut, "rdx: %d packets captured, %d received by filter, %d dropped by kernel\n", st.Captured, st.Received, st.Dropped)
	return err
}
