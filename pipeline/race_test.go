//go:build race

package pipeline_test

// raceEnabled: the race detector changes what allocates (sync.Pool keeps
// nothing), so allocation counts mean nothing under it.
const raceEnabled = true
