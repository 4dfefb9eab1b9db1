package history

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/loopbench/loopbench/internal/harness/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Figure is one benchmark's counts over the commits, as SVG.
type Figure struct {
	Name    string // the benchmark
	File    string // its file: "003-Timers_op=schedule-cancel.svg"
	Changes int
	SVG     []byte
}

var (
	countColor  = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	levelColor  = color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xff}
	changeColor = color.RGBA{R: 0xc0, G: 0x20, B: 0x20, A: 0xff}
)

// Figures draws each benchmark's counts over the commits, one panel per
// unit: each commit's median with its repeats' range, each level as a
// gray line over its commits, and each change point as a red dashed line
// before its first commit.
func (r *Report) Figures() ([]Figure, error) {
	names := make([]string, len(r.History.Commits))
	for i, c := range r.History.Commits {
		names[i] = c.Short()[:min(8, len(c.Short()))]
	}
	var out []Figure
	for n, name := range r.Names {
		var plots []*plot.Plot
		changes := 0
		for _, s := range r.History.Series {
			if s.Name != name {
				continue
			}
			var cs []Change
			for _, c := range r.Changes {
				if c.Name == s.Name && c.Unit == s.Unit {
					cs = append(cs, c)
				}
			}
			changes += len(cs)
			p, err := seriesPlot(s, cs, names)
			if err != nil {
				return out, fmt.Errorf("%s %s: %w", s.Name, s.Unit, err)
			}
			plots = append(plots, p)
		}
		svg, err := report.Tile(plots, name)
		if err != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, Figure{Name: name, File: fmt.Sprintf("%03d-%s.svg", n+1, unsafeChars.ReplaceAllString(name, "_")), Changes: changes, SVG: svg})
	}
	return out, nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9=._-]+`)

// seriesPlot draws one unit of a benchmark.
func seriesPlot(s *Series, changes []Change, names []string) (*plot.Plot, error) {
	p := report.Panel(s.Unit, s.Unit+", lower is better", names)
	var pts plotter.XYs
	var lo, hi []float64
	for i, at := range s.At {
		pts = append(pts, plotter.XY{X: float64(at), Y: median(s.Values[i])})
		lo, hi = append(lo, slices.Min(s.Values[i])), append(hi, slices.Max(s.Values[i]))
	}
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	line.Color, points.Color = countColor, countColor
	bars, err := report.RangeBars(pts, lo, hi)
	if err != nil {
		return nil, err
	}
	bars.Color = countColor
	p.Add(line, points, bars)
	ylo, yhi := slices.Min(lo), slices.Max(hi)
	levels := segments(s, changes)
	for _, l := range levels {
		seg, err := plotter.NewLine(plotter.XYs{{X: float64(l.From) - 0.3, Y: l.Median}, {X: float64(l.To) + 0.3, Y: l.Median}})
		if err != nil {
			return nil, err
		}
		seg.Color, seg.Width = levelColor, vg.Points(2)
		p.Add(seg)
	}
	for _, c := range changes {
		mark, err := plotter.NewLine(plotter.XYs{{X: float64(c.At) - 0.5, Y: ylo}, {X: float64(c.At) - 0.5, Y: yhi}})
		if err != nil {
			return nil, err
		}
		mark.Color, mark.Dashes = changeColor, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(mark)
	}
	pad := max((yhi-ylo)*0.1, 1e-3*max(yhi, 1))
	p.Y.Min, p.Y.Max = ylo-pad, yhi+pad
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	return p, nil
}

// segments are the levels of a series between its change points: the
// whole series when there is none.
func segments(s *Series, changes []Change) []Level {
	if len(changes) == 0 {
		return []Level{level(s, newPoints(s).mids, 0, len(s.At))}
	}
	out := []Level{changes[0].Before}
	for _, c := range changes {
		out = append(out, c.After)
	}
	return out
}

// page is history.html: the change points and every benchmark's figure,
// those with change points first, on one page with nothing fetched.
var page = template.Must(template.New("history").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>loopbench history</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem; color: #222; line-height: 1.4; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
pre { font-size: .8rem; overflow-x: auto; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #555; }
</style>
</head>
<body>
<h1>loopbench history</h1>
<pre>{{.Text}}</pre>
{{range .Figures}}<h2 id="{{.File}}">{{.Name}}</h2>
<figure>{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{end}}
</body>
</html>
`))

// WriteDir writes each figure's SVG and history.html to dir, a new or
// empty directory, and returns the paths it wrote.
func (r *Report) WriteDir(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	figs, err := r.Figures()
	if err != nil {
		return nil, err
	}
	type inline struct {
		Name, File, Caption string
		SVG                 template.HTML
	}
	var text bytes.Buffer
	r.WriteText(&text)
	data := struct {
		Text    string
		Figures []inline
	}{Text: text.String()}
	var written []string
	slices.SortStableFunc(figs, func(a, b Figure) int { return min(b.Changes, 1) - min(a.Changes, 1) })
	for _, f := range figs {
		path := filepath.Join(dir, f.File)
		if err := os.WriteFile(path, f.SVG, 0o644); err != nil {
			return written, err
		}
		written = append(written, path)
		caption := fmt.Sprintf("%s over the commits: each commit's median and its repeats' range; gray lines are the levels, red dashed lines the change points (%d).", f.Name, f.Changes)
		data.Figures = append(data.Figures, inline{f.Name, f.File, caption, template.HTML(report.InlineSVG(f.SVG))})
	}
	var b bytes.Buffer
	if err := page.Execute(&b, data); err != nil {
		return written, err
	}
	path := filepath.Join(dir, "history.html")
	written = append(written, path)
	return written, os.WriteFile(path, b.Bytes(), 0o644)
}
