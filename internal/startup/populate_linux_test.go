package startup

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// populate maps in the pages from addr's on as far as the memory is
// read-write, and stops without harm where it is not (the end of what the
// heap has mapped: Go reserves the rest PROT_NONE).
func TestPopulateStopsAtMappingEnd(t *testing.T) {
	ps := unix.Getpagesize()
	const pages = 16
	m, err := unix.Mmap(-1, 0, pages*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer unix.Munmap(m)
	// The last 6 pages are reserved only, as the heap's unmapped chunks are.
	if err := unix.Mprotect(m[(pages-6)*ps:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	resident := func() []bool {
		vec := make([]byte, pages)
		if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
			t.Fatal(e)
		}
		r := make([]bool, pages)
		for i, v := range vec {
			r[i] = v&1 != 0
		}
		return r
	}
	if err := unix.Madvise(m[:ps], madvPopulateWrite); err != nil {
		t.Skipf("no MADV_POPULATE_WRITE on this kernel: %v", err)
	}
	// From inside page 2, for 12 pages: pages 2-9, then the reserved ones.
	populate(uintptr(unsafe.Pointer(&m[2*ps+100])), uintptr(12*ps))
	r := resident()
	r[0] = false // populated by the check above
	for i, in := range r {
		if want := i >= 2 && i < pages-6; in != want && i != 0 {
			t.Errorf("page %d resident %v, want %v", i, in, want)
		}
	}
	for i, c := range m[:(pages-6)*ps] {
		if c != 0 {
			t.Fatalf("octet %d is %d after populate", i, c)
		}
	}
}
