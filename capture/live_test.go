//go:build linux

package capture

import (
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

func TestLiveErrors(t *testing.T) {
	if err := CheckInterface("rdx-no-such0"); err == nil || !strings.Contains(err.Error(), `no such interface "rdx-no-such0"`) {
		t.Errorf("missing interface: %v", err)
	}
	if err := CheckInterface(""); err == nil {
		t.Error("empty interface name accepted")
	}
	if err := CheckInterface("lo"); err != nil {
		t.Errorf("lo: %v", err)
	}
	// Any interface that is down here (ifb0 in the sandbox) must say so.
	ifs, _ := net.Interfaces()
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 {
			if err := CheckInterface(i.Name); err == nil || !strings.Contains(err.Error(), "is down") {
				t.Errorf("%s is down, got %v", i.Name, err)
			}
			break
		}
	}
	// A bad filter is refused before any socket is opened.
	if _, err := OpenLive(LiveOptions{Iface: "lo", Filter: "less 10"}); err == nil || !strings.Contains(err.Error(), `"less"`) {
		t.Errorf("bad filter: %v", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("SKIP: the socket checks below need root or CAP_NET_RAW")
	}
	if _, err := OpenLive(LiveOptions{Iface: "lo", Direction: "sideways"}); err == nil || !strings.Contains(err.Error(), "sideways") {
		t.Errorf("bad direction: %v", err)
	}
	l, err := OpenLive(LiveOptions{Iface: "lo", Filter: "udp port 9", Snaplen: 128})
	if err != nil {
		t.Fatal(err)
	}
	l.Stop()
	var p Packet
	if err := l.Next(&p); err == nil || err.Error() != "EOF" {
		t.Errorf("Next after Stop: %v", err)
	}
	if l.Snaplen() != 128 {
		t.Errorf("snaplen %d", l.Snaplen())
	}
	l.Close()
	l.Close()
}

// slowSource yields the packets sent on ch, in one buffer it reuses (as
// Live's ring does), then blocks until stop.
type slowSource struct {
	ch     chan []byte
	stop   chan struct{}
	buf    []byte
	closed bool
}

func (s *slowSource) Next(p *Packet) error {
	select {
	case b := <-s.ch:
		s.buf = append(s.buf[:0], b...)
		*p = Packet{Data: s.buf, CapLen: len(b), WireLen: len(b), LinkType: LinkEthernet}
		return nil
	case <-s.stop:
		return io.EOF
	}
}
func (s *slowSource) Close() error { s.closed = true; return nil }

// Queue: Ready says whether Next would block; a packet's copy survives the
// source reusing its buffer; cancel ends a Next blocked on a silent source;
// with a stop function Close waits for the reader and closes the source.
func TestQueue(t *testing.T) {
	src := &slowSource{ch: make(chan []byte), stop: make(chan struct{})}
	cancel := make(chan struct{})
	q := NewQueue(src, func() { close(src.stop) }, cancel)
	if q.Ready() {
		t.Fatal("ready before any packet")
	}
	src.ch <- []byte("first")
	src.ch <- []byte("XXXXXX") // into the same source buffer
	for !q.Ready() {
		time.Sleep(time.Millisecond)
	}
	for _, want := range []string{"first", "XXXXXX"} {
		p, err := q.NextRef()
		if err != nil || string(p.Data) != want {
			t.Fatalf("NextRef = %q, %v; want %q", p.Data, err, want)
		}
	}
	done := make(chan error)
	go func() { _, err := q.NextRef(); done <- err }()
	time.Sleep(20 * time.Millisecond)
	close(cancel)
	select {
	case err := <-done:
		if err != io.EOF {
			t.Fatalf("cancelled Next: %v", err)
		}
	case <-time.After(10 * time.Second): // generous: it ends or it hangs
		t.Fatal("cancel did not end a blocked Next")
	}
	q.Close()
	if !src.closed {
		t.Error("source not closed")
	}
}
