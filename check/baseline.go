package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"fairbench/models"
)

// BaselineFormat names the baseline file format.
const BaselineFormat = "fairbench-baseline/1"

// Baseline is the checked-in matrix a CI gate compares against
// (docs/checker.md, "The gate"): every claim of every registered policy,
// with the paper's conditions and citation, its verdict under the
// conditions and on every instance, and, for each expected violation, its
// counterexample. `fairbench check --matrix --baseline FILE` runs the
// matrix with the budget recorded here and fails only on a change: a new
// violation, a violation that is gone (fixed, not yet recorded), a claim
// whose conditions changed, an entry for a claim that no longer exists, or
// a policy that failed.
type Baseline struct {
	Format string `json:"format"`
	// Budget is the settings the matrix was made with; the gate reruns it
	// with the same ones, so that verdicts compare.
	Budget Budget          `json:"budget"`
	Claims []BaselineEntry `json:"claims"`
}

// Budget is what a matrix's verdicts depend on besides the code.
type Budget struct {
	Seed     int64          `json:"seed"`
	Cases    int            `json:"cases"`
	Bound    int            `json:"bound"`
	Rounds   int            `json:"rounds"`
	Temporal TemporalConfig `json:"temporal"`
	Props    []string       `json:"props,omitempty"`
}

// BudgetOf is the budget of cfg (after Defaults).
func BudgetOf(cfg Config) Budget {
	cfg.Defaults()
	return Budget{Seed: cfg.Seed, Cases: cfg.Cases, Bound: cfg.Bound, Rounds: cfg.Rounds, Temporal: cfg.Temporal, Props: cfg.Props}
}

// Apply sets cfg's budget to b.
func (b Budget) Apply(cfg *Config) {
	cfg.Seed, cfg.Cases, cfg.Bound, cfg.Rounds, cfg.Temporal, cfg.Props = b.Seed, b.Cases, b.Bound, b.Rounds, b.Temporal, b.Props
}

// BaselineEntry is one claim of one policy and what the matrix found.
type BaselineEntry struct {
	Policy     string   `json:"policy"`
	Property   string   `json:"property"`
	Conditions []string `json:"conditions,omitempty"`
	Source     string   `json:"source,omitempty"`
	// Status is the verdict under the conditions; Unconditional the one on
	// every instance (the same as Status without conditions).
	Status        Status `json:"status"`
	Unconditional Status `json:"unconditional"`
	Reason        string `json:"reason,omitempty"`
	// Counterexample is the instance file of a violation under the
	// conditions, UnconditionalCounterexample that of a violation on every
	// instance: each a `fairbench check --replay` file, kept on one line.
	Counterexample              json.RawMessage `json:"counterexample,omitempty"`
	UnconditionalReason         string          `json:"unconditional_reason,omitempty"`
	UnconditionalCounterexample json.RawMessage `json:"unconditional_counterexample,omitempty"`
}

// compact encodes a counterexample on one line (nil for none).
func compact(in *models.Instance) json.RawMessage {
	if in == nil {
		return nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil
	}
	return b
}

// NewBaseline records m's claims (with the budget it was made with).
func NewBaseline(m *Matrix, b Budget) *Baseline {
	out := &Baseline{Format: BaselineFormat, Budget: b}
	for _, row := range m.Policies {
		for _, res := range row.Results {
			if !res.Claimed {
				continue
			}
			e := BaselineEntry{Policy: row.Policy, Property: res.Property, Conditions: res.Conditions, Source: res.Source,
				Status: res.Status, Unconditional: res.Status}
			if res.Status == Violated {
				e.Reason, e.Counterexample = res.Reason, compact(res.Instance)
			}
			if u := res.Unconditional; u != nil {
				e.Unconditional = u.Status
				if u.Status == Violated {
					e.UnconditionalReason, e.UnconditionalCounterexample = u.Reason, compact(u.Instance)
				}
			}
			out.Claims = append(out.Claims, e)
		}
	}
	return out
}

// JSON encodes the baseline with one claim per line (so that a diff of
// the file names the claims whose verdicts changed).
func (b *Baseline) JSON() ([]byte, error) {
	budget, err := json.Marshal(b.Budget)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n  \"format\": %q,\n  \"budget\": %s,\n  \"claims\": [", b.Format, budget)
	for i, e := range b.Claims {
		line, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		buf.Write(line)
	}
	buf.WriteString("\n  ]\n}\n")
	return buf.Bytes(), nil
}

// MaxBaselineBytes bounds a baseline file.
const MaxBaselineBytes = 64 << 20

