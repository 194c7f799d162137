package main

import (
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/enginecheck"
	"github.com/rdx-project/rdx/internal/testpkt"
)

// FuzzPref parses arbitrary -o preferences (one per line) and an
// --mpa-markers value: a preference without = or : or without a name, of a
// name no dissector registered or with a value it does not take is
// refused naming it; otherwise each lands in the engine's Config as written
// (the last of a name wins), and an engine built with them decodes the
// middle of an MPA connection (no handshake, so the preferences decide)
// through enginecheck.
func FuzzPref(f *testing.F) {
	for _, s := range []string{"mpa.markers=1\nmpa.crc=1", "mpa.crc:0", "mpa.markers=on", "=1", "novalue", "a=b=c", "mpa.markers:1:2", "x="} {
		f.Add(s, "1")
	}
	f.Add("mpa.crc=true", "off")
	f.Add("", "maybe")
	all := testpkt.ReadAll(f, "../../pcaps/iwarp/iwarp_rping.pcap")
	if len(all) < 30 {
		f.Fatalf("%d frames", len(all))
	}
	mid := all[14:30]
	f.Fuzz(func(t *testing.T, prefs, markers string) {
		o := &ReadOptions{}
		if prefs != "" {
			o.Prefs = strings.Split(prefs, "\n")
		}
		switch err := (prefFlag{&o.EngineFlags, "mpa.markers"}).Set(markers); {
		case err == nil && markers != "0" && markers != "1" && markers != "true" && markers != "false" && markers != "on" && markers != "off":
			t.Fatalf("--mpa-markers %q accepted", markers)
		case err == nil && o.Prefs[len(o.Prefs)-1] != "mpa.markers="+map[bool]string{true: "1", false: "0"}[markers == "1" || markers == "true" || markers == "on"]:
			t.Fatalf("--mpa-markers %q gave %q", markers, o.Prefs[len(o.Prefs)-1])
		case err != nil && markers == "1":
			t.Fatalf("--mpa-markers 1 refused: %v", err)
		}
		eo, err := engineOptions(&o.EngineFlags, o.File)
		want := map[string]string{}
		var bad string
		isBad := false
		for _, kv := range o.Prefs {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				k, v, ok = strings.Cut(kv, ":")
			}
			if (!ok || k == "" || dissect.CheckPref(k, v) != nil) && !isBad {
				bad, isBad = kv, true
			}
			want[k] = v
		}
		if isBad || err != nil {
			if err == nil || !isBad || !strings.Contains(err.Error(), "-o "+bad+":") {
				t.Fatalf("-o %q: error %v, want one naming %q", o.Prefs, err, bad)
			}
			return
		}
		if len(eo.Config) != len(want) {
			t.Fatalf("-o %q: config %q, want %q", o.Prefs, eo.Config, want)
		}
		for k, v := range want {
			if got, ok := eo.Config[k]; !ok || got != v {
				t.Fatalf("-o %q: config %q, want %q", o.Prefs, eo.Config, want)
			}
		}
		p := enginecheck.NewPair(eo)
		for i := range mid {
			p.Decode(t, uint64(i+1), mid[i].LinkType, mid[i].Data)
		}
		p.Finish()
	})
}
