package all_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

// TestStatusFieldsWiresharkNumbering pins the value convention of every
// checksum, CRC and marker status field: Wireshark's 0 Bad, 1 Good,
// 2 Unverified, 3 Not present, 4 Illegal, from the one shared table, so
// `-Y 'X.status == 0'` selects the bad ones for every protocol, as in tshark.
func TestStatusFieldsWiresharkNumbering(t *testing.T) {
	want := map[uint64]string{0: "Bad", 1: "Good", 2: "Unverified", 3: "Not present", 4: "Illegal"}
	if !reflect.DeepEqual(dissect.StatusNames, want) {
		t.Fatalf("StatusNames %v, want %v", dissect.StatusNames, want)
	}
	if dissect.StatusBad != 0 || dissect.StatusGood != 1 || dissect.StatusUnverified != 2 ||
		dissect.StatusNotPresent != 3 || dissect.StatusIllegal != 4 {
		t.Fatal("Status constants are not Wireshark's numbering")
	}
	shared := reflect.ValueOf(dissect.StatusNames).Pointer()
	seen := map[string]bool{}
	for _, f := range dissect.Fields() {
		a := f.Abbrev
		if !strings.HasSuffix(a, ".status") {
			continue
		}
		check := strings.TrimSuffix(a[strings.LastIndexByte(a[:len(a)-len(".status")], '.')+1:], ".status")
		switch check {
		case "checksum", "csum", "crc", "icrc", "vcrc", "marker":
		default:
			continue
		}
		seen[a] = true
		if f.Type != dissect.TUint8 || f.Names == nil || reflect.ValueOf(f.Names).Pointer() != shared {
			t.Errorf("%s: type %v, names %v: not the shared dissect.StatusNames", a, f.Type, f.Names)
		}
	}
	// The filter above must find every status field rdx has.
	for _, a := range []string{"ip.checksum.status", "udp.checksum.status", "tcp.checksum.status",
		"icmp.checksum.status", "icmpv6.checksum.status", "rdp.checksum.status", "rds.csum.status",
		"infiniband.icrc.status", "infiniband.vcrc.status", "iwarp_mpa.crc.status", "iwarp_mpa.marker.status"} {
		if !seen[a] {
			t.Errorf("%s not registered or not matched", a)
		}
	}
}
