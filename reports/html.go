package reports

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"regexp"
	"strings"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
)

// pageData is what the HTML template shows.
type pageData struct {
	FontFace     template.CSS
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
	Text, Class, Href string
	Best              bool
}

// mdLink matches a cell that is one Markdown link, [text](href).
var mdLink = regexp.MustCompile(`^\[([^\]]*)\]\(([^)]*)\)$`)

func toHTMLTable(t *NamedTable) *htmlTable {
	h := &htmlTable{ID: "table-" + t.Name, Title: t.Title, Caption: t.Caption, Name: t.Name, Header: t.Display.Header}
	for i, row := range t.Display.Rows {
		var cells []htmlCell
		for j, c := range row {
			best := i < len(t.Best) && j < len(t.Best[i]) && t.Best[i][j]
			var class []string
			if numeric(c) {
				class = append(class, "num")
			}
			if strings.Contains(c, " ± ") {
				class = append(class, "pm")
			}
			if best {
				class = append(class, "best")
			}
			href := ""
			if m := mdLink.FindStringSubmatch(c); m != nil {
				c, href = m[1], m[2]
			}
			// "12.5 ± 0.3" may wrap before the ± only.
			cells = append(cells, htmlCell{Text: strings.ReplaceAll(c, " ± ", " ±\u00a0"), Class: strings.Join(class, " "), Href: href, Best: best})
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

// figureFontFace is the CSS that makes the inline figures' text use the
// very font their layout was measured with (Liberation Sans, embedded),
// whatever fonts the reader's machine has.
func figureFontFace() template.CSS {
	return template.CSS("@font-face { font-family: 'fairbench-figures'; src: url(data:font/ttf;base64," +
		base64.StdEncoding.EncodeToString(liberationsansregular.TTF) + ") format('truetype'); }\n" +
		"figure svg text { font-family: 'fairbench-figures', " + SVGFontStack + " !important; }")
}

func (r *Report) html(out []rendered) ([]byte, error) {
	d := pageData{Title: r.Options.Title, Intro: r.Options.Intro, Meta: r.metaRows(), Notes: r.Options.Notes, FontFace: figureFontFace()}
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
{{.FontFace}}
body { font-family: "Liberation Sans", Arimo, Arial, Helvetica, sans-serif; max-width: 72rem; margin: 1.5rem auto; padding: 0 1rem; color: #111; line-height: 1.4; background: #fafafa; }
h1 { font-size: 1.6rem; margin-bottom: .3rem; }
h2 { font-size: 1.25rem; margin: .2rem 0 .6rem; }
h3 { font-size: 1.05rem; margin: .2rem 0 .4rem; }
.card { background: #fff; border: 1px solid #dcdcdc; border-radius: 4px; padding: .8rem 1rem; margin: 1rem 0; box-sizing: border-box; max-width: 100%; }
dl.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15rem 1rem; font-size: .92rem; }
dl.meta dt { font-weight: bold; }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.warning { background: #fff4e0; border-left: 4px solid #e69f00; padding: .4rem .8rem; }
figure.card { margin: 1rem 0; break-inside: avoid; }
figure svg { display: block; width: 100%; height: auto; }
figcaption { font-size: .9rem; color: #333; margin-top: .4rem; }
figcaption a { margin-right: .5rem; }
.tablewrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: .75rem; margin: .5rem 0; width: 100%; }
th, td { border: 1px solid #d0d0d0; padding: .15rem .25rem; text-align: left; vertical-align: top; }
td { overflow-wrap: anywhere; }
td:first-child, th { overflow-wrap: normal; }
th { background: #f0f0f0; font-weight: 600; hyphens: manual; }
td.num { text-align: right; font-variant-numeric: tabular-nums; overflow-wrap: normal; white-space: nowrap; }
td.num.pm { white-space: normal; }
td.best { font-weight: bold; background: #e2f2e6; }
nav ul { columns: 2; font-size: .9rem; }
p.key { font-size: .85rem; color: #333; }
@media print {
  @page { size: A4 landscape; margin: 10mm; }
  body { background: #fff; max-width: none; margin: 0; padding: 0; }
  .card { border: none; padding: 0; margin: .6rem 0; }
  nav { display: none; }
  .tablewrap { overflow: visible; }
  table { font-size: 6.5pt; width: 100%; }
  thead { display: table-header-group; }
  tr, figure { break-inside: avoid; }
  figure svg { max-height: 17cm; }
}
</style>
</head>
<body>
<header class="card">
<h1>{{.Title}}</h1>
{{if .Intro}}<p>{{.Intro}}</p>{{end}}
<dl class="meta">
{{range .Meta}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>
{{end}}</dl>
{{range .Warnings}}<p class="warning">{{.}}</p>
{{end}}</header>
<main>
{{with .Comparison}}<section id="comparison" class="card">
<h2>{{.Title}}</h2>
<p>{{.Caption}}</p>
{{template "table" .}}
</section>{{end}}
{{if .Notes}}<section id="notes" class="card">
<h2>Deviations and notes</h2>
<ul>{{range .Notes}}<li>{{.}}</li>
{{end}}</ul>
</section>{{end}}
{{if .Figures}}<section id="figures">
<nav class="card"><h2>Figures</h2><ul>{{range .Figures}}<li><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}</ul></nav>
{{range .Figures}}<figure id="{{.ID}}" class="card">
{{.SVG}}
<figcaption>{{.Caption}} Files: <a href="figures/{{.Name}}.svg">SVG</a><a href="figures/{{.Name}}.pdf">PDF</a><a href="figures/{{.Name}}.png">PNG</a><a href="figures/{{.Name}}.csv">data (CSV)</a></figcaption>
</figure>
{{end}}</section>{{end}}
{{range .Tables}}<section id="{{.ID}}-section" class="card">
<h2>{{.Title}}</h2>
<p>{{.Caption}} Files: <a href="tables/{{.Name}}.csv">CSV</a> <a href="tables/{{.Name}}.md">Markdown</a></p>
{{template "table" .}}
</section>
{{end}}</main>
</body>
</html>
{{define "table"}}<div class="tablewrap"><table id="{{.ID}}">
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td{{with .Class}} class="{{.}}"{{end}}{{if .Best}} title="best in this column"{{end}}>{{if .Href}}<a href="{{.Href}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</tbody></table></div>{{end}}
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
		fmt.Fprintf(&b, "## %s\n\n%s\n\n%s\n", c.Title, c.Caption, c.Markdown())
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
		fmt.Fprintf(&b, "## %s\n\n%s\n\n%s\n", t.Title, t.Caption, t.Markdown())
	}
	return []byte(b.String())
}
