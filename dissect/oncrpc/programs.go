package oncrpc

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/rdx-project/rdx/dissect"
)

type progInfo struct {
	name  string
	procs map[uint32]map[uint32]string // version -> procedure -> name
}

var nfs3Procs = map[uint32]string{0: "NULL", 1: "GETATTR", 2: "SETATTR", 3: "LOOKUP", 4: "ACCESS", 5: "READLINK", 6: "READ",
	7: "WRITE", 8: "CREATE", 9: "MKDIR", 10: "SYMLINK", 11: "MKNOD", 12: "REMOVE", 13: "RMDIR", 14: "RENAME", 15: "LINK",
	16: "READDIR", 17: "READDIRPLUS", 18: "FSSTAT", 19: "FSINFO", 20: "PATHCONF", 21: "COMMIT"}
var nfs2Procs = map[uint32]string{0: "NULL", 1: "GETATTR", 2: "SETATTR", 3: "ROOT", 4: "LOOKUP", 5: "READLINK", 6: "READ",
	7: "WRITECACHE", 8: "WRITE", 9: "CREATE", 10: "REMOVE", 11: "RENAME", 12: "LINK", 13: "SYMLINK", 14: "MKDIR", 15: "RMDIR",
	16: "READDIR", 17: "STATFS"}
var mountProcs = map[uint32]string{0: "NULL", 1: "MNT", 2: "DUMP", 3: "UMNT", 4: "UMNTALL", 5: "EXPORT"}
var nlmProcs = map[uint32]string{0: "NULL", 1: "TEST", 2: "LOCK", 3: "CANCEL", 4: "UNLOCK", 5: "GRANTED", 6: "TEST_MSG",
	7: "LOCK_MSG", 8: "CANCEL_MSG", 9: "UNLOCK_MSG", 10: "GRANTED_MSG", 11: "TEST_RES", 12: "LOCK_RES", 13: "CANCEL_RES",
	14: "UNLOCK_RES", 15: "GRANTED_RES", 20: "SHARE", 21: "UNSHARE", 22: "NM_LOCK", 23: "FREE_ALL"}
var pmap2Procs = map[uint32]string{0: "NULL", 1: "SET", 2: "UNSET", 3: "GETPORT", 4: "DUMP", 5: "CALLIT"}
var rpcb3Procs = map[uint32]string{0: "NULL", 1: "SET", 2: "UNSET", 3: "GETADDR", 4: "DUMP", 5: "CALLIT", 6: "GETTIME",
	7: "UADDR2TADDR", 8: "TADDR2UADDR"}
var rpcb4Procs = map[uint32]string{0: "NULL", 1: "SET", 2: "UNSET", 3: "GETADDR", 4: "DUMP", 5: "BCAST", 6: "GETTIME",
	7: "UADDR2TADDR", 8: "TADDR2UADDR", 9: "GETVERSADDR", 10: "INDIRECT", 11: "GETADDRLIST", 12: "GETSTAT"}
var aclProcs = map[uint32]string{0: "NULL", 1: "GETACL", 2: "SETACL", 3: "GETATTR", 4: "ACCESS", 5: "GETXATTRDIR"}
var cbProcs = map[uint32]string{0: "CB_NULL", 1: "CB_COMPOUND"}
var nsmProcs = map[uint32]string{0: "NULL", 1: "STAT", 2: "MON", 3: "UNMON", 4: "UNMON_ALL", 5: "SIMU_CRASH", 6: "NOTIFY"}

