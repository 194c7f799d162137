package main

import (
	"net/netip"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	_ "github.com/rdx-project/rdx/dissect/all"
	"github.com/rdx-project/rdx/internal/strict"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// TestGeneratedDecodes writes 1 and 4 connections and decodes them: no
// warning or error, every connection carries RDS messages, and with 4
// the first 4 frames (the SYNs) come from 4 clients, interleaved.
func TestGeneratedDecodes(t *testing.T) {
	for _, k := range []int{1, 4} {
		t.Run(strconv.Itoa(k), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rds.pcap")
			if err := write(path, 1<<20, 1448, k); err != nil {
				t.Fatal(err)
			}
			eng := dissect.NewEngine(dissect.Options{})
			first := map[netip.Addr]bool{}
			rds := map[netip.Addr]int{}
			err := testpkt.Each(path, func(p dissect.Packet) error {
				f := eng.Decode(p)
				if p.Num <= uint64(k) {
					first[f.Net.Src] = true
				}
				for _, pd := range f.PDUs {
					if pd.Proto().Abbrev == "rds" {
						rds[f.Net.Src]++
					}
				}
				for _, fd := range f.Findings {
					if fd.Sev >= dissect.Warn {
						t.Errorf("frame %d: %s: %s", p.Num, fd.Proto, fd.Msg)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(first) != k || len(rds) != k {
				t.Errorf("%d clients in the first %d frames, %d carrying RDS (%v), want %d", len(first), k, len(rds), rds, k)
			}
		})
	}
}

func TestMain(m *testing.M) { strict.Main(m) }
