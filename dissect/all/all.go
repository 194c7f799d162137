// Package all links every protocol dissector into a binary.
package all

import (
	_ "github.com/rdx-project/rdx/dissect/afs"
	_ "github.com/rdx-project/rdx/dissect/ib"
	_ "github.com/rdx-project/rdx/dissect/rdp"
	_ "github.com/rdx-project/rdx/dissect/rx"
)