// programs names the programs rdx knows and their procedures.
var programs = map[uint32]progInfo{
	100000:     {"Portmap", map[uint32]map[uint32]string{2: pmap2Procs, 3: rpcb3Procs, 4: rpcb4Procs}},
	100003:     {"NFS", map[uint32]map[uint32]string{2: nfs2Procs, 3: nfs3Procs, 4: {0: "NULL", 1: "COMPOUND"}}},
	100005:     {"MOUNT", map[uint32]map[uint32]string{1: mountProcs, 2: mountProcs, 3: mountProcs}},
	100021:     {"NLM", map[uint32]map[uint32]string{1: nlmProcs, 3: nlmProcs, 4: nlmProcs}},
	100024:     {"STAT", map[uint32]map[uint32]string{1: nsmProcs}},
	0x40000000: {"NFS_CB", map[uint32]map[uint32]string{1: cbProcs, 4: cbProcs}},
	100227:     {"NFSACL", map[uint32]map[uint32]string{2: aclProcs, 3: aclProcs}},
}

// ProgramName names an RPC program ("" if unknown).
func ProgramName(prog uint32) string { return programs[prog].name }

// ProcName names a procedure of a program version ("" if unknown).
func ProcName(prog, vers, proc uint32) string {
	k := uint64(prog)<<32 | uint64(vers)
	for i := range procTable {
		if e := &procTable[i]; e.key == k {
			if proc < uint32(len(e.names)) {
				return e.names[proc]
			}
			break
		}
	}
	return ""
}

