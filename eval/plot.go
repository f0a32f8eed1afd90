package eval

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// recallSVG plots mean recall@k against k, one line per runner.
func (r *Report) recallSVG(title string, runners map[string]*RunnerReport) ([]byte, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "k (messages ranked)"
	p.Y.Label.Text = "recall@k"
	p.X.Min, p.X.Max = 1, float64(r.Depth)
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	// Bottom left, icons first: the curves rise away from it, and text
	// that renders wider than measured (fonts are not embedded) runs into
	// empty space instead of over the icons.
	p.Legend.Top = false
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.YOffs = vg.Points(4)
	for i, name := range r.RunnerOrder {
		rr := runners[name]
		if rr == nil || len(rr.RecallCurve) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(rr.RecallCurve))
		for k, v := range rr.RecallCurve {
			pts[k].X, pts[k].Y = float64(k+1), v
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("eval: recall plot: %w", err)
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s (R@10 %.3f)", name, rr.Overall["recall@10"]), line)
	}
	return svgBytes(p, 6*vg.Inch, 4*vg.Inch)
}

// minPlotMS is the floor of plotted latencies; a log scale has no zero.
const minPlotMS = 0.01

// latencySVG draws a box plot of the per-question latency of each runner
// over all suites.
func (r *Report) latencySVG() ([]byte, error) {
	p := plot.New()
	p.Title.Text = "Latency per question"
	p.Y.Label.Text = "ms (log scale)"
	// A log scale keeps the boxes readable next to rare slow outliers.
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	var names []string
	for i, name := range r.RunnerOrder {
		var lat plotter.Values
		for _, s := range r.Suites {
			for _, v := range s.Runners[name].latencies {
				lat = append(lat, max(v, minPlotMS))
			}
		}
		if len(lat) == 0 {
			lat = plotter.Values{minPlotMS}
		}
		box, err := plotter.NewBoxPlot(vg.Points(30), float64(i), lat)
		if err != nil {
			return nil, fmt.Errorf("eval: latency plot: %w", err)
		}
		box.FillColor = plotutil.Color(i)
		p.Add(box)
		names = append(names, name)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	return svgBytes(p, 6*vg.Inch, 4*vg.Inch)
}

func svgBytes(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	c := vgsvg.NewWith(vgsvg.UseWH(w, h))
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("eval: render plot: %w", err)
	}
	return b.Bytes(), nil
}
