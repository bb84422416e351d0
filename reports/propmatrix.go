package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"fairbench/internal/atomicfile"
	"fairbench/internal/input"
)

// PropertyMatrixFormat names the property-matrix file format.
const PropertyMatrixFormat = "fairbench-property-matrix/1"

// PropertyMatrix is the property matrix beside each policy's efficiency:
// which property each policy keeps (`fairbench check --matrix`), the
// counterexample of each violation, and the throughput and mean JCT of the
// same policy on one scenario — the efficiency cost of each guarantee. It
// is the data of README.md's table and of the HTML report's, written by
// `fairbench report --matrix FILE --matrix-doc DIR` (docs/property-matrix.md
// says how it is regenerated).
type PropertyMatrix struct {
	Format string `json:"format"`
	// Scenario says where the efficiency figures come from.
	Scenario   string        `json:"scenario"`
	Properties []string      `json:"properties"`
	Policies   []PropertyRow `json:"policies"`
}

// PropertyRow is one policy: a cell per property (in Properties' order)
// and its efficiency (0 when it did not run on the scenario).
type PropertyRow struct {
	Policy string         `json:"policy"`
	Cells  []PropertyCell `json:"cells"`
	// Runs is how many runs (seeds) the figures average.
	Runs int `json:"runs"`
	// Throughput is jobs finished per hour of makespan; MeanJCT in hours.
	Throughput float64 `json:"throughput_jobs_per_h"`
	MeanJCT    float64 `json:"mean_jct_h"`
}

// PropertyCell is one verdict: Result as in MatrixRow, whether the policy
// claims the property, and the counterexample file of a violation
// (relative to the folder of the matrix file).
type PropertyCell struct {
	Result         string `json:"result"`
	Claimed        bool   `json:"claimed,omitempty"`
	Counterexample string `json:"counterexample,omitempty"`
}

// NewPropertyMatrix joins a property matrix with the runs of s (nil: no
// efficiency figures), policies in the matrix's order. Counterexample
// paths are kept as the matrix names them until Write copies the files.
func NewPropertyMatrix(m *Matrix, s *Set) *PropertyMatrix {
	pm := &PropertyMatrix{Format: PropertyMatrixFormat}
	var pols []string
	for _, r := range m.Rows {
		if !slices.Contains(pols, r.Policy) {
			pols = append(pols, r.Policy)
		}
		if !slices.Contains(pm.Properties, r.Property) {
			pm.Properties = append(pm.Properties, r.Property)
		}
	}
	for _, p := range pols {
		row := PropertyRow{Policy: p, Cells: make([]PropertyCell, len(pm.Properties))}
		for i := range row.Cells {
			row.Cells[i].Result = ResultSkip
		}
		for _, r := range m.Rows {
			if r.Policy == p {
				row.Cells[slices.Index(pm.Properties, r.Property)] = PropertyCell{Result: r.Result, Claimed: r.Claimed == "true", Counterexample: r.Counterexample}
			}
		}
		pm.Policies = append(pm.Policies, row)
	}
	if s != nil {
		pm.Scenario = s.scenarioNote()
		for i := range pm.Policies {
			row := &pm.Policies[i]
			for _, r := range s.Runs {
				res := r.Record.Result
				if r.Record.Policy != row.Policy || res == nil || res.Summary.Makespan <= 0 {
					continue
				}
				row.Runs++
				row.Throughput += float64(res.Summary.Jobs) / (res.Summary.Makespan / 3600)
				row.MeanJCT += res.Summary.MeanJCT / 3600
			}
			if row.Runs > 0 {
				row.Throughput /= float64(row.Runs)
				row.MeanJCT /= float64(row.Runs)
			}
		}
	}
	return pm
}

// propertyAbbr are the column heads of the Markdown table.
var propertyAbbr = map[string]string{
	"feasible": "feasible", "sharing-incentive": "SI", "envy-free": "EF", "pareto-efficient": "PE",
	"strategy-proof": "SP", "long-term-fairness": "LTF", "regret": "regret", "starvation-bound": "starvation",
	"share-convergence": "shares",
}

// Markdown is the matrix as a Markdown table with a key; counterexample
// links are prefixed with prefix (the folder of the matrix file as seen
// from the Markdown file, e.g. "docs/" for README.md).
func (pm *PropertyMatrix) Markdown(prefix string) string {
	var b strings.Builder
	b.WriteString("| policy |")
	for _, p := range pm.Properties {
		h := propertyAbbr[p]
		if h == "" {
			h = p
		}
		b.WriteString(" " + h + " |")
	}
	b.WriteString(" throughput (jobs/h) | mean JCT (h) |\n|---|")
	for range pm.Properties {
		b.WriteString(":-:|")
	}
	b.WriteString("--:|--:|\n")
	for _, row := range pm.Policies {
		b.WriteString("| `" + row.Policy + "` |")
		for _, c := range row.Cells {
			b.WriteString(" " + c.markdown(prefix) + " |")
		}
		if row.Runs > 0 {
			fmt.Fprintf(&b, " %.3f | %.2f |\n", row.Throughput, row.MeanJCT)
		} else {
			b.WriteString(" – | – |\n")
		}
	}
	var key []string
	for _, p := range pm.Properties {
		if a := propertyAbbr[p]; a != "" && a != p {
			key = append(key, a+" = "+p)
		}
	}
	fmt.Fprintf(&b, "\nholds = no counterexample found; **FAIL** = a property the policy claims violated under the claim's conditions; fail = violated, not claimed; * = claimed; – = not checked; ! = error. Each failure links its counterexample (`fairbench check --replay FILE`). %s. Efficiency: %s; throughput is jobs finished per hour of makespan.\n",
		strings.Join(key, ", "), pm.Scenario)
	return b.String()
}

