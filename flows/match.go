package flows

import (
	"github.com/rdx-project/rdx/internal/smallmap"
	"github.com/rdx-project/rdx/reassembly/budget"
)

// Request is a request waiting for its answer: where and when it was seen.
// A protocol that keeps per-call state of its own (Rx's call table) embeds
// one there; the others let a Matcher keep it.
type Request struct {
	Frame  uint64
	TimeNS int64
}

// Answer is what matching a reply to its request learns: the reply's frame
// and the response time (capture time from request to reply).
type Answer struct {
	Frame uint64
	RTT   int64
}

// Answer is the answer of a reply seen in frame at timeNS to r.
func (r Request) Answer(frame uint64, timeNS int64) Answer {
	return Answer{Frame: frame, RTT: timeNS - r.TimeNS}
}

// MaxLearned bounds the request->answer table a first pass leaves for the
// second (about 40 MB of map); beyond it later answers are not learned and
// their requests show no reply frame in the second pass.
const MaxLearned = 1 << 20

// Learned is what a first pass learns for the second: which frame answered
// the request in a given frame, so the request can point forward to its
// reply. The zero value is ready; its limit is MaxLearned.
type Learned struct {
	m map[uint64]Answer
}

// Learn records that the request in frame req got answer a.
func (l *Learned) Learn(req uint64, a Answer) {
	if l.m == nil {
		l.m = map[uint64]Answer{}
	}
	if _, ok := l.m[req]; ok || len(l.m) < MaxLearned {
		l.m[req] = a
	}
}

// Recall returns the answer learned for the request in frame req.
func (l *Learned) Recall(req uint64) (Answer, bool) {
	a, ok := l.m[req]
	return a, ok
}

// Len is the number of answers learned.
func (l *Learned) Len() int { return len(l.m) }

// Pending is one outstanding request in a Matcher, with the protocol's value
// (what the reply needs to learn from its call).
type Pending[K comparable, V any] struct {
	Request
	V    V
	key  K
	tag  uint64 // key's tag in m
	elem budget.Elem[Pending[K, V]]
}

// Matcher matches replies to requests by the protocol's own ids (K: an RPC
// XID with the addresses, an Rx call number with its connection, ...). It
// holds only outstanding requests, at most limit of them, least recently
// made first: a new request when full drops the oldest (Call says which, for
// a finding), a request older than the timeout (capture time) is forgotten
// unanswered, and the entries are charged to the engine's memory budget,
// which may drop the oldest too. Every operation is O(1) amortised.
// Answered and dropped entries are kept for reuse (at most limit of them, as
// a map keeps its buckets), so a matcher allocates only when more requests
// are outstanding than ever before, and a second pass not at all. A first
// pass's answers are kept in Learned for the second.
//
// The zero value is not ready: call Init. A Matcher must not be copied once
// used. It is not safe for concurrent use.
type Matcher[K comparable, V any] struct {
	m        smallmap.Map[K, *Pending[K, V]] // most often a few outstanding: no hashing
	lru      budget.LRU[Pending[K, V]]
	free     []*Pending[K, V]
	limit    int
	timeout  int64
	overhead int64
	describe func(k K, v *V) string
	tag      func(K) uint64 // nil: every tag 0
	evicted  uint64
	expired  uint64
	// Learned is what the first pass learned, for the caller to fill and
	// read (only the protocol knows which pass it is in).
	Learned Learned
}

// Init empties m (keeping what was learned) and sets its entry limit, the
// timeout in nanoseconds of capture time (0: none), the octets charged per
// entry (struct and map slot), and how an entry is named in findings (nil:
// "a request").
func (m *Matcher[K, V]) Init(limit int, timeoutNS, overhead int64, describe func(k K, v *V) string) {
	m.limit, m.timeout, m.overhead, m.describe = limit, timeoutNS, overhead, describe
	m.Rewind()
}

// SetTag gives m a cheap one-word tag of a key (equal keys, equal tags),
// compared before whole keys when searching the few most recent requests
// (smallmap.Map.GetT); call it after Init, before the first Call.
func (m *Matcher[K, V]) SetTag(f func(K) uint64) { m.tag = f }

// tagOf is k's tag, computed once per operation.
func (m *Matcher[K, V]) tagOf(k K) uint64 {
	if m.tag == nil {
		return 0
	}
	return m.tag(k)
}

