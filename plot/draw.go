package plot

import (
	"fmt"
	"image/color"
	"io"
	"strconv"

	"gonum.org/v1/plot"
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

// addLine adds a line of colour i with a legend entry.
func addLine(p *plot.Plot, name string, i int, x, y []float64, width vg.Length) error {
	l, err := plotter.NewLine(xy{x, y})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	l.Color = plotutil.Color(i)
	l.Width = width
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// addMarks adds a scatter of glyph shape and colour i with a legend entry.
func addMarks(p *plot.Plot, name string, i int, x, y []float64, radius vg.Length) error {
	s, err := plotter.NewScatter(xy{x, y})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	s.GlyphStyle.Color = plotutil.Color(i)
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
	l.Color, l.Width = plotutil.Color(i), vg.Points(0.75)
	s.GlyphStyle.Color, s.GlyphStyle.Shape, s.GlyphStyle.Radius = plotutil.Color(i), plotutil.Shape(i), vg.Points(1.5)
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