// procTable is programs' procedure names flat: program<<32|version and
// the names indexed by procedure. Every summary line of an RPC message
// names its procedure: a scan of these few entries, NFS first (most RPC
// over RDMA is NFS), costs a fraction of a map lookup.
var procTable = func() (t []procEntry) {
	for prog, pi := range programs {
		for vers, procs := range pi.procs {
			var names []string
			for proc, n := range procs {
				if int(proc) >= len(names) {
					names = append(names, make([]string, int(proc)+1-len(names))...)
				}
				names[proc] = n
			}
			t = append(t, procEntry{uint64(prog)<<32 | uint64(vers), names})
		}
	}
	slices.SortFunc(t, func(a, b procEntry) int {
		if an, bn := a.key>>32 == nfsProgram, b.key>>32 == nfsProgram; an != bn {
			if an {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.key, b.key)
	})
	return t
}()

type procEntry struct {
	key   uint64
	names []string
}

const nfsProgram = 100003

// Program decodes the arguments and results of one RPC program version.
type Program interface {
	Proto() *dissect.ProtoInfo
	// Tree adds the program's protocol node and fields for m's body (the
	// call's arguments or the reply's results, m.Data()[m.BodyOff():]).
	// Offsets are relative to the message start.
	Tree(t *dissect.Tree, m *Msg)
	// Summary appends the program's info text (e.g. "V3 GETATTR Call").
	Summary(dst []byte, m *Msg) []byte
}

// CallExtractor is implemented by programs whose replies need something from
// their call's arguments (e.g. the access bits asked about): CallExtra runs
// on every call as it is dissected and the reply reads the value as
// Msg.CallExtra.
type CallExtractor interface {
	CallExtra(m *Msg) uint64
}

// Validator is implemented by programs that check a message as it is
// dissected (summaries and trees are built later, lazily, and cannot add
// findings): counts and lengths a body claims that its octets cannot hold.
// idx is the program PDU's index in f.
type Validator interface {
	Validate(f *dissect.Frame, idx int, m *Msg)
}

// ProgramVersion is the context of the rpc.program table: a message's
// program and version. The program's handler sets Program to its decoder of
// that version, or declines.
type ProgramVersion struct {
	Prog, Vers uint32
	Program    Program
}

// Programs is the table of the RPC programs' decoders, keyed by program
// number: a program package registers its versions' decoders
// (dissect.AddHandler with Versions.Handle); -d rpc.program==N,PROTO decodes
// program N with PROTO's. Its heuristic is rdx's generic decoder (procedure
// names only) of the programs and versions nobody registered.
var Programs = dissect.NewDissectorTable[*ProgramVersion]("rpc.program", "ONC RPC program number (decoders by version)", 32)

// Versions maps a program's versions to their decoders; Handle is its
// rpc.program handler. Fill it at init only: it is read without a lock.
type Versions map[uint32]Program

// Handle takes the versions it has a decoder for.
func (v Versions) Handle(_ dissect.Dissector, _ *dissect.Frame, q *ProgramVersion) bool {
	q.Program = v[q.Vers]
	return q.Program != nil
}

// Keys is the key of program prog in the rpc.program table.
func Keys(prog uint32) []dissect.KeyRange {
	return []dissect.KeyRange{{Lo: uint64(prog), Hi: uint64(prog)}}
}

type progKey struct{ prog, vers uint32 }

// generics are the generic decoders by program and version (init only).
var generics = map[progKey]Program{}

// generic shows the procedure of a program without decoding its arguments.
type generic struct {
	proto *dissect.ProtoInfo
	proc  *dissect.Field
}

func (g *generic) Proto() *dissect.ProtoInfo { return g.proto }

func (g *generic) Tree(t *dissect.Tree, m *Msg) {
	t.Proto(g.proto, m.BodyOff(), len(m.Data())-m.BodyOff(), "")
	t.Uint(FProgVers, -1, 0, uint64(m.Vers))
	t.Uint(g.proc, -1, 0, uint64(m.Proc))
	if n := len(m.Data()) - m.BodyOff(); n > 0 {
		t.Bytes(fArgs, m.BodyOff(), n, m.Data()[m.BodyOff():])
	}
}

func (g *generic) Summary(dst []byte, m *Msg) []byte { return AppendProc(dst, m) }

// AppendProc appends "V3 GETATTR Call" (or "Reply") for m.
func AppendProc(dst []byte, m *Msg) []byte {
	dst = append(dst, 'V')
	dst = dissect.AppendUint(dst, uint64(m.Vers))
	dst = append(dst, ' ')
	if n := ProcName(m.Prog, m.Vers, m.Proc); n != "" {
		dst = append(dst, n...)
	} else {
		dst = append(dst, "proc "...)
		dst = dissect.AppendUint(dst, uint64(m.Proc))
	}
	if m.Type == Call {
		return append(dst, " Call"...)
	}
	return append(dst, " Reply"...)
}

func registerGeneric(prog, vers uint32, abbrev, name, procAbbrev string) {
	p := dissect.LookupProto(abbrev)
	if p == nil {
		p = dissect.RegisterProto(abbrev, name, "")
	}
	names := map[uint64]string{}
	for k, v := range programs[prog].procs[vers] {
		names[uint64(k)] = v
	}
	f := dissect.Register(&dissect.Field{Abbrev: procAbbrev, Name: "V" + strconv.Itoa(int(vers)) + " Procedure", Type: dissect.TUint32, Names: names})
	generics[progKey{prog, vers}] = &generic{proto: p, proc: f}
}

func init() {
	dissect.AddHeuristic(Programs.Name(), Name, func(_ dissect.Dissector, _ *dissect.Frame, q *ProgramVersion) bool {
		q.Program = generics[progKey{q.Prog, q.Vers}]
		return q.Program != nil
	})
	registerGeneric(100000, 2, "portmap", "Portmap", "portmap.procedure_v2")
	registerGeneric(100000, 3, "portmap", "Portmap", "portmap.procedure_v3")
	registerGeneric(100000, 4, "portmap", "Portmap", "portmap.procedure_v4")
	registerGeneric(100005, 1, "mount", "Mount Service", "mount.procedure_v1")
	registerGeneric(100005, 3, "mount", "Mount Service", "mount.procedure_v3")
	registerGeneric(100021, 4, "nlm", "Network Lock Manager Protocol", "nlm.procedure_v4")
	registerGeneric(100024, 1, "stat", "Network Status Monitor Protocol", "stat.procedure_v1")
	registerGeneric(100227, 3, "nfsacl", "NFSACL", "nfsacl.procedure_v3")
}