func (c PropertyCell) markdown(prefix string) string {
	text := map[string]string{ResultPass: "holds", ResultFail: "fail", ResultSkip: "–", ResultError: "!"}[c.Result]
	if c.Result == ResultFail && c.Claimed {
		text = "**FAIL**"
	}
	if c.Claimed {
		text += "*"
	}
	if c.Counterexample != "" {
		text = "[" + text + "](" + prefix + c.Counterexample + ")"
	}
	return text
}

// Table is the matrix with the efficiency columns, for the HTML report.
func (pm *PropertyMatrix) Table() *Table {
	t := &Table{Header: append(append([]string{"policy"}, pm.Properties...), "throughput (jobs/h)", "mean JCT (h)")}
	for _, row := range pm.Policies {
		r := []string{row.Policy}
		for _, c := range row.Cells {
			r = append(r, strings.ReplaceAll(c.markdown(""), "**", ""))
		}
		if row.Runs > 0 {
			r = append(r, fmt.Sprintf("%.3f", row.Throughput), fmt.Sprintf("%.2f", row.MeanJCT))
		} else {
			r = append(r, "", "")
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// Write writes dir/property-matrix.json and dir/property-matrix.md, and
// copies every counterexample file into dir/counterexamples/ as
// POLICY-PROPERTY.json (the cells then name those copies). An earlier
// copy of that folder is replaced.
func (pm *PropertyMatrix) Write(dir string) error {
	ce := filepath.Join(dir, "counterexamples")
	tmp, err := atomicfile.TempDir(ce)
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	for i := range pm.Policies {
		row := &pm.Policies[i]
		for j := range row.Cells {
			c := &row.Cells[j]
			if c.Counterexample == "" {
				continue
			}
			b, err := input.ReadFile(c.Counterexample, input.MaxTableBytes)
			if err == nil {
				name := row.Policy + "-" + pm.Properties[j] + ".json"
				err = os.WriteFile(filepath.Join(tmp, name), b, 0o644)
				c.Counterexample = "counterexamples/" + name
			}
			if err != nil {
				atomicfile.Discard(tmp)
				return fmt.Errorf("reports: counterexample of %s × %s: %w", row.Policy, pm.Properties[j], err)
			}
		}
	}
	if err := atomicfile.Replace(tmp, ce); err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	js, err := json.MarshalIndent(pm, "", " ")
	if err != nil {
		return fmt.Errorf("reports: %w", err)
	}
	return atomicfile.WriteAll(
		atomicfile.File{Path: filepath.Join(dir, "property-matrix.json"), Data: append(js, '\n')},
		atomicfile.File{Path: filepath.Join(dir, "property-matrix.md"), Data: []byte(PropertyMatrixPage(pm))})
}

// PropertyMatrixPage is docs/property-matrix.md: a title, how to
// regenerate, and the table.
func PropertyMatrixPage(pm *PropertyMatrix) string {
	return "# Property matrix\n\n" +
		"Generated by `make property-matrix` (do not edit): `fairbench check --matrix` for the verdicts,\n" +
		"`fairbench simulate` on the default scenario for the efficiency, joined by\n" +
		"`fairbench report --matrix FILE --matrix-doc docs --readme README.md`. `go test ./reports -run\n" +
		"TestPropertyMatrixDocs` checks that this page and README.md's table are what the data gives.\n\n" +
		pm.Markdown("")
}

// ReadPropertyMatrix reads a property-matrix.json.
func ReadPropertyMatrix(path string) (*PropertyMatrix, error) {
	b, err := input.ReadFile(path, input.MaxTableBytes)
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	pm := &PropertyMatrix{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(pm); err != nil {
		return nil, fmt.Errorf("reports: %s: %w", path, err)
	}
	if pm.Format != PropertyMatrixFormat {
		return nil, fmt.Errorf("reports: %s: format %q, want %q", path, pm.Format, PropertyMatrixFormat)
	}
	for _, row := range pm.Policies {
		if len(row.Cells) != len(pm.Properties) {
			return nil, fmt.Errorf("reports: %s: policy %s has %d cells for %d properties", path, row.Policy, len(row.Cells), len(pm.Properties))
		}
	}
	return pm, nil
}

// Markers of the generated block in README.md.
const (
	MatrixBegin = "<!-- property-matrix: generated by make property-matrix; do not edit -->\n"
	MatrixEnd   = "<!-- property-matrix: end -->\n"
)

// SpliceMatrix replaces the text between the markers in doc with block.
func SpliceMatrix(doc []byte, block string) ([]byte, error) {
	i := bytes.Index(doc, []byte(MatrixBegin))
	j := bytes.Index(doc, []byte(MatrixEnd))
	if i < 0 || j < i {
		return nil, fmt.Errorf("reports: no %q … %q block", strings.TrimSpace(MatrixBegin), strings.TrimSpace(MatrixEnd))
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(MatrixBegin)])
	out.WriteString(block)
	out.Write(doc[j:])
	return out.Bytes(), nil
}

// MatrixBlock is the text between the markers in doc.
func MatrixBlock(doc []byte) (string, error) {
	i := bytes.Index(doc, []byte(MatrixBegin))
	j := bytes.Index(doc, []byte(MatrixEnd))
	if i < 0 || j < i {
		return "", fmt.Errorf("reports: no %q … %q block", strings.TrimSpace(MatrixBegin), strings.TrimSpace(MatrixEnd))
	}
	return string(doc[i+len(MatrixBegin) : j]), nil
}
