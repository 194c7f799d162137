package pipeline

// SetTestRound makes -j rounds of frames frames and bytes octets until the
// function it returns is called (external tests: many rounds from a few
// frames).
func SetTestRound(frames, bytes int) (restore func()) {
	testRound.frames, testRound.bytes = frames, bytes
	return func() { testRound.frames, testRound.bytes = 0, 0 }
}
