package render

import "github.com/charmbracelet/colorprofile"

// Colors is the default theme in the 16 ANSI colours, for the tests. The
// program builds its Style from --color and --colors (cmd/rdx); building
// this one at init cost every run ~80 KB before its first frame.
var Colors = *NewStyle(DefaultTheme(), colorprofile.ANSI)
