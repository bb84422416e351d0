package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"fairbench/check"
	"fairbench/internal/texttable"
)

// printMatrix prints a property matrix fitted to width columns (0: no
// limit): a row per policy, a column per property, each cell "holds",
// "FAIL" (a claimed property violated), "fail" (violated but not claimed:
// information) or "error", with * on the properties the policy claims.
// When the property names do not fit as headers they are abbreviated
// (sharing-incentive → SI) and a key follows. The counterexample files of
// claimed properties are listed after the table, the others counted.
func printMatrix(w io.Writer, m *check.Matrix, width int) error {
	full := matrixTable(m, nil)
	t, key := full, []string(nil)
	if !full.Fits(width) {
		abbr := abbreviations(m.Properties)
		t = matrixTable(m, abbr)
		for _, p := range m.Properties {
			if a := abbr[p.Name]; a != p.Name {
				key = append(key, a+" "+p.Name)
			}
		}
	}
	if _, err := t.Write(w, width, "--wide"); err != nil {
		return err
	}
	var notes []string
	if len(key) > 0 {
		notes = append(notes, "Properties: "+strings.Join(key, ", ")+".")
	}
	notes = append(notes, fmt.Sprintf("* claimed by the policy (feasible: by every policy); FAIL = a claimed property violated under its conditions, fail = violated but not claimed (information); A/B = A under the claim's conditions, B without them. holds = no counterexample within %s and %d random instances (seed %d); temporal properties on seeded workloads.",
		m.Bound, m.Cases, m.Seed))
	fmt.Fprintln(w)
	for _, n := range notes {
		for _, l := range texttable.Wrap(n, width) {
			fmt.Fprintln(w, l)
		}
	}
	// The counterexamples of claimed properties; the others are counted
	// (the matrix files list them all).
	others, dir := 0, ""
	for _, row := range m.Policies {
		for _, res := range row.Results {
			if res.Counterexample == "" {
				continue
			}
			if !res.Claimed {
				others++
				dir = filepath.Dir(res.Counterexample)
				continue
			}
			line := fmt.Sprintf("%s %s: %s", row.Policy, res.Property, res.Counterexample)
			if width > 0 && texttable.Width(line) > width {
				line = fmt.Sprintf("%s %s:\n  %s", row.Policy, res.Property, res.Counterexample)
			}
			fmt.Fprintln(w, line)
		}
	}
	if others > 0 {
		for _, l := range texttable.Wrap(fmt.Sprintf("%d counterexamples of properties the policies do not claim are in %s (check-matrix.csv names each).", others, dir), width) {
			fmt.Fprintln(w, l)
		}
	}
	return nil
}

// matrixTable is the matrix as a table, properties headed by their names,
// or by abbr[name] when abbr is given.
func matrixTable(m *check.Matrix, abbr map[string]string) *texttable.Table {
	cols := []texttable.Column{{Header: "policy"}}
	for _, p := range m.Properties {
		h := p.Name
		if abbr != nil {
			h = abbr[p.Name]
		}
		cols = append(cols, texttable.Column{Header: h})
	}
	t := texttable.New(cols...)
	for _, row := range m.Policies {
		cells := []string{row.Policy}
		for _, p := range m.Properties {
			cells = append(cells, matrixCell(row, p.Name))
		}
		t.Add(cells...)
	}
	return t
}

func matrixCell(row check.MatrixRow, property string) string {
	for _, res := range row.Results {
		if res.Property != property {
			continue
		}
		var s string
		switch {
		case res.Status == check.Violated && res.Claimed:
			s = "FAIL"
		case res.Status == check.Violated:
			s = "fail"
		default:
			s = string(res.Status)
		}
		if res.Unconditional != nil {
			// A claim checked under its conditions: the verdict without them.
			s += "/" + string(res.Unconditional.Status)
		}
		if res.Claimed {
			s += "*"
		}
		return s
	}
	return "–"
}

// abbreviations shortens property names for column headers: one word of
// up to 8 letters stays, others become the initials of their hyphenated
// words, upper case (sharing-incentive → SI, long-term-fairness → LTF);
// a clash gets a number.
func abbreviations(props []check.PropertyInfo) map[string]string {
	out := map[string]string{}
	used := map[string]int{}
	for _, p := range props {
		a := p.Name
		words := strings.FieldsFunc(p.Name, func(r rune) bool { return r == '-' || r == '_' || r == ' ' })
		if len(words) > 1 || len(a) > 8 {
			var b strings.Builder
			for _, w := range words {
				b.WriteString(strings.ToUpper(w[:1]))
			}
			a = b.String()
		}
		used[a]++
		if used[a] > 1 {
			a = fmt.Sprintf("%s%d", a, used[a])
		}
		out[p.Name] = a
	}
	return out
}
