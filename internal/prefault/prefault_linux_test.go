package prefault

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// anon maps pages fresh anonymous pages (unmapped when the test ends) and
// returns them with a count of how many are resident.
func anon(t *testing.T, pages int) (m []byte, resident func() int) {
	t.Helper()
	m, err := unix.Mmap(-1, 0, pages*unix.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { unix.Munmap(m) })
	return m, func() int {
		vec := make([]byte, pages)
		if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
			t.Fatal(e)
		}
		n := 0
		for _, v := range vec {
			n += int(v & 1)
		}
		return n
	}
}

// Write maps in every page of the slice, first and last included, when
// the slice starts inside a page; nothing else about the memory changes.
func TestWriteMapsPages(t *testing.T) {
	ps := unix.Getpagesize()
	const pages = 16
	m, resident := anon(t, pages)
	if n := resident(); n != 0 {
		t.Fatalf("%d pages resident before", n)
	}
	b := m[100 : (pages-2)*ps+1] // pages 0 to pages-2, neither end aligned
	Write(b)
	if unsupported.Load() {
		t.Skip("no MADV_POPULATE_WRITE on this kernel")
	}
	if n := resident(); n != pages-1 {
		t.Errorf("%d pages resident after Write, want %d", n, pages-1)
	}
	for i, c := range m {
		if c != 0 {
			t.Fatalf("octet %d is %d after Write", i, c)
		}
	}
	Write(nil) // nothing to do, no call
}

// Cap maps in the pages of a slice's whole capacity, not only its length,
// counted in elements of its type.
func TestCapMapsPages(t *testing.T) {
	ps := unix.Getpagesize()
	const pages = 16
	m, resident := anon(t, pages)
	type rec [3]int64 // 24 octets: pages do not hold a whole number of them
	n := (pages - 4) * ps / 24
	s := unsafe.Slice((*rec)(unsafe.Pointer(&m[0])), n)[:0] // length 0: the capacity counts
	Cap(s)
	if unsupported.Load() {
		t.Skip("no MADV_POPULATE_WRITE on this kernel")
	}
	if got, want := resident(), (n*24+ps-1)/ps; got != want {
		t.Errorf("%d pages resident after Cap, want %d", got, want)
	}
	Cap([]rec(nil)) // nothing to do, no call
}

// First maps an array in only on its first fill, and only when full says
// an array before came full.
func TestFirstMapsOnceWhenFull(t *testing.T) {
	const pages = 8
	m, resident := anon(t, pages)
	s := m[:0]
	var taken bool
	if First(s, &taken, false) || !taken || resident() != 0 {
		t.Fatalf("first fill of a small input: mapped, or taken %v, %d pages resident", taken, resident())
	}
	if First(s, &taken, true) || resident() != 0 {
		t.Fatal("an array taken before was mapped in again")
	}
	taken = false
	if !First(s, &taken, true) {
		t.Fatal("a fresh array after a full one was not mapped in")
	}
	if !unsupported.Load() && resident() != pages {
		t.Errorf("%d pages resident, want %d", resident(), pages)
	}
}
