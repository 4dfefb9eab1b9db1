package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
)

// page is report.html: one page with every table and plot inline, no
// script and nothing fetched, readable on a phone.
var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem; color: #222; line-height: 1.4; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; font-size: .9rem; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: .85rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: .25rem .5rem; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
th.baseline { color: #666; font-style: italic; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #555; }
.note { font-size: .9rem; color: #444; }
.banner { border: 2px solid #b00; padding: .5rem; font-weight: bold; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Banners}}<p class="banner">{{.}}</p>
{{end}}<dl>
{{range .Config}}<dt>{{.Key}}</dt><dd>{{.Value}}</dd>
{{end}}{{range .Varying}}<dt>{{.Key}}</dt><dd>{{.Value}} (varies)</dd>
{{end}}{{if not .Machines}}{{range .Runs}}<dt>run {{.Key}}</dt><dd>{{.Value}}</dd>
{{end}}{{end}}{{range .Machines}}<dt>machine {{.Label}}</dt><dd>{{.Desc}}</dd>
{{end}}<dt>results</dt><dd>{{.Results}} benchmark lines from {{.Files}}</dd>
{{range .Checks}}<dt>check</dt><dd>{{.}}</dd>
{{end}}</dl>
<p class="note">{{.Note}}</p>
<p class="note">{{.TestNote}}</p>
{{range .Sections}}
<h2 id="{{.ID}}">{{.Title}}</h2>
<div class="scroll"><table>
<tr>{{range .Header}}<th{{if .Baseline}} class="baseline"{{end}}>{{.Text}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{if .SVG}}<figure>{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>{{end}}
{{end}}
{{if .Warnings}}<h2>Lines that could not be read</h2><ul>{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body>
</html>
`))

type headCell struct {
	Text     string
	Baseline bool
}

type section struct {
	ID, Title, Caption string
	Header             []headCell
	Rows               [][]string
	SVG                template.HTML
}

// WriteHTML writes report.html with the figures inline.
func (rep *Report) WriteHTML(w io.Writer, figs []Figure) error {
	data := struct {
		*Report
		Note     string
		TestNote string
		Files    string
		Sections []section
	}{Report: rep, Note: Note, TestNote: TestNote, Files: rep.sources()}
	for i, t := range rep.Tables {
		s := section{ID: fmt.Sprintf("t%d", i), Title: t.Title(), Rows: t.Strings()}
		for k, h := range t.Header() {
			s.Header = append(s.Header, headCell{h, k > 0 && t.Cols[k-1].Baseline})
		}
		if i < len(figs) {
			s.SVG = template.HTML(inlineSVG(figs[i].SVG))
			s.Caption = figs[i].Caption
		}
		data.Sections = append(data.Sections, s)
	}
	return page.Execute(w, data)
}

// inlineSVG readies an SVG file for an HTML page: without its XML
// declaration and comment, and with generic fallbacks for its fonts.
func inlineSVG(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		svg = svg[i:]
	}
	return fontFallback(svg)
}

// fontFallback adds a generic family after the plot library's font
// names, for readers who have not installed them.
func fontFallback(svg []byte) []byte {
	svg = bytes.ReplaceAll(svg, []byte("font-family:Liberation Serif;"), []byte("font-family:'Liberation Serif',serif;"))
	svg = bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',sans-serif;"))
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Mono;"), []byte("font-family:'Liberation Mono',monospace;"))
}

// WriteDir writes summary.md, report.html and one SVG per figure to dir,
// and returns the paths it wrote.
func (rep *Report) WriteDir(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	figs, err := rep.Figures()
	if err != nil {
		return nil, err
	}
	var written []string
	write := func(name string, f func(w io.Writer) error) error {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			return err
		}
		path := filepath.Join(dir, name)
		written = append(written, path)
		return os.WriteFile(path, b.Bytes(), 0o644)
	}
	if err := write("summary.md", rep.WriteMarkdown); err != nil {
		return written, err
	}
	for _, f := range figs {
		svg := fontFallback(f.SVG)
		if err := write(f.Name, func(w io.Writer) error { _, err := w.Write(svg); return err }); err != nil {
			return written, err
		}
	}
	err = write("report.html", func(w io.Writer) error { return rep.WriteHTML(w, figs) })
	return written, err
}
