package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/rdx-project/rdx/internal/iostreams"
	"github.com/rdx-project/rdx/render"
)

// addColorFlags adds --color and --colors to every verb (the root's
// persistent flags) and decides the styling once, before the verb runs.
func addColorFlags(root *cobra.Command, io *iostreams.IO) {
	pf := root.PersistentFlags()
	pf.StringVar(&io.Color, "color", "auto", "colour: auto (a terminal, and NO_COLOR unset), always, never")
	pf.StringVar(&io.Colors, "colors", "", "colouring rules file: lines KEY = STYLE, e.g. error = red bold, proto.rx = #88c0d0 (README: Colour)")
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return setColor(io) }
}

// setColor checks --color, detects the terminal's colour profile and reads
// the --colors file: a bad file is a usage error naming its line.
func setColor(io *iostreams.IO) error {
	switch io.Color {
	case "auto", "always", "never":
	default:
		return usageErr("--color %s: want auto, always or never", io.Color)
	}
	theme := render.DefaultTheme()
	if io.Colors != "" {
		f, err := os.Open(io.Colors)
		if err != nil {
			return usageErr("--colors: %v", err)
		}
		defer f.Close()
		if theme, err = render.ParseTheme(io.Colors, f); err != nil {
			return usageErr("--colors: %v", err)
		}
	}
	io.SetColor(io.Color)
	io.SetTheme(theme)
	return nil
}
