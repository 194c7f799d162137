package pipeline

import (
	"slices"
	"testing"
)

// TestParallelWorkers: the runs listed in parallel.go stay on one worker.
func TestParallelWorkers(t *testing.T) {
	file := Input{File: "x.pcap"}
	for _, c := range []struct {
		cfg  Config
		want int
	}{
		{Config{Input: file}, 1},
		{Config{Input: file, Workers: 1}, 1},
		{Config{Input: file, Workers: 4}, 4},
		{Config{Input: file, Workers: 1000}, maxWorkers},
		{Config{Input: Input{Open: file.Open}, Workers: 3}, 3},
		{Config{Input: Input{Iface: "eth0"}, Workers: 4}, 1},
		{Config{Input: Input{File: "-"}, Workers: 4}, 1},
		{Config{Input: file, Workers: 4, Sinks: []Sink{&statsSink{}}}, 1},
		{Config{Input: file, Workers: 4, Stats: []string{"rx,srt"}}, map[bool]int{true: 4, false: 1}[engineMerge]},
	} {
		if got := parallelWorkers(c.cfg); got != c.want {
			t.Errorf("%+v: %d workers, want %d", c.cfg, got, c.want)
		}
	}
}

// TestMergeChecks: worker tallies add up, the first failing frames of all
// workers are the run's first five, the earliest explanation wins.
func TestMergeChecks(t *testing.T) {
	dst := []CheckRow{{Checked: 5, Passed: 3, Failed: 2, Frames: []uint64{3, 9}, Explained: 1, Explanation: "frame 9: x", explFrame: 9}}
	src := []CheckRow{{Checked: 7, Passed: 2, Failed: 5, Frames: []uint64{1, 4, 10, 11, 12}, Explained: 1, Explanation: "frame 4: y", explFrame: 4}}
	mergeChecks(dst, src)
	d := dst[0]
	if d.Checked != 12 || d.Passed != 5 || d.Failed != 7 || d.Explained != 2 ||
		!slices.Equal(d.Frames, []uint64{1, 3, 4, 9, 10}) || d.Explanation != "frame 4: y" {
		t.Errorf("merged %+v", d)
	}
	mergeChecks(dst, []CheckRow{{}})
	if dst[0].Explanation != "frame 4: y" || len(dst[0].Frames) != 5 {
		t.Errorf("merging an empty tally changed %+v", dst[0])
	}
}
