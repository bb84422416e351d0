// Package texttable prints tables for a terminal, fitted to a width: long
// text columns wrap, headers break at spaces and hyphens, and columns that
// do not fit are left out (and named) when even that is not enough.
// Widths are display widths (ρ and ± take one column, wide CJK runes two).
package texttable

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/rivo/uniseg"
)

// DefaultWidth is the width the CLI fits its tables to unless asked for
// every column (--wide).
const DefaultWidth = 100

// Column describes one column of a table.
type Column struct {
	Header string
	// Right aligns the column's cells to the right (numbers).
	Right bool
	// Wrap lets the column's cells wrap at spaces to fit the width; it is
	// narrowed to no less than MinWidth (default 16).
	Wrap     bool
	MinWidth int
	// Drop orders the columns that may be left out when the table is
	// still too wide with every text column wrapped: the highest first
	// (rightmost first among equals). 0 is never left out.
	Drop int
}

// Table is a table under construction: columns, then rows and group
// headings in order.
type Table struct {
	Columns []Column
	// Gap is the number of spaces between columns (default 2).
	Gap int
	// Indent is the number of spaces before every line (default 0).
	Indent int
	rows   []row
}

type row struct {
	cells   []string
	heading string // a group heading: one line across the table
}

// New is a table with these columns.
func New(cols ...Column) *Table { return &Table{Columns: cols, Gap: 2} }

// Add appends a row; missing cells are empty, extra cells are ignored.
func (t *Table) Add(cells ...string) {
	c := make([]string, len(t.Columns))
	copy(c, cells)
	t.rows = append(t.rows, row{cells: c})
}

// Heading appends a line that introduces the rows after it (a group of
// rows, e.g. one grid point).
func (t *Table) Heading(text string) { t.rows = append(t.rows, row{heading: text}) }

// Rows is the number of rows added (headings not counted).
func (t *Table) Rows() int {
	n := 0
	for _, r := range t.rows {
		if r.heading == "" {
			n++
		}
	}
	return n
}

// Fits reports whether the table, every column kept, fits width columns
// (headers broken and text wrapped as Write would).
func (t *Table) Fits(width int) bool {
	if width <= 0 {
		return true
	}
	keep := make([]int, len(t.Columns))
	for i := range keep {
		keep[i] = i
	}
	widths, _ := t.fit(keep, width)
	return t.total(widths) <= width
}

// Width is s's display width.
func Width(s string) int { return uniseg.StringWidth(s) }

