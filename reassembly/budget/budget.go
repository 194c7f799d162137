// Package budget is the one memory allowance that all reassembly and
// tracking state of an engine draws on: TCP streams, IPv4 fragments,
// InfiniBand messages and READs, Rx calls, RPC-over-RDMA chunks, RDS
// connections. Each table registers once and charges what it holds; when the
// sum passes the limit, the engine calls Enforce between frames, which drops
// the least recently active entry of any table, oldest first, until the sum
// fits again. Every drop is reported so the engine can attach a finding that
// names what was lost.
//
// Entries are dropped only in Enforce, never inside Charge: a table is never
// asked to drop an entry while it is in the middle of changing it.
//
// A nil *Budget and a nil *Account accept every call and limit nothing, so a
// package used on its own (tests, benchmarks) needs no budget.
package budget

import "strconv"

// DefaultProcess is the size one engine's process aims for when --max-mem
// is not given (below 100 MB on any input; see StateShare): with -j N,
// each of the N worker engines gets it.
const DefaultProcess = 64 << 20

// DefaultLimit is one engine's table allowance when none is configured:
// StateShare of DefaultProcess.
const DefaultLimit = DefaultProcess / 2

// rdx --max-mem is the size the whole process aims for (default 64M, so
// that rdx stays below 100 MB on any input): the tables get StateShare of
// it, half, and the other half is for what the budget does not count: the
// Go heap's overhead beyond what tables charge (about 10%), the decoder and
// output buffers, and the collector's room to work. With 25/32 for the
// tables the live heap sat at the collector's soft limit whenever they were
// full, and the collector ran nearly all the time: 300,000 RDS/TCP
// connections at --max-mem 64M took 13.2 s of CPU against 2.9 s when the
// tables never fill; with half, 5.2 s at a 70 MB peak (80M: 3.9 s, but
// a 1.3 GB capture of unfinished jumbograms once peaked at 117 MB).

// StateShare is the table budget for a process size of total octets.
func StateShare(total int64) int64 { return total / 2 }

// ProcessSize is the process size whose StateShare is share: the soft
// memory limit for Go's collector.
func ProcessSize(share int64) int64 { return share * 2 }

// maxDropsPerEnforce bounds the work and the report of one Enforce call; a
// budget still over after that many drops is enforced again after the next
// frame. It only matters when thousands of tiny entries must go at once.
const maxDropsPerEnforce = 4096

// Table is state that can shed its least recently active entry.
type Table interface {
	// Oldest returns the stamp (Budget.Now when it was last active) of the
	// entry DropOldest would drop; ok is false when nothing can be dropped.
	Oldest() (stamp uint64, ok bool)
	// DropOldest drops that entry, uncharges its octets from the table's
	// Account, and says what it was ("TCP stream 192.0.2.1:4000 →
	// 192.0.2.2:16385, 12 segments") for the finding.
	DropOldest() (what string)
}

// Drop is one entry Enforce dropped.
type Drop struct {
	Table  string // the table's name, e.g. "tcp"
	What   string // from Table.DropOldest
	Octets int64  // what the drop released
}

// Budget is a limit on the octets all registered tables hold together.
// It is not safe for concurrent use: one per engine.
type Budget struct {
	limit int64
	used  int64
	peak  int64
	now   uint64
	accts []*Account
	drops []Drop
	total uint64 // drops since New
}

// Account is one table's share of the budget.
type Account struct {
	b     *Budget
	name  string
	t     Table
	used  int64
	drops uint64
}

// New returns a budget of limit octets (DefaultLimit when limit <= 0).
func New(limit int64) *Budget {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Budget{limit: limit}
}

// Register adds a table. Name appears in findings and statistics.
func (b *Budget) Register(name string, t Table) *Account {
	if b == nil {
		return nil
	}
	a := &Account{b: b, name: name, t: t}
	b.accts = append(b.accts, a)
	return a
}

// Limit is the allowance in octets (0 for a nil budget: unlimited).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Used is what all tables hold now.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used
}

// Peak is the most the tables held at once.
func (b *Budget) Peak() int64 {
	if b == nil {
		return 0
	}
	return b.peak
}

// Dropped is the number of entries dropped since New.
func (b *Budget) Dropped() uint64 {
	if b == nil {
		return 0
	}
	return b.total
}

// Tick sets the activity stamp tables read with Now; the engine ticks once
// per frame, so the stamps of entries order them by last activity.
func (b *Budget) Tick(now uint64) {
	if b != nil {
		b.now = now
	}
}

