package main

import (
	"bufio"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/iostreams"
)

func init() { verbs = append(verbs, verbDef{"tables", newCmdTables}) }

// newCmdTables lists the hand-off tables like `tshark -G decodes`.
func newCmdTables(io *iostreams.IO) *cobra.Command {
	return &cobra.Command{
		Use:   "tables",
		Short: "List the hand-off tables, their keys and heuristics (what -d TABLE==KEY,PROTO can change)",
		Long: `List every hand-off table: one "# TABLE<TAB>description<TAB>key width" line,
then one line per entry, TABLE<TAB>KEY<TAB>PROTOCOL, where KEY is a key or
range a protocol registered, "heuristic" (tried in the order shown on what no
key claims), or "decode-as" (a protocol -d accepts for the table but that
has no key by default). -d TABLE==KEY,PROTO accepts any protocol in the
udp.port, tcp.port, ip.proto, ethertype and wtap_encap tables.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeTables(io.Out)
		},
	}
}

// writeTables writes the listing of rdx tables (also rdx read -d help).
func writeTables(out io.Writer) error {
	w := bufio.NewWriter(out)
	for _, t := range dissect.Tables() {
		width := "heuristics only"
		if t.Bits > 0 {
			width = strconv.Itoa(t.Bits) + "-bit keys"
		}
		w.WriteString("# " + t.Name + "\t" + t.Desc + "\t" + width + "\n")
		keyed := map[string]bool{}
		for _, e := range t.Entries {
			w.WriteString(t.Name + "\t" + t.KeyString(e.Keys) + "\t" + e.Proto + "\n")
			keyed[e.Proto] = true
		}
		for _, h := range t.Heuristics {
			w.WriteString(t.Name + "\theuristic\t" + h + "\n")
		}
		for _, p := range t.DecodeAs {
			if !keyed[p] {
				w.WriteString(t.Name + "\tdecode-as\t" + p + "\n")
			}
		}
	}
	return w.Flush()
}
