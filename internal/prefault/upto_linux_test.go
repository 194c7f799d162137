package prefault

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Upto maps in the pages from addr's on as far as the memory is
// read-write, and stops without harm where it is not: the end of what the
// heap has mapped, after which Go keeps its reservation PROT_NONE (the
// kernel answers EINVAL there, after populating what came before). That
// EINVAL does not stop Write and Cap from populating after it.
func TestUptoStopsAtMappingEnd(t *testing.T) {
	ps := unix.Getpagesize()
	const rw, reserved = 10, 6
	m, err := unix.Mmap(-1, 0, (rw+reserved)*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer unix.Munmap(m)
	if err := unix.Mprotect(m[rw*ps:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := unix.Madvise(m[:ps], unix.MADV_POPULATE_WRITE); err != nil {
		t.Skipf("no MADV_POPULATE_WRITE here: %v", err)
	}
	// From inside page 2, for 12 pages: pages 2 to rw-1, then reserved ones.
	Upto(uintptr(unsafe.Pointer(&m[2*ps+100])), uintptr(12*ps))
	if unsupported.Load() {
		t.Errorf("Upto's EINVAL at the mapping's end turned populating off")
	}
	vec := make([]byte, rw+reserved)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	for i, v := range vec {
		// page 0: populated by the check above; page 1: before addr
		if want := i == 0 || i >= 2 && i < rw; v&1 == 1 != want {
			t.Errorf("page %d resident %v, want %v", i, v&1 == 1, want)
		}
	}
	for i, c := range m[:rw*ps] {
		if c != 0 {
			t.Fatalf("octet %d is %d after Upto", i, c)
		}
	}
}
