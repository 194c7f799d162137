package pipeline

import "slices"

// A stand-in until P2's CheckRow.merge and mergeChecks (pipeline/sinks.go,
// same signature and result) are merged; the coordinator deletes this file
// then.

// mergeChecks adds a worker's check tally to dst: the sums, the first
// failing frames of both, the earliest explanation.
func mergeChecks(dst, src []CheckRow) {
	for i := range dst {
		d, s := &dst[i], &src[i]
		d.Checked += s.Checked
		d.Passed += s.Passed
		d.Failed += s.Failed
		d.Explained += s.Explained
		if s.Explanation != "" && (d.Explanation == "" || s.explFrame < d.explFrame) {
			d.Explanation, d.explFrame = s.Explanation, s.explFrame
		}
		if len(s.Frames) > 0 {
			d.Frames = append(d.Frames, s.Frames...)
			slices.Sort(d.Frames)
			d.Frames = slices.Compact(d.Frames)
			if len(d.Frames) > MaxFailFrames {
				d.Frames = d.Frames[:MaxFailFrames]
			}
		}
	}
}
