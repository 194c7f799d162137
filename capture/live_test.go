//go:build linux

package capture

import (
	"net"
	"os"
	"strings"
	"testing"
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
