package afs

import (
	"bufio"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// xgAliases are the procedures rdx names as Wireshark and older OpenAFS
// releases do, not as the current interface file does (tables_ops.go).
var xgAliases = map[string]string{
	"FS 134 OldStoreACL": "StoreACL", "FS 161 Lookup": "DFSLookup", "FS 220 FsCmd": "Residency",
	"PR 500 INewEntry": "NewUser", "VL 504 GetEntryByNameO": "GetEntryByName", "VL 514 ProbeServer": "Probe",
	"VOL 65536 ConvertROtoRWvolume": "ConvertROtoRW", "BOS 115 GetRestrictedMode": "GetRestricted",
	"BOS 116 SetRestrictedMode": "SetRestricted", "VOL 65544 VOLARCHCANDold": "ArchCandOld",
}

// TestOpcodeTablesComplete checks every procedure number of the OpenAFS
// interface files (testdata/xg-opcodes.txt, extracted from openafs master)
// against rdx's opcode tables: each must be named, with the file's name.
func TestOpcodeTablesComplete(t *testing.T) {
	tables := map[string]map[uint32]string{
		"FS": fsOpNames, "CB": cbOpNames, "PR": ptOpNames, "VL": vlOpNames, "KA": kaOpNames,
		"VOL": volOpNames, "BOS": bosOpNames, "UP": upOpNames, "RMTSYS": rmtsysOpNames,
		"BUDB": budbOpNames, "BUTC": butcOpNames, "VOTE": voteOpNames, "DISK": diskOpNames,
	}
	f, err := os.Open("testdata/xg-opcodes.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		w := strings.Fields(line)
		if len(w) != 4 {
			t.Fatalf("bad line %q", line)
		}
		op, err := strconv.ParseUint(w[1], 10, 32)
		if err != nil {
			t.Fatalf("bad line %q", line)
		}
		n++
		got := tables[w[0]][uint32(op)]
		if got == "" {
			t.Errorf("%s opcode %d (%s in %s) has no name", w[0], op, w[2], w[3])
			continue
		}
		if strings.ToUpper(w[2]) == w[2] { // a #define, not a procedure name
			continue
		}
		want := w[2]
		if a, ok := xgAliases[w[0]+" "+w[1]+" "+w[2]]; ok {
			want = a
		}
		if got != want {
			t.Errorf("%s opcode %d is %q, %s says %q", w[0], op, got, w[3], want)
		}
	}
	if n < 250 {
		t.Fatalf("only %d opcodes read", n)
	}
}

// TestOpsNamed: every opcode a service decodes is in its name table (PDU.check
// takes a decoder's opcode as known without looking its name up).
func TestOpsNamed(t *testing.T) {
	for _, s := range []*service{svcFS, svcCB, svcPT, svcVL, svcKA, svcVol, svcError, svcBOS, svcUp, svcRmtsys, svcBackup, svcButc, svcVote, svcDisk} {
		for op := range s.ops {
			if s.names[op] == "" {
				t.Errorf("%s opcode %d has a decoder but no name", s.abbrev, op)
			}
		}
	}
}

// The opcode window answers as the maps do, for every service and every
// opcode in and around the ranges (the extensions at 65536 on included).
func TestOpWindow(t *testing.T) {
	for _, s := range services {
		if len(s.names)+len(s.ops) > 0 && len(s.win) == 0 {
			t.Errorf("%s: no window", s.abbrev)
		}
		for opc := uint32(0); opc < 70000; opc++ {
			o, ok := s.op(opc)
			mo, mok := s.ops[opc]
			if ok != mok || fnPtr(o.req) != fnPtr(mo.req) || fnPtr(o.rep) != fnPtr(mo.rep) {
				t.Fatalf("%s opcode %d: op %v, map %v, or other decoders", s.abbrev, opc, ok, mok)
			}
			if n := s.name(opc); n != s.names[opc] {
				t.Fatalf("%s opcode %d: name %q, map %q", s.abbrev, opc, n, s.names[opc])
			}
		}
	}
}

// fnPtr tells decoders apart (0 for none).
func fnPtr(f func(*dec)) uintptr {
	if f == nil {
		return 0
	}
	return reflect.ValueOf(f).Pointer()
}
