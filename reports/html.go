package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
)

// pageData is what the HTML template shows.
type pageData struct {
	Title, Intro string
	Meta         [][2]string
	Warnings     []string
	Comparison   *htmlTable
	Notes        []string
	Figures      []htmlFigure
	Tables       []*htmlTable
}

type htmlFigure struct {
	ID, Name, Title, Caption string
	SVG                      template.HTML
}

type htmlTable struct {
	ID, Title, Caption, Name string
	Header                   []string
	Rows                     [][]htmlCell
}

type htmlCell struct {
	Text string
	Num  bool
}

func toHTMLTable(t *NamedTable) *htmlTable {
	h := &htmlTable{ID: "table-" + t.Name, Title: t.Title, Caption: t.Caption, Name: t.Name, Header: t.Display.Header}
	for _, row := range t.Display.Rows {
		var cells []htmlCell
		for _, c := range row {
			cells = append(cells, htmlCell{Text: c, Num: numeric(c)})
		}
		h.Rows = append(h.Rows, cells)
	}
	return h
}

// inlineSVG strips the XML prologue of a figure's SVG so that it can be
// placed in HTML, and labels it for screen readers.
func inlineSVG(svg []byte, title string) template.HTML {
	s := string(svg)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	s = strings.Replace(s, "<svg", `<svg role="img" aria-label="`+template.HTMLEscapeString(title)+`"`, 1)
	return template.HTML(s)
}

// metaRows are the facts that make the runs reproducible.
func (r *Report) metaRows() [][2]string {
	var m [][2]string
	s := r.Set
	if s != nil {
		versions, backends, scenarios, sources := s.metadata()
		seeds := make([]string, len(s.Seeds))
		for i, sd := range s.Seeds {
			seeds[i] = fmt.Sprint(sd)
		}
		axes := "none (a single point)"
		if len(s.Axes) > 0 {
			axes = fmt.Sprintf("%s (%d points)", strings.Join(s.Axes, ", "), len(s.Points))
		}
		m = append(m,
			[2]string{"scenario", joinOr(scenarios, "-")},
			[2]string{"runs", fmt.Sprintf("%d (IDs in the table of runs: each is the content hash of its concrete scenario)", len(s.Runs))},
			[2]string{"policies", strings.Join(s.Policies, ", ")},
			[2]string{"seeds", strings.Join(seeds, ", ")},
			[2]string{"grid axes", axes},
			[2]string{"fairbench (runs)", joinOr(versions, "-")},
			[2]string{"solver backend", joinOr(backends, "-")},
			[2]string{"throughput source", joinOr(sources, "-")},
			[2]string{"results", strings.Join(s.Inputs, ", ")},
		)
	}
	if r.Options.Calibration != nil {
		m = append(m, [2]string{"calibration profile", r.Options.Calibration.Path})
	}
	if r.Options.Matrix != nil {
		m = append(m, [2]string{"property matrix", r.Options.Matrix.Path})
	}
	if r.Options.Version != "" {
		m = append(m, [2]string{"report written by", "fairbench " + r.Options.Version})
	}
	return m
}