// Register charges m to b under name, so the budget can drop its oldest
// requests; call once, after Init.
func (m *Matcher[K, V]) Register(b *budget.Budget, name string) {
	m.lru.Init(b.Register(name, m))
}

// Rewind forgets every outstanding request (a second pass starts over) but
// keeps what was learned.
func (m *Matcher[K, V]) Rewind() {
	m.m.All(func(_ K, p *Pending[K, V]) bool {
		m.recycle(p)
		return true
	})
	m.m.Clear()
	acct := m.lru.Account()
	m.lru.Reset()
	acct.Reset()
}

// Len is the number of outstanding requests.
func (m *Matcher[K, V]) Len() int { return m.m.Len() }

// Evicted is how many requests were dropped because the matcher was full.
func (m *Matcher[K, V]) Evicted() uint64 { return m.evicted }

// Expired is how many requests were forgotten unanswered after the timeout.
func (m *Matcher[K, V]) Expired() uint64 { return m.expired }

// Call records a request for k seen in frame at timeNS and returns its entry
// for the caller to set V. A request already outstanding for k (a
// retransmission) is replaced: its V is left as it was for the caller to
// overwrite. When the matcher was full its oldest request was dropped, and
// dropped names it (for the caller's finding); "" otherwise.
func (m *Matcher[K, V]) Call(k K, frame uint64, timeNS int64) (p *Pending[K, V], dropped string) {
	m.expire(timeNS)
	t := m.tagOf(k)
	if p, _ = m.m.GetT(k, t); p == nil {
		if m.m.Len() >= m.limit {
			if old := m.lru.Back(); old != nil {
				dropped = m.name(old)
				m.evicted++
				m.remove(old)
			}
		}
		if n := len(m.free); n > 0 {
			p, m.free = m.free[n-1], m.free[:n-1]
		} else {
			p = new(Pending[K, V])
		}
		p.key, p.tag = k, t
		m.m.SetT(k, t, p)
		m.lru.Charge(&p.elem, m.overhead)
	}
	p.Request = Request{Frame: frame, TimeNS: timeNS}
	m.lru.Touch(&p.elem, p)
	return p, dropped
}

// Outstanding returns k's outstanding request, nil if none.
func (m *Matcher[K, V]) Outstanding(k K) *Pending[K, V] {
	p, _ := m.m.GetT(k, m.tagOf(k))
	return p
}

// Reply matches a reply for k seen in frame at timeNS to its request and
// forgets the request: it is answered, and a second reply (a retransmission)
// finds nothing. ok is false when no request is outstanding, or it is older
// than the timeout.
func (m *Matcher[K, V]) Reply(k K, frame uint64, timeNS int64) (req Request, v V, a Answer, ok bool) {
	p, _ := m.m.GetT(k, m.tagOf(k))
	if p == nil {
		return req, v, a, false
	}
	req, v = p.Request, p.V
	m.remove(p)
	if m.timeout > 0 && timeNS-req.TimeNS > m.timeout {
		m.expired++
		return req, v, a, false
	}
	return req, v, req.Answer(frame, timeNS), true
}

// expire forgets the oldest requests while they are older than the timeout.
func (m *Matcher[K, V]) expire(now int64) {
	if m.timeout <= 0 {
		return
	}
	for p := m.lru.Back(); p != nil && now-p.TimeNS > m.timeout; p = m.lru.Back() {
		m.expired++
		m.remove(p)
	}
}

func (m *Matcher[K, V]) remove(p *Pending[K, V]) {
	m.m.DeleteT(p.key, p.tag)
	m.lru.Remove(&p.elem)
	m.recycle(p)
}

func (m *Matcher[K, V]) recycle(p *Pending[K, V]) {
	var zero V
	p.V = zero
	if len(m.free) < m.limit {
		m.free = append(m.free, p)
	}
}

func (m *Matcher[K, V]) name(p *Pending[K, V]) string {
	if m.describe == nil {
		return "a request"
	}
	return m.describe(p.key, &p.V)
}

// Oldest implements budget.Table.
func (m *Matcher[K, V]) Oldest() (uint64, bool) { return m.lru.Oldest() }

// DropOldest implements budget.Table.
func (m *Matcher[K, V]) DropOldest() string {
	p := m.lru.Back()
	if p == nil {
		return "nothing"
	}
	what := m.name(p)
	m.remove(p)
	return what
}
