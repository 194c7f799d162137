package main

import (
	"fmt"

	"github.com/rdx-project/rdx/capture"
)

// openLiveRead is `rdx read -i IFACE`'s source: a live capture (that
// SIGINT/SIGTERM end like the end of a file, through pass's queue, so the
// closing counts print).
func openLiveRead(o *ReadOptions) (capture.Source, error) {
	l, err := capture.OpenLive(capture.LiveOptions{Iface: o.Iface, Filter: o.CapFilter})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.IO.ErrOut, "rdx: capturing on %s\n", o.Iface)
	return &liveRead{Live: l, o: o}, nil
}

type liveRead struct {
	*capture.Live
	o *ReadOptions
}

// Close adds the kernel's counters to the closing report.
func (l *liveRead) Close() error {
	err := l.Live.Close()
	st := l.Stats()
	fmt.Fprintf(l.o.IO.ErrOut, "rdx: %d packets captured, %d received by filter, %d dropped by kernel\n", st.Captured, st.Received, st.Dropped)
	return err
}
