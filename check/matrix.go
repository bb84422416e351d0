package check

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"fairbench/models"
	"fairbench/solvers"
)

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
//	    {"policy": "gavel-las", "instances": 4862, "instances_per_s": 1092,
//	     "claims": [{"property": "sharing-incentive", "conditions": ["equal-weights", ...], "source": "Narayanan et al., ..."}, ...],
//	     "results": [{"property": "sharing-incentive", "kind": "single", "claimed": true,
//	                  "conditions": ["equal-weights", "one-job-per-user"], "source": "...",
//	                  "status": "holds" | "violated" | "error",
//	                  "method": "exhaustive bound 2: ... + 100 random instances under ... (gopter, seed 1)",
//	                  "exhaustive": 4762, "random": 100, "workloads": 0,
//	                  "reason": "...", "counterexample": "out/check/gavel-las-sharing-incentive-claim-1a2b3c4d.json",
//	                  "shrinks": 3, "measures": [{"horizons_rounds": [8, ...], "values": [...], "unit": "...",
//	                  "growth": {"alpha": 0.98, "alpha_lo": 0.95, "alpha_hi": 1.01, "rise": 12.3},
//	                  "exponent": 0.98, "detail": "..."}], "seconds": 0.8,
//	                  "unconditional": {...the same fields, on every instance...}}, ...]}, ...]
//	}
//
// "results" follows the order of "properties"; a claim with conditions has
// its verdict under them in "status" and the verdict on every instance in
// "unconditional"; "reason" holds the violation or error, or a temporal
// property's measurement when it holds; "formula" repeats the property's
// formula with its tolerance.
//
// CSV shape (check-matrix.csv), one row per policy × property, header:
//
//	policy,property,kind,claimed,conditions,status,unconditional,exhaustive,random,workloads,exponent,counterexample,reason
//
// claimed is true/false; conditions are separated by "+"; unconditional is
// the unconditional status when the claim has conditions (else empty);
// exponent is the last workload's fitted growth exponent for temporal
// properties (empty otherwise).
type Matrix struct {
	Seed       int64          `json:"seed"`
	Cases      int            `json:"cases"`
	Bound      Bound          `json:"bound"`
	Seconds    float64        `json:"generated_in_s"`
	Properties []PropertyInfo `json:"properties"`
	Policies   []MatrixRow    `json:"policies"`
	// Skipped are the registered policies left out (RunMatrixSkipping).
	Skipped []string `json:"skipped,omitempty"`
}

// PropertyInfo describes one property of the matrix.
type PropertyInfo struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Formula string `json:"formula"`
}

// MatrixRow is one policy's results, with the single-decision instances
// its check decided and how many per second.
type MatrixRow struct {
	Policy    string         `json:"policy"`
	Claims    []models.Claim `json:"claims"`
	Results   []Result       `json:"results"`
	Instances int            `json:"instances"`
	Rate      float64        `json:"instances_per_s"`
}

// RunMatrix checks every registered policy against every property of cfg.
// A policy that cannot be built gets an error in every cell.
func RunMatrix(reg *solvers.Registry, cfg Config) (*Matrix, error) {
	return RunMatrixSkipping(reg, cfg, nil)
}

// RunMatrixSkipping is RunMatrix without the policies named in skip, which
// the matrix lists as Skipped (a baseline comparison then leaves their
// entries alone). Every name in skip must be registered.
func RunMatrixSkipping(reg *solvers.Registry, cfg Config, skip []string) (*Matrix, error) {
	for _, n := range skip {
		if !slices.Contains(reg.Names(), n) {
			return nil, fmt.Errorf("check: cannot skip %q: no such policy (known: %v)", n, reg.Names())
		}
	}
	start := time.Now()
	props, err := cfg.setup()
	if err != nil {
		return nil, err
	}
	m := &Matrix{Seed: cfg.Seed, Cases: cfg.Cases, Bound: cfg.bound(), Skipped: slices.Sorted(slices.Values(skip))}
	for _, p := range props {
		m.Properties = append(m.Properties, PropertyInfo{Name: p.Name(), Kind: kindOf(p), Formula: p.String()})
	}
	cfg.Props = nil
	for _, p := range props {
		cfg.Props = append(cfg.Props, p.Name())
	}
	for _, name := range reg.Names() {
		if slices.Contains(skip, name) {
			continue
		}
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
		row.Claims, row.Results, row.Instances, row.Rate = rep.Claims, rep.Results, rep.Instances, rep.Rate
		m.Policies = append(m.Policies, row)
	}
	m.Seconds = time.Since(start).Seconds()
	return m, nil
}

