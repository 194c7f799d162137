package main

import (
	"bufio"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/iostreams"
)

// FieldsOptions are `rdx fields`' (none but the streams).
type FieldsOptions struct {
	IO *iostreams.IO
}

// newCmdFields lists the registry like `tshark -G fields`: protocols as
// "P<TAB>name<TAB>abbrev", fields as "F<TAB>name<TAB>abbrev<TAB>type<TAB>protocol<TAB>base<TAB>mask<TAB>description".
func newCmdFields(io *iostreams.IO, runF func(*FieldsOptions) error) *cobra.Command {
	o := &FieldsOptions{IO: io}
	return &cobra.Command{
		Use:   "fields",
		Short: "List every protocol and field rdx knows (like tshark -G fields)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
			return fieldsRun(o)
		},
	}
}

func fieldsRun(o *FieldsOptions) error {
	w := bufio.NewWriter(o.IO.Out)
	defer w.Flush()
	for _, p := range dissect.Protocols() {
		w.WriteString("P\t" + p.Name + "\t" + p.Abbrev)
		if p.Note != "" {
			w.WriteString("\t" + p.Note)
		}
		w.WriteByte('\n')
	}
	for _, f := range dissect.Fields() {
		if f.Type == dissect.TProtocol {
			continue
		}
		mask := "0x0"
		if f.Mask != 0 {
			mask = "0x" + hex(f.Mask)
		}
		w.WriteString("F\t" + f.Name + "\t" + f.Abbrev + "\t" + f.Type.String() + "\t" + f.Proto + "\t" +
			f.Base.String() + "\t" + mask + "\t" + f.Desc + "\n")
	}
	return nil
}

func hex(v uint64) string {
	const hx = "0123456789abcdef"
	var b [16]byte
	i := len(b)
	for {
		i--
		b[i] = hx[v&15]
		v >>= 4
		if v == 0 {
			break
		}
	}
	return string(b[i:])
}