func (r *Report) html(out []rendered) ([]byte, error) {
	d := pageData{Title: r.Options.Title, Intro: r.Options.Intro, Meta: r.metaRows(), Notes: r.Options.Notes}
	if r.Set != nil {
		d.Warnings = r.Set.Warnings
	}
	for i, f := range r.Figures {
		d.Figures = append(d.Figures, htmlFigure{ID: "fig-" + f.Name, Name: f.Name, Title: f.Title, Caption: f.Caption, SVG: inlineSVG(out[i].svg, f.Title)})
	}
	for _, t := range r.Tables {
		if t == r.Options.Comparison {
			d.Comparison = toHTMLTable(t)
			continue
		}
		d.Tables = append(d.Tables, toHTMLTable(t))
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("reports: html: %w", err)
	}
	return b.Bytes(), nil
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: "Liberation Serif", "Times New Roman", serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem; color: #111; line-height: 1.4; }
h1 { font-size: 1.7rem; margin-bottom: .3rem; }
h2 { font-size: 1.3rem; border-bottom: 1px solid #ccc; margin-top: 2.2rem; }
h3 { font-size: 1.05rem; margin: .2rem 0 .4rem; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: .15rem 1rem; font-size: .95rem; }
dl.meta dt { font-weight: bold; }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.warning { background: #fff4e0; border-left: 4px solid #e69f00; padding: .4rem .8rem; }
figure { margin: 1.5rem 0; padding: .5rem; border: 1px solid #e4e4e4; break-inside: avoid; }
figure svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
figcaption { font-size: .9rem; color: #333; margin-top: .4rem; }
figcaption a { margin-right: .5rem; }
.tablewrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0 1rem; }
th, td { border: 1px solid #d0d0d0; padding: .2rem .45rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
nav ul { columns: 2; font-size: .9rem; }
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
{{if .Intro}}<p>{{.Intro}}</p>{{end}}
<dl class="meta">
{{range .Meta}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>
{{end}}</dl>
{{range .Warnings}}<p class="warning">{{.}}</p>
{{end}}</header>
<main>
{{with .Comparison}}<section id="comparison">
<h2>{{.Title}}</h2>
<p>{{.Caption}}</p>
<div class="tablewrap"><table id="{{.ID}}">
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td{{if .Num}} class="num"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
</section>{{end}}
{{if .Notes}}<section id="notes">
<h2>Deviations and notes</h2>
<ul>{{range .Notes}}<li>{{.}}</li>
{{end}}</ul>
</section>{{end}}
{{if .Figures}}<section id="figures">
<h2>Figures</h2>
<nav><ul>{{range .Figures}}<li><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}</ul></nav>
{{range .Figures}}<figure id="{{.ID}}">
<h3>{{.Title}}</h3>
{{.SVG}}
<figcaption>{{.Caption}} Files: <a href="figures/{{.Name}}.svg">SVG</a><a href="figures/{{.Name}}.pdf">PDF</a><a href="figures/{{.Name}}.png">PNG</a><a href="figures/{{.Name}}.csv">data (CSV)</a></figcaption>
</figure>
{{end}}</section>{{end}}
{{range .Tables}}<section id="{{.ID}}-section">
<h2>{{.Title}}</h2>
<p>{{.Caption}} Files: <a href="tables/{{.Name}}.csv">CSV</a> <a href="tables/{{.Name}}.md">Markdown</a></p>
<div class="tablewrap"><table id="{{.ID}}">
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td{{if .Num}} class="num"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
</section>
{{end}}</main>
</body>
</html>
`))

// markdown is report.md: the metadata, the comparison and notes, each
// figure (linking its files) and each table.
func (r *Report) markdown() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Options.Title)
	if r.Options.Intro != "" {
		fmt.Fprintf(&b, "%s\n\n", r.Options.Intro)
	}
	for _, m := range r.metaRows() {
		fmt.Fprintf(&b, "- **%s**: %s\n", m[0], m[1])
	}
	b.WriteString("\n")
	if r.Set != nil {
		for _, w := range r.Set.Warnings {
			fmt.Fprintf(&b, "> **Warning**: %s\n\n", w)
		}
	}
	if c := r.Options.Comparison; c != nil {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n%s\n", c.Title, c.Caption, c.Display.Markdown())
	}
	if len(r.Options.Notes) > 0 {
		b.WriteString("## Deviations and notes\n\n")
		for _, n := range r.Options.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	if len(r.Figures) > 0 {
		b.WriteString("## Figures\n\n")
		for _, f := range r.Figures {
			fmt.Fprintf(&b, "### %s\n\n![%s](figures/%s.svg)\n\n%s Files: [SVG](figures/%s.svg) · [PDF](figures/%s.pdf) · [PNG](figures/%s.png) · [data](figures/%s.csv)\n\n",
				f.Title, f.Title, f.Name, f.Caption, f.Name, f.Name, f.Name, f.Name)
		}
	}
	for _, t := range r.Tables {
		if t == r.Options.Comparison {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n%s\n\n%s\n", t.Title, t.Caption, t.Display.Markdown())
	}
	return []byte(b.String())
}