// ReadBaseline decodes a baseline, refusing unknown fields, another
// format, and entries without a policy or property.
func ReadBaseline(r io.Reader) (*Baseline, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBaselineBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBaselineBytes {
		return nil, fmt.Errorf("baseline: larger than %d bytes", MaxBaselineBytes)
	}
	var b Baseline
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("baseline: more than one JSON value")
	}
	if b.Format != BaselineFormat {
		return nil, fmt.Errorf("baseline: format %q, want %q", b.Format, BaselineFormat)
	}
	for i, e := range b.Claims {
		if e.Policy == "" || e.Property == "" {
			return nil, fmt.Errorf("baseline: claims[%d]: policy and property are required", i)
		}
		for _, s := range []Status{e.Status, e.Unconditional} {
			if s != Holds && s != Violated && s != Errored {
				return nil, fmt.Errorf("baseline: claims[%d] (%s %s): status %q", i, e.Policy, e.Property, s)
			}
		}
	}
	return &b, nil
}

// Change is one difference between a matrix and its baseline.
type Change struct {
	Policy, Property string
	// Kind is "new violation", "fixed", "conditions changed", "stale",
	// "error" or "new claim".
	Kind   string
	Detail string
	// Fails says whether the change fails the gate ("new claim" that
	// holds does not).
	Fails bool
}

func (c Change) String() string {
	return fmt.Sprintf("%s %s: %s: %s", c.Policy, c.Property, c.Kind, c.Detail)
}

// Compare lists the changes of m against b, in matrix order then baseline
// order.
func (b *Baseline) Compare(m *Matrix) []Change {
	entries := map[string]*BaselineEntry{}
	for i := range b.Claims {
		entries[b.Claims[i].Policy+"\x00"+b.Claims[i].Property] = &b.Claims[i]
	}
	out := []Change{}
	seen := map[string]bool{}
	for _, row := range m.Policies {
		for _, res := range row.Results {
			if !res.Claimed && res.Status != Errored {
				continue
			}
			key := row.Policy + "\x00" + res.Property
			seen[key] = true
			out = append(out, compareCell(row.Policy, res, entries[key])...)
		}
	}
	for _, e := range b.Claims {
		if !seen[e.Policy+"\x00"+e.Property] && !slices.Contains(m.Skipped, e.Policy) {
			out = append(out, Change{Policy: e.Policy, Property: e.Property, Kind: "stale", Fails: true,
				Detail: "the baseline records this claim, but the matrix has no such claim (a policy or claim removed); update the baseline"})
		}
	}
	return out
}

// compareCell compares one claimed cell with its entry (nil: none).
func compareCell(policy string, res Result, e *BaselineEntry) []Change {
	ch := func(kind, detail string) Change {
		return Change{Policy: policy, Property: res.Property, Kind: kind, Detail: detail, Fails: true}
	}
	uncond := res.Status
	if res.Unconditional != nil {
		uncond = res.Unconditional.Status
	}
	if res.Status == Errored || uncond == Errored {
		return []Change{ch("error", "the property could not be checked: "+firstReason(res))}
	}
	if e == nil {
		if res.Status == Violated || uncond == Violated {
			return []Change{ch("new violation", "not in the baseline: "+firstReason(res))}
		}
		c := ch("new claim", "holds; not yet recorded in the baseline")
		c.Fails = false
		return []Change{c}
	}
	var out []Change
	if !slices.Equal(sorted(e.Conditions), sorted(res.Conditions)) {
		out = append(out, ch("conditions changed", fmt.Sprintf("the baseline records conditions [%s], the claim now has [%s]",
			strings.Join(e.Conditions, ", "), strings.Join(res.Conditions, ", "))))
	}
	for _, c := range []struct {
		scope     string
		was, now  Status
		reasonNow string
	}{{"under the claim's conditions", e.Status, res.Status, res.Reason}, {"on every instance", e.Unconditional, uncond, uncondReason(res)}} {
		switch {
		case c.was == c.now:
		case c.now == Violated:
			out = append(out, ch("new violation", c.scope+": "+c.reasonNow))
		case c.was == Violated:
			out = append(out, ch("fixed", c.scope+": holds now; record it in the baseline (fairbench check --matrix --write-baseline FILE)"))
		default:
			out = append(out, ch("changed", fmt.Sprintf("%s: %s, the baseline records %s", c.scope, c.now, c.was)))
		}
	}
	return out
}

func firstReason(res Result) string {
	if res.Reason != "" || res.Unconditional == nil {
		return res.Reason
	}
	return res.Unconditional.Reason
}

func uncondReason(res Result) string {
	if res.Unconditional != nil {
		return res.Unconditional.Reason
	}
	return res.Reason
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// Failing is the changes that fail the gate.
func Failing(changes []Change) []Change {
	var out []Change
	for _, c := range changes {
		if c.Fails {
			out = append(out, c)
		}
	}
	return out
}
