package texttable

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func render(t *testing.T, tb *Table, width int) (string, []string) {
	t.Helper()
	var b strings.Builder
	dropped, err := tb.Write(&b, width, "--wide")
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), dropped
}

// A table that fits is printed at its natural widths: "name" is 5 wide
// (alpha), "value" 5 (header), two spaces between.
func TestFits(t *testing.T) {
	t.Parallel()
	tb := New(Column{Header: "name"}, Column{Header: "value", Right: true})
	tb.Add("alpha", "1.5")
	tb.Add("b", "10.25")
	got, dropped := render(t, tb, 100)
	want := "name   value\n" +
		"alpha    1.5\n" +
		"b      10.25\n"
	if got != want || dropped != nil {
		t.Errorf("got\n%s(dropped %v), want\n%s", got, dropped, want)
	}
}

// Too wide: the wrapping column narrows to what is left (20 − 4 − 2 = 14
// columns) and its cell wraps at spaces.
func TestWraps(t *testing.T) {
	t.Parallel()
	tb := New(Column{Header: "name"}, Column{Header: "summary", Wrap: true, MinWidth: 8})
	tb.Add("fifo", "first in first out, whole cluster")
	got, _ := render(t, tb, 20)
	want := "name  summary\n" +
		"fifo  first in first\n" +
		"      out, whole\n" +
		"      cluster\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Headers break at spaces and hyphens, sitting on their last lines; the
// column is as wide as its widest piece ("incentive", 9).
func TestHeaderBreaks(t *testing.T) {
	t.Parallel()
	tb := New(Column{Header: "policy"}, Column{Header: "sharing-incentive"}, Column{Header: "envy free"})
	tb.Add("fifo", "ok", "FAIL")
	got, _ := render(t, tb, 24)
	// "envy free" breaks into "envy" / "free" (4 wide, as FAIL).
	want := "        sharing-   envy\n" +
		"policy  incentive  free\n" +
		"fifo    ok         FAIL\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Columns are left out highest Drop first and named in a last line.
func TestDrops(t *testing.T) {
	t.Parallel()
	tb := New(Column{Header: "policy"}, Column{Header: "a", Drop: 1}, Column{Header: "b", Drop: 2}, Column{Header: "c"})
	tb.Add("fifo", "111111", "222222", "333333")
	got, dropped := render(t, tb, 22)
	// policy(6) + a(6) + c(6) + 2 gaps of 2 = 22: only b goes.
	if len(dropped) != 1 || dropped[0] != "b" {
		t.Errorf("dropped %v, want [b]", dropped)
	}
	if !strings.HasPrefix(got, "policy  a       c\nfifo    111111  333333\n") || !strings.Contains(got, "--wide") {
		t.Errorf("got\n%s", got)
	}
	// Without a limit nothing goes.
	_, dropped = render(t, tb, 0)
	if dropped != nil {
		t.Errorf("width 0 dropped %v", dropped)
	}
}

// Headings are lines of their own; ρ and ± count one column each.
func TestHeadingAndWidth(t *testing.T) {
	t.Parallel()
	tb := New(Column{Header: "ρ", Right: true})
	tb.Heading("point 1")
	tb.Add("1.5 ± 0.2")
	got, _ := render(t, tb, 100)
	want := "        ρ\npoint 1\n1.5 ± 0.2\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if Width("ρ ± µ") != 5 {
		t.Errorf("Width(ρ ± µ) = %d", Width("ρ ± µ"))
	}
}

// Invariant on random tables: every line fits the width unless no column
// may be dropped and nothing wraps; no cell text is lost from kept
// columns (the words of each kept cell appear in order).
func TestRandomTablesFit(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "bb", "ccc", "dddd", "eeeee", "ffffff-gg", "ρ", "±", "0.125"}
	for n := 0; n < 300; n++ {
		ncol := 1 + rng.IntN(8)
		var cols []Column
		for c := 0; c < ncol; c++ {
			cols = append(cols, Column{Header: fmt.Sprintf("c%d%s", c, strings.Repeat("h", rng.IntN(12))), Wrap: c > 0 && rng.IntN(2) == 0,
				MinWidth: 4 + rng.IntN(8), Drop: rng.IntN(3) * min(c, 1), Right: rng.IntN(2) == 0})
		}
		tb := New(cols...)
		for r := 0; r < 1+rng.IntN(5); r++ {
			cells := make([]string, ncol)
			for c := range cells {
				var ws []string
				for k := 0; k < 1+rng.IntN(6); k++ {
					ws = append(ws, words[rng.IntN(len(words))])
				}
				cells[c] = strings.Join(ws, " ")
			}
			tb.Add(cells...)
		}
		width := 20 + rng.IntN(80)
		got, dropped := render(t, tb, width)
		// Can it fit at all? Only if the never-dropped, non-wrapping
		// columns fit at their unbreakable widths.
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		over := false
		for _, l := range lines {
			if Width(l) > width {
				over = true
			}
		}
		if over {
			// Every droppable column must then be gone.
			for _, c := range cols {
				if c.Drop > 0 && !contains(dropped, c.Header) {
					for _, l := range lines {
						t.Logf("%3d %q", Width(l), l)
					}
					t.Fatalf("table %d: a line exceeds %d columns but %q (drop %d) was kept:\n%s", n, width, c.Header, c.Drop, got)
				}
			}
		}
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func TestWrapLongWord(t *testing.T) {
	t.Parallel()
	got := Wrap("abcdefghij k", 4)
	want := []string{"abcd", "efgh", "ij k"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
}
