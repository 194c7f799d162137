package dissect

// Merge adds from's end-of-run statistics to e. A stub so the -j pipeline
// (pipeline/parallel.go) compiles before dissect/merge.go (P2) is merged;
// the coordinator deletes this file then.
func (e *Engine) Merge(from *Engine) {}
