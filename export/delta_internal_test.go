package export

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/pipeline"
	"github.com/rdx-project/rdx/render"
)

// infoSink keeps every frame's Info and protocol chain, as the frames
// table's columns hold them.
type infoSink struct {
	e      *dissect.Engine
	values []byte
	offs   []uint32
	memo   dissect.ChainMemo
	bad    []string // frames whose ProtoChainMemo is not ProtoChain
	frames int
	made   int // chains the memo made
}

func (s *infoSink) Start(e *dissect.Engine) error { s.e, s.offs = e, []uint32{0}; return nil }
func (s *infoSink) End(error) error               { return nil }
func (s *infoSink) Frame(f *dissect.Frame, _ *dissect.Tree) {
	s.values = render.Info(s.values, f)
	s.offs = append(s.offs, uint32(len(s.values)))
	start := len(s.values)
	s.values = s.e.ProtoChain(s.values, f)
	s.offs = append(s.offs, uint32(len(s.values)))
	s.frames++
	memo, _, made := s.e.ProtoChainMemo(f, &s.memo)
	if made {
		s.made++
	}
	if !bytes.Equal(memo, s.values[start:]) && len(s.bad) < 5 {
		s.bad = append(s.bad, fmt.Sprintf("frame %d: %q, ProtoChain %q", f.Num, memo, s.values[start:]))
	}
}

// checkDelta holds deltaByteArray's encoding of values against
// parquet-go's, whole and in pages of a few values.
func checkDelta(t *testing.T, name string, values []byte, offs []uint32) {
	t.Helper()
	var mine deltaByteArray
	for _, page := range []int{len(offs), 1, 2, 3, 7, 200} {
		for i := 0; i+1 < len(offs); i += page {
			o := offs[i:min(i+page+1, len(offs))]
			want, err := parquet.DeltaByteArray.EncodeByteArray(nil, values, o)
			if err != nil {
				t.Fatal(err)
			}
			got, err := mine.EncodeByteArray([]byte("spare"), values, o)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: values %d-%d: %x, parquet-go %x", name, i, i+len(o)-1, got, want)
			}
		}
	}
}

// TestDeltaByteArray: Info and frame_protocols of every capture in pcaps/
// encode to the octets parquet-go's DELTA_BYTE_ARRAY gives, and
// ProtoChainMemo gives every frame ProtoChain's chain.
func TestDeltaByteArray(t *testing.T) {
	var files []string
	filepath.WalkDir("../pcaps", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".pcap") || strings.HasSuffix(p, ".cap.gz") ||
			strings.HasSuffix(p, ".pcap.gz")) {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 40 {
		t.Fatalf("%d captures", len(files))
	}
	frames, made := 0, 0
	for _, file := range files {
		s := &infoSink{}
		if _, err := pipeline.Run(pipeline.Config{Input: pipeline.Input{File: file}, Quiet: true,
			Sinks: []pipeline.Sink{s}}); err != nil && len(s.offs) < 2 {
			t.Fatalf("%s: %v", file, err)
		}
		checkDelta(t, file, s.values, s.offs)
		if len(s.bad) > 0 {
			t.Errorf("%s: ProtoChainMemo: %s", file, strings.Join(s.bad, "; "))
		}
		frames += s.frames
		made += s.made
	}
	// the memo both reused and made chains (its eviction ran)
	if made*10 > frames || made < 4*len(files) {
		t.Errorf("the memo made %d chains for %d frames of %d captures", made, frames, len(files))
	}
}

func TestSharedPrefix(t *testing.T) {
	for _, c := range []struct {
		a, b string
		n    int
	}{{"", "", 0}, {"", "x", 0}, {"abc", "abd", 2}, {"abc", "abc", 3}, {"abc", "ab", 2},
		{"0123456789abcdef", "0123456789abcdeX", 15}, {"01234567", "01234567X", 8}, {"x1234567", "y1234567", 0},
		{"0123456789", "0123456789", 10}, {"01234567ab", "01234567aX", 9}} {
		if n := sharedPrefix([]byte(c.a), []byte(c.b)); n != c.n {
			t.Errorf("sharedPrefix(%q, %q) = %d, want %d", c.a, c.b, n, c.n)
		}
	}
}

// FuzzDeltaByteArray: any values (data split at the lengths given by
// cuts, one octet each) encode as parquet-go encodes them.
func FuzzDeltaByteArray(f *testing.F) {
	f.Add([]byte("RC SEND Only QP 0x000011 PSN 1RC SEND Only QP 0x000011 PSN 2RC Ack"), []byte{30, 30, 6})
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"), []byte{70, 71, 0, 0})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		offs := []uint32{0}
		for _, c := range cuts {
			offs = append(offs, min(offs[len(offs)-1]+uint32(c), uint32(len(data))))
		}
		checkDelta(t, "fuzz", data, offs)
	})
}

// TestSharedPrefixAll holds sharedPrefix against an octet-at-a-time
// loop for every pair of lengths to 40 and every place of a difference
// (its 8-octet loads, two a step and the last ending at the shorter
// value's end, must neither read past either value nor miss one).
func TestSharedPrefixAll(t *testing.T) {
	naive := func(a, b []byte) int {
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		return i
	}
	base := []byte("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ")
	for la := 0; la <= 40; la++ {
		for lb := 0; lb <= 40; lb++ {
			for d := -1; d < min(la, lb); d++ {
				a := append([]byte(nil), base[:la]...)
				b := append([]byte(nil), base[:lb]...)
				if d >= 0 {
					b[d] ^= 0x80
				}
				if got, want := sharedPrefix(a[:la:la], b[:lb:lb]), naive(a, b); got != want {
					t.Fatalf("sharedPrefix(%q, %q) = %d, want %d", a, b, got, want)
				}
			}
		}
	}
}
