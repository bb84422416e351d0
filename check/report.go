package check

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"fairbench/solvers"
)

// PrintReport writes a report as a table: one line per property with its
// status, whether the policy claims it, how it was checked, and the
// counterexample or measurement.
func PrintReport(w io.Writer, r *Report) {
	fmt.Fprintf(w, "policy %s — claims: %s\n", r.Policy, claimList(r.Claims))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "property\tclaimed\tstatus\tchecked\tseconds")
	for _, res := range r.Results {
		claimed := ""
		if res.Claimed {
			claimed = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f\n", res.Property, claimed, statusWord(res), checkedWord(res), res.Seconds)
	}
	tw.Flush()
	for _, res := range r.Results {
		if res.Status == Holds && res.Reason == "" {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s): %s\n", res.Property, res.Status, res.Reason)
		switch {
		case res.Counterexample != "" && res.Status == Errored:
			fmt.Fprintf(w, "  instance the policy failed on: %s\n", res.Counterexample)
		case res.Counterexample != "":
			fmt.Fprintf(w, "  counterexample: %s (replay: fairbench check --replay %s)\n", res.Counterexample, res.Counterexample)
		}
		if res.Relaxed > 0 {
			fmt.Fprintf(w, "  not judged: %d instances with gangs above one GPU (realised mode)\n", res.Relaxed)
		}
		if res.Status != Holds {
			fmt.Fprintf(w, "  property: %s\n  checked: %s\n", res.Formula, res.Method)
		}
	}
}

func claimList(c []string) string {
	if len(c) == 0 {
		return "feasible (implicit) only"
	}
	return "feasible (implicit), " + strings.Join(c, ", ")
}

// statusWord is the status, upper case for a violated claim.
func statusWord(res Result) string {
	if res.Status == Violated && res.Claimed {
		return "VIOLATED"
	}
	return string(res.Status)
}

func checkedWord(res Result) string {
	switch {
	case res.Kind == "temporal":
		return fmt.Sprintf("%d workloads", res.Workloads)
	case res.Method == "replay":
		return "replay"
	}
	s := fmt.Sprintf("%d exhaustive + %d random", res.Exhaustive, res.Random)
	if res.Relaxed > 0 {
		s += fmt.Sprintf(" (%d not judged)", res.Relaxed)
	}
	return s
}

// JUnit XML, as CI systems read it.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// JUnit renders reports as JUnit XML: one test suite per policy, one test
// case per property. A violated claim is a failure, a policy failure an
// error, and a property the policy does not claim is skipped (its outcome,
// violations included, in the message: information, not a failure).
func JUnit(reps ...*Report) ([]byte, error) {
	var out junitSuites
	for _, r := range reps {
		s := junitSuite{Name: "fairbench check " + r.Policy}
		total := 0.0
		for _, res := range r.Results {
			c := junitCase{Name: res.Property, ClassName: "fairbench.check." + fileStem(r.Policy),
				Time: strconv.FormatFloat(res.Seconds, 'f', 3, 64), SystemOut: res.Formula + "\nchecked: " + res.Method}
			body := res.Reason
			if res.Counterexample != "" {
				body += "\ncounterexample: " + res.Counterexample
			}
			switch {
			case res.Status == Errored:
				c.Error = &junitMessage{Message: res.Reason, Type: "policy failure", Body: body}
				s.Errors++
			case !res.Claimed:
				c.Skipped = &junitMessage{Message: fmt.Sprintf("not claimed (%s): %s", res.Status, res.Reason)}
				s.Skipped++
			case res.Status == Violated:
				c.Failure = &junitMessage{Message: res.Reason, Type: "violated", Body: body}
				s.Failures++
			}
			s.Cases = append(s.Cases, c)
			s.Tests++
			total += res.Seconds
		}
		s.Time = strconv.FormatFloat(total, 'f', 3, 64)
		out.Suites = append(out.Suites, s)
	}
	b, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

// Matrix is every registered policy checked against every property: what
// `fairbench check --matrix` prints and writes, and what reports include.
//
// JSON shape (check-matrix.json):
//
//	{
//	  "seed": 1, "cases": 100, "bound": {"level": 2, "users": 2, ...},
//	  "generated_in_s": 41.2,
//	  "properties": [{"name": "envy-free", "kind": "single", "formula": "∀u≠v: ..."}, ...],
//	  "policies": [
//	    {"policy": "gavel-las", "claims": ["pareto-efficient", ...],
//	     "results": [{"property": "envy-free", "kind": "single", "claimed": true,
//	                  "status": "holds" | "violated" | "error",
//	                  "method": "exhaustive bound 2: ... + 100 random instances (gopter, seed 1)",
//	                  "exhaustive": 1638, "random": 100, "workloads": 0,
//	                  "reason": "...", "counterexample": "out/check/gavel-las-envy-free-1a2b3c4d.json",
//	                  "shrinks": 3, "measures": [{"horizons_rounds": [8,16,32,64], "values": [...],
//	                  "unit": "...", "exponent": 0.12, "detail": "..."}], "seconds": 0.8}, ...]}, ...]
//	}
//
// "results" follows the order of "properties"; "reason" holds the violation
// or error, or a temporal property's measurement when it holds; "formula"
// repeats the property's formula with its tolerance.
//
// CSV shape (check-matrix.csv), one row per policy × property, header:
//
//	policy,property,kind,claimed,status,exhaustive,random,workloads,exponent,counterexample,reason
//
// claimed is true/false; exponent is the last workload's fitted growth
// exponent for temporal properties (empty otherwise).
type Matrix struct {
	Seed       int64          `json:"seed"`
	Cases      int            `json:"cases"`
	Bound      Bound          `json:"bound"`
	Seconds    float64        `json:"generated_in_s"`
	Properties []PropertyInfo `json:"properties"`
	Policies   []MatrixRow    `json:"policies"`
}

// PropertyInfo describes one property of the matrix.
type PropertyInfo struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Formula string `json:"formula"`
}

