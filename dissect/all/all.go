// Package all links every protocol dissector into a binary.
package all

import (
	_ "github.com/rdx-project/rdx/dissect/rx"
)