func kindOf(p Property) string {
	if _, ok := p.(TemporalProperty); ok {
		return "temporal"
	}
	return "single"
}

// ExitCode is `fairbench check --matrix`'s exit status without a
// baseline: 1 when a claimed property is violated under its conditions,
// else 2 when a policy failed, else 0.
func (m *Matrix) ExitCode() int {
	code := 0
	for _, row := range m.Policies {
		r := Report{Results: row.Results}
		if c := r.ExitCode(); c == 1 || c == 2 && code == 0 {
			code = c
		}
	}
	return code
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
	w.Write([]string{"policy", "property", "kind", "claimed", "conditions", "status", "unconditional", "exhaustive", "random",
		"workloads", "exponent", "counterexample", "reason"})
	for _, row := range m.Policies {
		for _, res := range row.Results {
			exp, uncond := "", ""
			if n := len(res.Measures); n > 0 {
				exp = strconv.FormatFloat(res.Measures[n-1].Exponent, 'f', 3, 64)
			}
			if res.Unconditional != nil {
				uncond = string(res.Unconditional.Status)
			}
			w.Write([]string{row.Policy, res.Property, res.Kind, strconv.FormatBool(res.Claimed), strings.Join(res.Conditions, "+"),
				string(res.Status), uncond, strconv.Itoa(res.Exhaustive), strconv.Itoa(res.Random), strconv.Itoa(res.Workloads), exp,
				res.Counterexample, strings.ReplaceAll(res.Reason, "\n", " ")})
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// Table prints m: a row per policy, a column per property; "holds" or
// "violated" (upper case when the policy claims the property and it fails
// under the claim's conditions), "error"; a claimed property is marked
// with *, and a claim with conditions shows the unconditional verdict
// after a slash. Counterexample files follow.
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
			fmt.Fprintf(tw, "\t%s", cellWord(res))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n* claimed by the policy (feasible: by every policy); a/b: a under the claim's conditions, b on every instance. "+
		"Holds = no counterexample within %s and %d random instances (seed %d); temporal properties on seeded workloads.\n",
		m.Bound, m.Cases, m.Seed)
	for _, row := range m.Policies {
		for _, res := range row.Results {
			for _, r := range []*Result{&res, res.Unconditional} {
				if r != nil && r.Counterexample != "" {
					fmt.Fprintf(w, "%s %s%s: %s\n", row.Policy, res.Property, conditionsNote(r.Conditions), r.Counterexample)
				}
			}
		}
	}
}

func conditionsNote(c []string) string {
	if len(c) == 0 {
		return ""
	}
	return " [" + strings.Join(c, ", ") + "]"
}

// cellWord is one cell of the table.
func cellWord(res Result) string {
	cell := statusWord(res)
	if res.Unconditional != nil {
		cell += "/" + string(res.Unconditional.Status)
	}
	if res.Claimed {
		cell += "*"
	}
	return cell
}

// MatrixJUnit renders a matrix as JUnit XML, one suite per policy, one
// case per property (see JUnit). With changes (a baseline comparison),
// the gate's view instead: a change is a failure, and a known violation
// recorded in the baseline passes with its record in the output.
func MatrixJUnit(m *Matrix, changes []Change) ([]byte, error) {
	if changes == nil {
		var reps []*Report
		for _, row := range m.Policies {
			reps = append(reps, &Report{Policy: row.Policy, Claims: row.Claims, Results: row.Results})
		}
		return JUnit(reps...)
	}
	byCell := map[string][]Change{}
	for _, c := range changes {
		byCell[c.Policy+"\x00"+c.Property] = append(byCell[c.Policy+"\x00"+c.Property], c)
	}
	var out junitSuites
	for _, row := range m.Policies {
		s := junitSuite{Name: "fairbench check --matrix --baseline " + row.Policy}
		for _, res := range row.Results {
			c := junitCaseOf(row.Policy, res)
			var msgs []string
			for _, ch := range byCell[row.Policy+"\x00"+res.Property] {
				msgs = append(msgs, ch.String())
			}
			switch {
			case len(msgs) > 0:
				c.Failure = &junitMessage{Message: strings.Join(msgs, "; "), Type: "changed", Body: junitBody(res)}
			case !res.Claimed:
				c.Skipped = &junitMessage{Message: fmt.Sprintf("not claimed (%s)", res.Status)}
			case res.Status == Violated || res.Unconditional != nil && res.Unconditional.Status == Violated:
				c.SystemOut += "\nknown violation, recorded in the baseline: " + res.Reason
			}
			s.add(c, res.Seconds)
		}
		out.Suites = append(out.Suites, s)
	}
	return out.encode()
}
