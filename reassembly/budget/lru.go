package budget

// Elem is an entry's place in an LRU: embed one in the entry (a struct on
// two lists embeds two). Its zero value is an entry on no list.
type Elem[T any] struct {
	prev, next *Elem[T]
	owner      *T
	stamp      uint64
	charged    int64
}

// Linked reports whether e is on a list.
func (e *Elem[T]) Linked() bool { return e.prev != nil }

// Stamp is the budget stamp of e's last Touch.
func (e *Elem[T]) Stamp() uint64 { return e.stamp }

// Charged is what e holds charged to the list's account.
func (e *Elem[T]) Charged() int64 { return e.charged }

// LRU is an intrusive list of entries of type T, least recently active
// first, that charges what each entry holds to an Account: the shape of
// every budget.Table. Every operation is O(1) and allocates nothing except
// Reset, which is O(n). The zero value is an empty list charging no account;
// an LRU must not be copied once used (its sentinel points into itself).
type LRU[T any] struct {
	root Elem[T] // sentinel: root.next is the least recently active
	acct *Account
}

// Init empties l (as Reset) and charges its entries to a from now on (nil:
// to nothing).
func (l *LRU[T]) Init(a *Account) {
	l.Reset()
	l.acct = a
}

// Account is what l charges.
func (l *LRU[T]) Account() *Account { return l.acct }

// Touch stamps e (the Elem of owner) with the budget's Now and makes it the
// most recently active, linking it when it is on no list.
func (l *LRU[T]) Touch(e *Elem[T], owner *T) {
	e.stamp, e.owner = l.acct.Now(), owner
	r := &l.root
	if r.next == nil {
		r.prev, r.next = r, r
	}
	if r.prev == e {
		return
	}
	if e.prev != nil {
		e.prev.next, e.next.prev = e.next, e.prev
	}
	e.prev, e.next = r.prev, r
	r.prev.next = e
	r.prev = e
}

// Charge sets what e holds to n octets and charges the difference.
func (l *LRU[T]) Charge(e *Elem[T], n int64) {
	l.acct.Charge(n - e.charged)
	e.charged = n
}

// Hold sets what e (the Elem of owner) holds to n octets: an entry holding
// something is touched, one holding nothing is taken off the list, for
// tables that list only the entries that hold memory.
func (l *LRU[T]) Hold(e *Elem[T], owner *T, n int64) {
	if n > 0 {
		l.Charge(e, n)
		l.Touch(e, owner)
	} else {
		l.Remove(e)
	}
}

// Remove takes e off the list (if on it) and uncharges what it held.
func (l *LRU[T]) Remove(e *Elem[T]) {
	if e.prev != nil {
		e.prev.next, e.next.prev = e.next, e.prev
		e.prev, e.next = nil, nil
	}
	l.acct.Charge(-e.charged)
	e.charged = 0
}

// Back is the owner of the least recently active entry, nil when l is empty.
func (l *LRU[T]) Back() *T {
	if e := l.root.next; e != nil && e != &l.root {
		return e.owner
	}
	return nil
}

// Oldest is the stamp of the least recently active entry; ok is false when l
// is empty. It is what budget.Table.Oldest returns for a table of one list.
func (l *LRU[T]) Oldest() (stamp uint64, ok bool) {
	if e := l.root.next; e != nil && e != &l.root {
		return e.stamp, true
	}
	return 0, false
}

// Reset takes every entry off l and forgets their charges, so entries reused
// later start on no list. It does not uncharge them: the table resets its
// Account (Account.Reset) too, which clears its whole share at once, also
// when several lists share the account or the account was closed first.
func (l *LRU[T]) Reset() {
	r := &l.root
	for e := r.next; e != nil && e != r; {
		next := e.next
		e.prev, e.next, e.charged = nil, nil, 0
		e = next
	}
	r.prev, r.next = r, r
}
