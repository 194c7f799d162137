package main

import (
	"bufio"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/dissect"
	"github.com/rdx-project/rdx/internal/iostreams"
)

// FieldsOptions are `rdx fields`' (none but the streams).
type FieldsOptions struct {
	IO *iostreams.IO
}

// newCmdFields lists the registry like `tshark -G fields`: protocols as
// "P<TAB>name<TAB>abbrev", fields as "F<TAB>name<TAB>abbrev<TAB>type<TAB>protocol<TAB>base<TAB>mask<TAB>description";
// a field only a later frame fills (dissect.Field.Later) says so in its description.
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
		desc := f.Desc
		if f.Later { // say why -e or -Y with it reads the file twice
			if desc != "" {
				desc += " "
			}
			desc += "[from a later frame: -e/-Y with it read the file twice]"
		}
		w.WriteString("F\t" + f.Name + "\t" + f.Abbrev + "\t" + f.Type.String() + "\t" + f.Proto + "\t" +
			f.Base.String() + "\t0x" + strconv.FormatUint(f.Mask, 16) + "\t" + desc + "\n")
	}
	return nil
}
