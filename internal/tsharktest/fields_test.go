package tsharktest

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/rdx-project/rdx/dissect"
)

var updateFields = flag.Bool("update-fields", false, "rewrite testdata/tshark-fields.tsv and testdata/rdx-only.txt from the installed tshark's -G fields")

const (
	sharedFieldsFile = "testdata/tshark-fields.tsv" // tshark -G fields lines of the protocols rdx shares
	rdxOnlyFile      = "testdata/rdx-only.txt"      // rdx fields under a Wireshark protocol that Wireshark lacks
)

// notShared are rdx protocol abbreviations that name another protocol in
// Wireshark (rdp is RFC 908 in rdx, Remote Desktop in Wireshark) or rdx's
// own meta fields (_ws.expert.* carry strings in rdx).
var notShared = map[string]bool{"rdp": true, "_ws": true}

// fieldDrift lists the shared fields whose type or base still differs from
// tshark 4.0.17's, with the reason; every other drift fails the test.
var fieldDrift = map[string]string{}

// sameType: types that print the same in -T fields though tshark names
// them otherwise (counted strings, counted bytes).
func sameType(rdx, ts string) bool {
	if rdx == ts {
		return true
	}
	switch rdx {
	case "FT_STRING":
		return ts == "FT_STRINGZ" || ts == "FT_UINT_STRING" || ts == "FT_STRINGZPAD" || ts == "FT_STRINGZTRUNC"
	case "FT_BYTES":
		return ts == "FT_UINT_BYTES"
	}
	return false
}

func isInt(t string) bool {
	return strings.HasPrefix(t, "FT_UINT") && t != "FT_UINT_STRING" && t != "FT_UINT_BYTES" || strings.HasPrefix(t, "FT_INT")
}

// sameBase: the display base of integer fields; BASE_PT_* is a decimal
// port number, and BASE_NONE (a value named by its value string, as the
// checksum statuses) prints in decimal too.
func sameBase(rdx, ts string) bool {
	return rdx == ts || rdx == "BASE_DEC" && (ts == "BASE_PT_TCP" || ts == "BASE_PT_UDP" || ts == "BASE_NONE")
}

// shared reports whether abbrev belongs to a protocol Wireshark also has,
// given tshark's protocol abbreviations.
func shared(abbrev string, protos map[string]bool) bool {
	p, _, _ := strings.Cut(abbrev, ".")
	if q := fieldPrefixProto[p]; q != "" {
		p = q
	}
	return !notShared[p] && protos[p]
}

// fieldPrefixProto: field prefixes that are not their protocol's name.
var fieldPrefixProto = map[string]string{"iwarp_ddp": "iwarp_ddp_rdmap", "iwarp_rdma": "iwarp_ddp_rdmap"}

