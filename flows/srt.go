package flows

// MaxSRT bounds the call types one response-time table tracks (hostile
// traffic invents program numbers and opcodes without end); a call type
// first seen beyond it is not counted.
const MaxSRT = 4096

// Times is the service response time of one call type: the time from a
// request to its answer, over every answered request.
type Times struct {
	Name         string // the call type's name, set by the protocol when Add says it is new
	Count        uint64 // answers counted
	Aborts       uint64 // of which aborts (Rx)
	MinNS, MaxNS int64
	TotalNS      int64
	first        Order // the first answer counted: which types a full table keeps (Merge)
}

// AvgNS is the mean response time in nanoseconds.
func (t *Times) AvgNS() int64 {
	if t.Count == 0 {
		return 0
	}
	return t.TotalNS / int64(t.Count)
}

// Add counts one time of ns nanoseconds.
func (t *Times) Add(ns int64) {
	if t.Count == 0 {
		t.MinNS, t.MaxNS = ns, ns
	}
	t.Count++
	t.TotalNS += ns
	t.MinNS = min(t.MinNS, ns)
	t.MaxNS = max(t.MaxNS, ns)
}

// Merge adds o's times (and aborts) to t's, as if t had counted them.
func (t *Times) Merge(o *Times) {
	if o.Count == 0 {
		return
	}
	if t.Count == 0 {
		t.MinNS, t.MaxNS = o.MinNS, o.MaxNS
	}
	t.Count += o.Count
	t.Aborts += o.Aborts
	t.TotalNS += o.TotalNS
	t.MinNS = min(t.MinNS, o.MinNS)
	t.MaxNS = max(t.MaxNS, o.MaxNS)
}

// SRT accumulates response times per call type K (tshark's -z rpc,srt). The
// zero value is ready; a new call type allocates once.
type SRT[K comparable] struct {
	m     map[K]*Times
	order orderCounter
}

// Add counts one response time rtt for k, answered in frame, and returns
// its times (nil when the table is full and k is new); fresh says k was
// first seen now, for the caller to set Name.
func (s *SRT[K]) Add(k K, rtt int64, frame uint64) (t *Times, fresh bool) {
	if t = s.m[k]; t == nil {
		if len(s.m) >= MaxSRT {
			return nil, false
		}
		if s.m == nil {
			s.m = map[K]*Times{}
		}
		t, fresh = &Times{first: s.order.next(frame)}, true
		s.m[k] = t
	}
	t.Add(rtt)
	return t, fresh
}

// Len is the number of call types.
func (s *SRT[K]) Len() int { return len(s.m) }

// Keys lists the call types, in no order.
func (s *SRT[K]) Keys() []K {
	out := make([]K, 0, len(s.m))
	for k := range s.m {
		out = append(out, k)
	}
	return out
}

// Get returns k's times, nil if none.
func (s *SRT[K]) Get(k K) *Times { return s.m[k] }

// Reset forgets every call type (a second pass counts again).
func (s *SRT[K]) Reset() {
	clear(s.m)
	s.order = orderCounter{}
}

// Reads counts RDMA Reads (iWARP, InfiniBand) for a -z ...,srt table: the
// requests, and of those answered in full, the octets read and the time
// from request to last response.
type Reads struct {
	Requests uint64
	Octets   uint64
	Times    Times
}

// Answered counts a Read whose last response came ns after its (first)
// request.
func (r *Reads) Answered(octets uint64, ns int64) {
	r.Octets += octets
	r.Times.Add(ns)
}

// Merge adds o's Reads to r's.
func (r *Reads) Merge(o *Reads) {
	r.Requests += o.Requests
	r.Octets += o.Octets
	r.Times.Merge(&o.Times)
}

// Table is r as a table of one row (none when no Read was seen), titled
// title.
func (r *Reads) Table(title string) *Table {
	t := &Table{Title: title, Header: []string{"Operation", "Requests", "Answered", "Bytes read", "Min", "Avg", "Max"}}
	if r.Requests == 0 && r.Times.Count == 0 {
		return t
	}
	row := []string{"RDMA Read", U(r.Requests), U(r.Times.Count), U(r.Octets), "", "", ""}
	if r.Times.Count > 0 {
		row[4], row[5], row[6] = Dur(r.Times.MinNS), Dur(r.Times.AvgNS()), Dur(r.Times.MaxNS)
	}
	t.Rows = append(t.Rows, row)
	return t
}