// Now is the current activity stamp (0 for a nil budget).
func (b *Budget) Now() uint64 {
	if b == nil {
		return 0
	}
	return b.now
}

// Over reports whether the tables hold more than the limit.
func (b *Budget) Over() bool { return b != nil && b.used > b.limit }

// Enforce drops the least recently active entries, across all tables, until
// the tables fit the limit. It returns what it dropped, valid until the next
// call. Cost: one Oldest call per table per drop.
func (b *Budget) Enforce() []Drop {
	if b == nil {
		return nil
	}
	b.drops = b.drops[:0]
	for b.used > b.limit && len(b.drops) < maxDropsPerEnforce {
		var victim *Account
		var oldest uint64
		for _, a := range b.accts {
			if a.t == nil {
				continue
			}
			if st, ok := a.t.Oldest(); ok && (victim == nil || st < oldest) {
				victim, oldest = a, st
			}
		}
		if victim == nil {
			break // nothing left that can go; the charges will come down as tables finish
		}
		before := victim.used
		what := victim.t.DropOldest()
		freed := before - victim.used
		victim.drops++
		b.total++
		b.drops = append(b.drops, Drop{Table: victim.name, What: what, Octets: freed})
		if freed <= 0 {
			// A table that drops without releasing anything would loop here:
			// stop, and let the next frame try again.
			break
		}
	}
	return b.drops
}

// Charge adds n octets (n < 0 releases) to the account and its budget.
func (a *Account) Charge(n int64) {
	if a == nil {
		return
	}
	a.used += n
	a.b.used += n
	if a.b.used > a.b.peak {
		a.b.peak = a.b.used
	}
}

// Used is what the account's table holds now.
func (a *Account) Used() int64 {
	if a == nil {
		return 0
	}
	return a.used
}

// Drops is how many entries Enforce took from this table.
func (a *Account) Drops() uint64 {
	if a == nil {
		return 0
	}
	return a.drops
}

// Now is the budget's activity stamp, for stamping entries.
func (a *Account) Now() uint64 {
	if a == nil {
		return 0
	}
	return a.b.now
}

// Reset uncharges everything the account holds, for a table that clears
// itself (a rewind for a second pass).
func (a *Account) Reset() { a.Charge(-a.Used()) }

// Close uncharges the account and removes its table from the budget, for a
// table that is thrown away (e.g. a reassembler replaced on a rewind).
func (a *Account) Close() {
	if a == nil {
		return
	}
	a.Reset()
	for i, o := range a.b.accts {
		if o == a {
			a.b.accts = append(a.b.accts[:i], a.b.accts[i+1:]...)
			break
		}
	}
	a.t = nil
}

// Message formats a drop for a finding.
func (d Drop) Message(limit int64) string {
	b := make([]byte, 0, 128)
	b = append(b, "memory budget of "...)
	b = appendSize(b, limit)
	b = append(b, " reached (--max-mem): dropped "...)
	b = append(b, d.What...)
	b = append(b, " ("...)
	b = appendSize(b, d.Octets)
	b = append(b, ')')
	return string(b)
}

func appendSize(b []byte, n int64) []byte {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return append(strconv.AppendInt(b, n>>20, 10), " MiB"...)
	case n >= 1<<10 && n%(1<<10) == 0:
		return append(strconv.AppendInt(b, n>>10, 10), " KiB"...)
	}
	return append(strconv.AppendInt(b, n, 10), " octets"...)
}

// ParseSize reads a size as --max-mem takes it: a number of octets with an
// optional unit, k/K/KB/KiB, m/M/MB/MiB, g/G/GB/GiB (all powers of 1024).
func ParseSize(s string) (int64, error) {
	num := s
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30},
		{"k", 1 << 10}, {"K", 1 << 10}, {"m", 1 << 20}, {"M", 1 << 20}, {"g", 1 << 30}, {"G", 1 << 30}} {
		if len(s) > len(u.suf) && s[len(s)-len(u.suf):] == u.suf {
			num, mult = s[:len(s)-len(u.suf)], u.m
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<50)/mult {
		return 0, &SizeError{s}
	}
	return n * mult, nil
}

// SizeError is a size ParseSize cannot read.
type SizeError struct{ S string }

func (e *SizeError) Error() string {
	return "bad size " + strconv.Quote(e.S) + ": want a positive number of octets, optionally with K, M or G (e.g. 256M)"
}
