package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/internal/iostreams"
)

// execCmd runs one verb's command (not the root) on args, as run does:
// 0, or the exit code its error carries.
func execCmd(cmd *cobra.Command, args []string) int {
	io, _, _, _ := iostreams.Test()
	cmd.SetArgs(args)
	cmd.SetOut(io.Out)
	cmd.SetErr(io.ErrOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err != nil {
		if ee, ok := err.(*exitError); ok {
			return ee.code
		}
		return exitUsage
	}
	return exitOK
}

// hook returns a runF that keeps the options it is given.
func hook[O any](got **O) func(*O) error { return func(o *O) error { *got = o; return nil } }

// TestVerbsRunF: every verb is newCmdX(io, runF): its flags fill its
// options struct, and runF replaces the run (nothing is read, captured or
// sent here).
func TestVerbsRunF(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	var ro *ReadOptions
	if c := execCmd(newCmdRead(io, hook(&ro)), []string{"-V", "-T", "json", "-c", "3", "-d", "udp.port==7000,rx", "-o", "mpa.crc=1",
		"--mpa-markers", "0", "--max-mem", "64M", "-z", "rx,srt", "f.pcap"}); c != 0 || ro == nil {
		t.Fatalf("read: exit %d", c)
	}
	if ro.File != "f.pcap" || !ro.Verbose || ro.Format != "json" || ro.Count != 3 || !slices.Equal(ro.DecodeAs, []string{"udp.port==7000,rx"}) ||
		!slices.Equal(ro.Prefs, []string{"mpa.crc=1", "mpa.markers=0"}) || ro.MaxMem != "64M" || !slices.Equal(ro.Stats, []string{"rx,srt"}) {
		t.Errorf("read parsed as %+v", ro)
	}
	var so *StatsOptions
	if c := execCmd(newCmdStats(io, hook(&so)), []string{"-Y", "rx", "f.pcap"}); c != 0 || so == nil {
		t.Fatalf("stats: exit %d", c)
	}
	if so.File != "f.pcap" || so.Filter != "rx" || len(so.Stats) == 0 || slices.ContainsFunc(so.Stats, isFlowTableConv) {
		t.Errorf("stats parsed as %+v", so)
	}
	so = nil
	if c := execCmd(newCmdFlows(io, hook(&so)), []string{"f.pcap"}); c != 0 || so == nil {
		t.Fatalf("flows: exit %d", c)
	}
	if !slices.Contains(so.Stats, "conv,ip") || slices.Contains(so.Stats, "rx,srt") {
		t.Errorf("flows picked %q", so.Stats)
	}
	var co *CaptureOptions
	if c := execCmd(newCmdCapture(io, hook(&co)), []string{"-i", "eth9", "-w", "x.pcapng", "-c", "5"}); c != 0 || co == nil ||
		co.Iface != "eth9" || co.File != "x.pcapng" || co.Count != 5 {
		t.Errorf("capture: exit %d, %+v", c, co)
	}
	var rp *ReplayOptions
	if c := execCmd(newCmdReplay(io, hook(&rp)), []string{"f.pcap", "-i", "veth9", "--pps", "100"}); c != 0 || rp == nil ||
		rp.File != "f.pcap" || rp.Iface != "veth9" || rp.PPS != 100 {
		t.Errorf("replay: exit %d, %+v", c, rp)
	}
	var sy *SynthOptions
	if c := execCmd(newCmdSynth(io, hook(&sy)), []string{"rx", "-w", "x.pcapng"}); c != 0 || sy == nil || sy.Scenario != "rx" || sy.File != "x.pcapng" {
		t.Errorf("synth: exit %d, %+v", c, sy)
	}
	var listen, send *RdpOptions
	if c := execCmd(newCmdRdp(io, hook(&listen), hook(&send)), []string{"listen", "--port", "7000"}); c != 0 || listen == nil || listen.Port != 7000 || send != nil {
		t.Errorf("rdp listen: exit %d, %+v", c, listen)
	}
	if c := execCmd(newCmdRdp(io, hook(&listen), hook(&send)), []string{"send", "198.51.100.1", "--port", "7000", "-"}); c != 0 || send == nil ||
		send.Host != "198.51.100.1" || send.File != "-" {
		t.Errorf("rdp send: exit %d, %+v", c, send)
	}
	var fo *FieldsOptions
	if c := execCmd(newCmdFields(io, hook(&fo)), nil); c != 0 || fo == nil || fo.IO != io {
		t.Errorf("fields: exit %d", c)
	}
	// Usage errors stop before runF.
	ro = nil
	if c := execCmd(newCmdRead(io, hook(&ro)), nil); c != exitUsage || ro != nil {
		t.Errorf("read without a file: exit %d", c)
	}
	sy = nil
	if c := execCmd(newCmdSynth(io, hook(&sy)), nil); c != exitUsage || sy != nil {
		t.Errorf("synth without a scenario: exit %d", c)
	}
}

func isFlowTableConv(n string) bool { return strings.HasPrefix(n, "conv,") }