// Write prints the table fitted to width columns (0 or less: no limit).
// When columns had to be left out, a last line names them and says that
// wide shows them (e.g. "--wide"); it returns the names left out.
func (t *Table) Write(w io.Writer, width int, wide string) ([]string, error) {
	keep := make([]int, len(t.Columns))
	for i := range keep {
		keep[i] = i
	}
	widths, headers := t.fit(keep, width)
	var dropped []string
	for width > 0 && t.total(widths) > width {
		i := t.dropOne(keep)
		if i < 0 {
			break
		}
		keep = slices.Delete(keep, i, i+1)
		widths, headers = t.fit(keep, width)
	}
	var b strings.Builder
	t.writeRow(&b, keep, widths, headers, true)
	for _, r := range t.rows {
		if r.heading != "" {
			for _, l := range Wrap(r.heading, t.lineWidth(width)) {
				b.WriteString(strings.Repeat(" ", t.Indent) + l + "\n")
			}
			continue
		}
		cells := make([]string, len(keep))
		for k, c := range keep {
			cells[k] = r.cells[c]
		}
		t.writeRow(&b, keep, widths, cells, false)
	}
	for c := range t.Columns {
		if !slices.Contains(keep, c) {
			dropped = append(dropped, t.Columns[c].Header)
		}
	}
	if len(dropped) > 0 {
		note := fmt.Sprintf("(%s left out to fit %d columns; %s shows every column)", strings.Join(quoteAll(dropped), ", "), width, wide)
		for _, l := range Wrap(note, t.lineWidth(width)) {
			b.WriteString(strings.Repeat(" ", t.Indent) + l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return dropped, err
}

func (t *Table) lineWidth(width int) int {
	if width <= 0 {
		return 0
	}
	return max(20, width-t.Indent)
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strings.Join(strings.Fields(x), " ")
	}
	return out
}

func (t *Table) gap() int {
	if t.Gap <= 0 {
		return 2
	}
	return t.Gap
}

// total is the line width of columns this wide.
func (t *Table) total(widths []int) int {
	n := t.Indent
	for i, w := range widths {
		if i > 0 {
			n += t.gap()
		}
		n += w
	}
	return n
}

// fit chooses the widths of the kept columns: their natural widths; then,
// while too wide, wrapping columns narrowed, widest first, down to their
// minimum (and no narrower than their header's longest word); then
// headers broken into lines, those that gain most first.
func (t *Table) fit(keep []int, width int) ([]int, []string) {
	widths := make([]int, len(keep))
	headers := make([]string, len(keep))
	cellMax := make([]int, len(keep))
	for k, c := range keep {
		for _, r := range t.rows {
			if r.heading == "" {
				for _, l := range strings.Split(r.cells[c], "\n") {
					cellMax[k] = max(cellMax[k], Width(l))
				}
			}
		}
		headers[k] = t.Columns[c].Header
		widths[k] = max(cellMax[k], Width(headers[k]))
	}
	if width <= 0 || t.total(widths) <= width {
		return widths, headers
	}
	for t.total(widths) > width {
		best := -1
		for k, c := range keep {
			col := t.Columns[c]
			if col.Wrap && widths[k] > col.minWidth() && widths[k] > longestPiece(col.Header) && (best < 0 || widths[k] > widths[best]) {
				best = k
			}
		}
		if best < 0 {
			break
		}
		widths[best]--
		headers[best] = strings.Join(breakHeader(t.Columns[keep[best]].Header, widths[best]), "\n")
	}
	// Break the headers that save the most first, until the table fits.
	byGain := make([]int, len(keep))
	for k := range byGain {
		byGain[k] = k
	}
	narrow := func(k int) int { return max(cellMax[k], longestPiece(t.Columns[keep[k]].Header)) }
	sort.SliceStable(byGain, func(i, j int) bool {
		return widths[byGain[i]]-narrow(byGain[i]) > widths[byGain[j]]-narrow(byGain[j])
	})
	for _, k := range byGain {
		if t.total(widths) <= width || widths[k] == narrow(k) {
			break
		}
		widths[k] = narrow(k)
		headers[k] = strings.Join(breakHeader(t.Columns[keep[k]].Header, widths[k]), "\n")
	}
	return widths, headers
}

func (c Column) minWidth() int {
	if c.MinWidth > 0 {
		return c.MinWidth
	}
	return 16
}

// dropOne picks the kept column to leave out: the highest Drop, the
// rightmost among equals; -1 when none may go.
func (t *Table) dropOne(keep []int) int {
	best := -1
	for k, c := range keep {
		if d := t.Columns[c].Drop; d > 0 && (best < 0 || d >= t.Columns[keep[best]].Drop) {
			best = k
		}
	}
	return best
}

// writeRow writes one row (possibly several lines: wrapped cells, broken
// headers), trailing spaces trimmed.
func (t *Table) writeRow(b *strings.Builder, keep, widths []int, cells []string, header bool) {
	lines := make([][]string, len(keep))
	n := 1
	for k := range keep {
		if header {
			lines[k] = strings.Split(cells[k], "\n")
		} else {
			lines[k] = Wrap(cells[k], widths[k])
		}
		n = max(n, len(lines[k]))
	}
	for i := 0; i < n; i++ {
		var l strings.Builder
		l.WriteString(strings.Repeat(" ", t.Indent))
		for k, c := range keep {
			if k > 0 {
				l.WriteString(strings.Repeat(" ", t.gap()))
			}
			// Headers sit on their last lines, above the cells.
			j := i
			if header {
				j = i - (n - len(lines[k]))
			}
			s := ""
			if j >= 0 && j < len(lines[k]) {
				s = lines[k][j]
			}
			pad := strings.Repeat(" ", max(0, widths[k]-Width(s)))
			if t.Columns[c].Right {
				l.WriteString(pad + s)
			} else {
				l.WriteString(s + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
}

// Wrap breaks s into lines of at most width display columns at spaces
// (a word longer than a line is cut); explicit newlines are kept. Width 0
// or less leaves each line whole.
func Wrap(s string, width int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if width <= 0 || Width(para) <= width {
			out = append(out, para)
			continue
		}
		line := ""
		for _, word := range strings.Fields(para) {
			for Width(word) > width { // cut an overlong word
				if line != "" {
					out = append(out, line)
					line = ""
				}
				head, rest := cut(word, width)
				out = append(out, head)
				word = rest
			}
			switch {
			case line == "":
				line = word
			case Width(line)+1+Width(word) <= width:
				line += " " + word
			default:
				out = append(out, line)
				line = word
			}
		}
		out = append(out, line)
	}
	return out
}

// cut splits s after at most width display columns (at least one rune).
func cut(s string, width int) (string, string) {
	g := uniseg.NewGraphemes(s)
	n, end := 0, 0
	for g.Next() {
		w := g.Width()
		if n+w > width && end > 0 {
			break
		}
		n += w
		_, end = g.Positions()
	}
	return s[:end], s[end:]
}

// breakHeader breaks a header at spaces, and after hyphens, into lines of
// at most width columns where it can.
func breakHeader(h string, width int) []string {
	if Width(h) <= width {
		return []string{h}
	}
	var lines []string
	line := ""
	for _, p := range headerPieces(h) {
		switch {
		case line == "":
			line = p
		case Width(line)+Width(p) <= width:
			line += p
		default:
			lines = append(lines, strings.TrimRight(line, " "))
			line = strings.TrimLeft(p, " ")
		}
	}
	return append(lines, strings.TrimRight(line, " "))
}

// headerPieces splits a header into the pieces a line may break after:
// words with their following space, and parts ending in a hyphen.
func headerPieces(h string) []string {
	var out []string
	start := 0
	for i, r := range h {
		if r == ' ' || r == '-' {
			out = append(out, h[start:i+1])
			start = i + 1
		}
	}
	if start < len(h) {
		out = append(out, h[start:])
	}
	return out
}

// longestPiece is the width of the widest unbreakable part of a header.
func longestPiece(h string) int {
	n := 0
	for _, p := range headerPieces(h) {
		n = max(n, Width(strings.TrimRight(p, " ")))
	}
	return n
}
