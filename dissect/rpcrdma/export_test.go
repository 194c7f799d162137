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

// WriteList returns what the reply in f gathered for its write list: the
// frames of the RDMA WRITEs and their octets (ok false: no reply with a
// write list).
func WriteList(f *dissect.Frame) (frames []uint64, n int, ok bool) {
	for _, p := range f.PDUs {
		if h, is := p.(*Hdr); is && h.hasDDP {
			return h.ddpFrames, h.ddpLen, true
		}
	}
	return nil, 0, false
}

// Kept is how many RDMA WRITEs e's rpcordma state keeps for replies.
func Kept(e *dissect.Engine) int { return len(e.Instance(Name).(*State).extents) }
