package tcp

// TCP sequence numbers live on a 2^32 circle: compare and subtract them only
// through these helpers so that every comparison is correct across the wrap.

// seqDiff returns a-b as a signed distance, valid while |a-b| < 2^31.
func seqDiff(a, b uint32) int32 { return int32(a - b) }

// seqLess reports whether a comes before b on the sequence circle.
func seqLess(a, b uint32) bool { return seqDiff(a, b) < 0 }

// seqAt returns the sequence number of stream offset off for a stream whose
// offset 0 has sequence number base.
func seqAt(base uint32, off uint64) uint32 { return base + uint32(off) }