// TestFieldsMatchTshark fails when a field rdx shares with Wireshark drifts
// in type or display base, and when rdx registers a field under a protocol
// Wireshark also dissects with a name Wireshark does not have (a renamed
// field, or a new one that should take Wireshark's name) unless it is
// listed as rdx's own. It reads the stored extract of `tshark -G fields`
// (tshark 4.0.17: every field of the shared protocols), so it needs no
// tshark; -update-fields rewrites the extract from the installed tshark.
func TestFieldsMatchTshark(t *testing.T) {
	if *updateFields {
		writeFieldFiles(t)
	}
	raw, err := os.ReadFile(sharedFieldsFile)
	if err != nil {
		t.Fatal(err)
	}
	protos := map[string]bool{}
	type tsField struct{ typ, base string }
	ts := map[string]tsField{}
	for _, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		c := strings.Split(line, "\t")
		switch {
		case c[0] == "P" && len(c) >= 3:
			protos[c[2]] = true
		case c[0] == "F" && len(c) >= 7:
			ts[c[2]] = tsField{c[3], c[5]}
		}
	}
	only := readRdxOnly(t)
	rdx := map[string]bool{}
	n, known := 0, 0
	for _, f := range dissect.Fields() {
		a := f.Abbrev
		rdx[a] = true
		if !shared(a, protos) || protos[a] { // protocol nodes are tshark's P lines
			continue
		}
		w, ok := ts[a]
		if !ok {
			if !only[a] {
				t.Errorf("%s (%s): Wireshark has no such field; use Wireshark's name for the same value, or list it in %s", a, f.Type, rdxOnlyFile)
			}
			continue
		}
		n++
		var bad string
		if !sameType(f.Type.String(), w.typ) {
			bad = "type " + f.Type.String() + ", tshark " + w.typ
		} else if isInt(w.typ) && !sameBase(f.Base.String(), w.base) {
			bad = "base " + f.Base.String() + ", tshark " + w.base
		}
		switch {
		case bad == "" && fieldDrift[a] != "":
			t.Errorf("%s now agrees with tshark: remove it from fieldDrift", a)
		case bad != "" && fieldDrift[a] != "":
			known++
		case bad != "":
			t.Errorf("%s: %s", a, bad)
		}
	}
	for a := range fieldDrift {
		if _, ok := ts[a]; !ok || !rdx[a] {
			t.Errorf("fieldDrift lists %s, which is not a field rdx shares with tshark", a)
		}
	}
	for a := range only {
		if _, ok := ts[a]; ok || !rdx[a] {
			t.Errorf("%s lists %s, which rdx no longer registers or Wireshark has", rdxOnlyFile, a)
		}
	}
	if n < 800 {
		t.Errorf("only %d shared fields checked", n)
	}
	t.Logf("%d shared fields, %d with a known difference, %d rdx-only fields under Wireshark protocols", n, known, len(only))
}

func protoPrefix(abbrev string) string {
	p, _, _ := strings.Cut(abbrev, ".")
	return p
}

func readRdxOnly(t *testing.T) map[string]bool {
	raw, err := os.ReadFile(rdxOnlyFile)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]bool{}
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m
}

// writeFieldFiles stores tshark's P and F lines of the protocols rdx
// shares, and the rdx-only list.
func writeFieldFiles(t *testing.T) {
	out, err := exec.Command("tshark", "-G", "fields").Output()
	if err != nil {
		t.Fatalf("tshark -G fields: %v", err)
	}
	rdx := map[string]bool{}
	prefixes := map[string]bool{}
	for _, f := range dissect.Fields() {
		rdx[f.Abbrev] = true
		p, _, _ := strings.Cut(f.Abbrev, ".")
		prefixes[p] = true
	}
	var keep []string
	var fl [][]string
	protos, tsFields := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		switch {
		case c[0] == "P" && len(c) >= 3 && prefixes[c[2]] && !notShared[c[2]],
			// sub-protocols of a shared one: Wireshark's TCP options
			// (tcp.options.mss), which rdx registers as fields
			c[0] == "P" && len(c) >= 3 && rdx[c[2]] && prefixes[protoPrefix(c[2])] && !notShared[protoPrefix(c[2])]:
			protos[c[2]] = true
			keep = append(keep, sc.Text())
		case c[0] == "F" && len(c) >= 5:
			fl = append(fl, c)
		}
	}
	for _, c := range fl { // every field of the shared protocols
		if protos[c[4]] {
			tsFields[c[2]] = true
			keep = append(keep, strings.Join(c, "\t"))
		}
	}
	sort.Strings(keep)
	if err := os.WriteFile(sharedFieldsFile, []byte(strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var only []string
	for a := range rdx {
		if shared(a, protos) && !tsFields[a] && !protos[a] { // protocol nodes are tshark's P lines
			only = append(only, a)
		}
	}
	sort.Strings(only)
	hdr := "# rdx fields under a protocol Wireshark also dissects that Wireshark (tshark 4.0.17 -G fields) does not have.\n" +
		"# Before adding a name here, look for Wireshark's field for the same value and use its name.\n"
	if err := os.WriteFile(rdxOnlyFile, []byte(hdr+strings.Join(only, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
