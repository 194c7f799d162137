package plot

import (
	"fmt"
	"image/color"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// dpi relates Options' pixels to gonum's points (1/72 inch): a PNG is
// drawn at 96 dpi, so Width pixels are Width*72/96 points, and an SVG gets
// the same size in points.
const dpi = 96

func pixels(n int) vg.Length { return vg.Length(n) * vg.Inch / dpi }

// writePanels draws rows of plots on one canvas (each row's plots side by
// side) and writes it in opt.Format.
func writePanels(w io.Writer, rows [][]*plot.Plot, opt *Options) error {
	width, height := pixels(opt.Width), pixels(opt.Height)
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch opt.Format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi))}
	default:
		c = vgsvg.New(width, height)
	}
	dc := draw.New(c)
	dc.FillPolygon(color.White, []vg.Point{{X: 0, Y: 0}, {X: width, Y: 0}, {X: width, Y: height}, {X: 0, Y: height}})
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	grid := make([][]*plot.Plot, len(rows))
	for i, r := range rows {
		grid[i] = make([]*plot.Plot, cols)
		copy(grid[i], r)
	}
	pad := vg.Points(6)
	canvases := plot.Align(grid, draw.Tiles{Rows: len(rows), Cols: cols, PadX: vg.Points(14), PadY: vg.Points(10),
		PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: vg.Points(12)}, dc)
	for i := range grid {
		for j, p := range grid[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	_, err := c.WriteTo(w)
	return err
}

// newPlot is a panel with a title, axis labels (with their units) and a
// grid.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Variant = "Sans" // gonum's default is serif
	}
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Y.Min = 0
	return p
}

// xy is a plotter.XYer over two slices.
type xy struct{ x, y []float64 }

func (d xy) Len() int                    { return len(d.x) }
func (d xy) XY(i int) (float64, float64) { return d.x[i], d.y[i] }

// palette is Tableau's ten colours: told apart at a glance, also in
// print; colour 0 of a kind is its most important line.
var palette = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
	color.RGBA{227, 119, 194, 255}, color.RGBA{127, 127, 127, 255}, color.RGBA{188, 189, 34, 255},
	color.RGBA{23, 190, 207, 255},
}

func colour(i int) color.Color { return palette[i%len(palette)] }

// greyColour is the palette's grey, for totals behind coloured lines.
const greyColour = 7

// newLine is a line of colour i and width w.
func newLine(x, y []float64, i int, w vg.Length) (*plotter.Line, error) {
	l, err := plotter.NewLine(xy{x, y})
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = colour(i), w
	return l, nil
}

// addLine adds a line of colour i, with a legend entry when name is given.
func addLine(p *plot.Plot, name string, i int, x, y []float64, width vg.Length) error {
	l, err := newLine(x, y, i, width)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
	return nil
}

// sameX gives stacked panels one time axis, from 0 to the latest point
// of any of them.
func sameX(ps ...*plot.Plot) {
	hi := 0.0
	for _, p := range ps {
		hi = max(hi, p.X.Max)
	}
	for _, p := range ps {
		p.X.Min, p.X.Max = 0, hi
	}
}

// siTicks labels an axis's default ticks with SI prefixes: 15M, not
// 15000000.
type siTicks struct{}

func (siTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = si(ts[i].Value)
		}
	}
	return ts
}

// si words v with an SI prefix and at most three significant digits.
func si(v float64) string {
	a := v
	if a < 0 {
		a = -a
	}
	for _, u := range []struct {
		f float64
		s string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if a >= u.f {
			return strconv.FormatFloat(v/u.f, 'g', 3, 64) + u.s
		}
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// addMarks adds a scatter of glyph shape and colour i with a legend entry.
func addMarks(p *plot.Plot, name string, i int, x, y []float64, radius vg.Length) error {
	s, err := plotter.NewScatter(xy{x, y})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	s.GlyphStyle.Color = colour(i)
	s.GlyphStyle.Shape = plotutil.Shape(i)
	s.GlyphStyle.Radius = radius
	p.Add(s)
	p.Legend.Add(name, s)
	return nil
}

// addLinePoints adds a thin line with small marks at its points, colour
// and shape i, under one legend entry.
func addLinePoints(p *plot.Plot, name string, i int, x, y []float64) error {
	l, s, err := plotter.NewLinePoints(xy{x, y})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	l.Color, l.Width = colour(i), vg.Points(0.75)
	s.GlyphStyle.Color, s.GlyphStyle.Shape, s.GlyphStyle.Radius = colour(i), plotutil.Shape(i), vg.Points(1.5)
	p.Add(l, s)
	p.Legend.Add(name, l, s)
	return nil
}

// seconds words a duration in nanoseconds for titles: 100 ms, 2 s, 50 µs.
func seconds(ns int64) string {
	switch {
	case ns >= 1e9 && ns%1e9 == 0:
		return strconv.FormatInt(ns/1e9, 10) + " s"
	case ns >= 1e6 && ns%1e6 == 0:
		return strconv.FormatInt(ns/1e6, 10) + " ms"
	case ns >= 1e3 && ns%1e3 == 0:
		return strconv.FormatInt(ns/1e3, 10) + " µs"
	case ns >= 1e6:
		return strconv.FormatFloat(float64(ns)/1e6, 'g', 4, 64) + " ms"
	}
	return strconv.FormatInt(ns, 10) + " ns"
}

const timeAxis = "Time since the first frame (s)"
