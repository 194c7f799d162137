package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/pipeline"
)

// TestLaterMarksComplete: on every capture in pcaps/, every field not
// marked dissect.Field.Later prints the same in one pass as in two, so
// reading once for it loses nothing; and the Later fields are what differ
// (a mark that never matters would cost a pass for nothing).
func TestLaterMarksComplete(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes every capture three times with every field")
	}
	var names []string
	for _, f := range dissect.Fields() {
		names = append(names, f.Abbrev)
	}
	var caps []string
	filepath.WalkDir("../pcaps", func(p string, d os.DirEntry, err error) error {
		if strings.HasSuffix(p, ".pcap") || strings.HasSuffix(p, ".pcapng") || strings.HasSuffix(p, ".cap.gz") {
			caps = append(caps, p)
		}
		return nil
	})
	if len(caps) < 40 {
		t.Fatalf("only %d captures under pcaps/", len(caps))
	}
	differed := map[string]bool{}
	for _, c := range caps {
		p := pipeline.Print{Format: "fields", Fields: names}
		var one, two strings.Builder
		pipeline.Run(pipeline.Config{Input: pipeline.Input{File: c}, Print: p, Out: &one, SinglePass: true})
		pipeline.Run(pipeline.Config{Input: pipeline.Input{File: c}, Print: p, Out: &two, TwoPass: true})
		lo, lt := strings.Split(one.String(), "\n"), strings.Split(two.String(), "\n")
		if len(lo) != len(lt) || len(lo) < 2 {
			t.Errorf("%s: %d lines in one pass, %d in two", c, len(lo), len(lt))
			continue
		}
		for i := range lo {
			if lo[i] == lt[i] {
				continue
			}
			co, ct := strings.Split(lo[i], "\t"), strings.Split(lt[i], "\t")
			for j := range co {
				if co[j] != ct[j] {
					differed[names[j]] = true
					if !dissect.Lookup(names[j]).Later {
						t.Errorf("%s line %d: %s is %q in one pass, %q in two, and not marked Later", c, i+1, names[j], co[j], ct[j])
					}
				}
			}
		}
	}
	for _, n := range []string{"afs.repframe", "rpc.reqframe", "iwarp_rdma.response_in", "rds.pong_frame"} {
		if !differed[n] {
			t.Errorf("%s never differed between one pass and two", n)
		}
	}
}
