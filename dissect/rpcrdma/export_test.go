package rpcrdma

import "github.com/rdx-project/rdx/dissect"

// Rebuilt returns the RPC messages rebuilt from chunks in f (the data of
// its Reasm PDUs), in order.
func Rebuilt(f *dissect.Frame) [][]byte {
	var out [][]byte
	for _, p := range f.PDUs {
		if r, ok := p.(*Reasm); ok {
			out = append(out, r.data)
		}
	}
	return out
}

// Copied is how many read chunk octets e's rpcordma state copied into
// rebuilt messages.
func Copied(e *dissect.Engine) int64 { return e.Instance(Name).(*State).copied }