// MatrixRow is one policy's results.
type MatrixRow struct {
	Policy  string   `json:"policy"`
	Claims  []string `json:"claims"`
	Results []Result `json:"results"`
}

// RunMatrix checks every registered policy against every property of cfg.
// A policy that cannot be built gets an error in every cell.
func RunMatrix(reg *solvers.Registry, cfg Config) (*Matrix, error) {
	start := time.Now()
	cfg.Defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	props, err := Lookup(&cfg, cfg.Props)
	if err != nil {
		return nil, err
	}
	m := &Matrix{Seed: cfg.Seed, Cases: cfg.Cases, Bound: cfg.bound()}
	for _, p := range props {
		kind := "single"
		if _, ok := p.(TemporalProperty); ok {
			kind = "temporal"
		}
		m.Properties = append(m.Properties, PropertyInfo{Name: p.Name(), Kind: kind, Formula: p.String()})
	}
	for _, name := range reg.Names() {
		subj, err := SubjectOf(reg, name, nil)
		row := MatrixRow{Policy: name}
		if err != nil {
			for _, p := range m.Properties {
				row.Results = append(row.Results, Result{Property: p.Name, Kind: p.Kind, Formula: p.Formula, Status: Errored, Reason: err.Error()})
			}
			m.Policies = append(m.Policies, row)
			continue
		}
		rep, err := Run(subj, cfg)
		if err != nil {
			return nil, err
		}
		row.Claims, row.Results = rep.Claims, rep.Results
		m.Policies = append(m.Policies, row)
	}
	m.Seconds = time.Since(start).Seconds()
	return m, nil
}

// JSON encodes m in the shape documented on Matrix.
func (m *Matrix) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	return append(b, '\n'), err
}

// CSV encodes m in the shape documented on Matrix.
func (m *Matrix) CSV() ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"policy", "property", "kind", "claimed", "status", "exhaustive", "random", "workloads", "exponent", "counterexample", "reason"})
	for _, row := range m.Policies {
		for _, res := range row.Results {
			exp := ""
			if n := len(res.Measures); n > 0 {
				exp = strconv.FormatFloat(res.Measures[n-1].Exponent, 'f', 3, 64)
			}
			w.Write([]string{row.Policy, res.Property, res.Kind, strconv.FormatBool(res.Claimed), string(res.Status),
				strconv.Itoa(res.Exhaustive), strconv.Itoa(res.Random), strconv.Itoa(res.Workloads), exp,
				res.Counterexample, strings.ReplaceAll(res.Reason, "\n", " ")})
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// Table prints m: a row per policy, a column per property; "holds" or
// "violated" (upper case when the policy claims the property), "error";
// a claimed property is marked with *. Counterexample files follow.
func (m *Matrix) Table(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 4, 1, ' ', 0)
	fmt.Fprint(tw, "policy")
	for _, p := range m.Properties {
		fmt.Fprintf(tw, "\t%s", p.Name)
	}
	fmt.Fprintln(tw)
	for _, row := range m.Policies {
		fmt.Fprint(tw, row.Policy)
		for _, res := range row.Results {
			cell := statusWord(res)
			if res.Claimed {
				cell += "*"
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n* claimed by the policy (feasible: by every policy). Holds = no counterexample within %s and %d random instances (seed %d); temporal properties on seeded workloads.\n",
		m.Bound, m.Cases, m.Seed)
	for _, row := range m.Policies {
		for _, res := range row.Results {
			if res.Counterexample != "" {
				fmt.Fprintf(w, "%s %s: %s\n", row.Policy, res.Property, res.Counterexample)
			}
		}
	}
}
