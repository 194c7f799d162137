package export

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// TestDictionaryBound: a dictionary-coded column of ever new values (an
// address column of a scan, say) stops growing its dictionary past
// dictMaxBytes: its later pages are PLAIN, and its dictionary page holds
// a fraction of the values.
func TestDictionaryBound(t *testing.T) {
	tb := &table{name: "t", schema: newSchema("t", []column{{"v", dictString()}}), groupRows: RowGroupRows}
	tb.init()
	path := filepath.Join(t.TempDir(), "t.parquet")
	tb.path = func(int64, int) string { return path }
	if err := tb.at(0); err != nil {
		t.Fatal(err)
	}
	const n = 300_000
	values := 0
	for i := 0; i < n; i++ {
		s := "198.51." + strconv.Itoa(i)
		values += len(s)
		tb.str(0, s, 0)
		tb.end()
	}
	if err := tb.finish(nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	pages := pf.RowGroups()[0].ColumnChunks()[0].Pages()
	defer pages.Close()
	p, err := pages.ReadPage()
	if err != nil {
		t.Fatal(err)
	}
	// the first page is dictionary-coded; the dictionary stopped at the
	// page where it passed dictMaxBytes (a page of indexes: 64k values)
	if d := p.Dictionary(); d == nil || d.Len() > 100_000 || d.Size() > 1<<20 {
		t.Errorf("dictionary of %d values (%d octets) for %d distinct values", d.Len(), d.Size(), n)
	}
	if md := pf.Metadata().RowGroups[0].Columns[0].MetaData; !slices.Contains(md.Encoding, format.Plain) {
		t.Errorf("encodings %v: no PLAIN pages after the dictionary's bound", md.Encoding)
	}
	if pf.NumRows() != n {
		t.Errorf("%d rows", pf.NumRows())
	}
}
