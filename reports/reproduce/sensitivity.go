package reproduce

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"fairbench/reports"
)

// Variation is one setting of an experiment changed, the others kept: the
// sensitivity runs that say which setting moves a headline.
type Variation struct {
	// Name is short (a table column); What says what changed.
	Name, What string
	// Set replaces scenario keys, by dotted path ("workload.jobs").
	Set map[string]any
	// Options are merged into a policy's options.
	Options map[string]map[string]any
	// Swap runs another policy in place of one the headlines name
	// (headline name → policy run).
	Swap map[string]string
	// Traces, when set, replaces the experiment's traces.
	Traces func(quick bool) map[string][]byte
}

// oneSeed runs a variation on seed 0 only: a sensitivity row shows which
// way a setting moves a headline, at a third of the full grid's cost.
func oneSeed(apply func([]byte) ([]byte, error)) func([]byte) ([]byte, error) {
	return func(data []byte) ([]byte, error) {
		out, err := apply(data)
		if err != nil {
			return nil, err
		}
		return Variation{Set: map[string]any{"seed": 0}}.apply(out)
	}
}

// sensitivityRun is a variation's results.
type sensitivityRun struct {
	Variation Variation
	results   *Results
}

// policies are e's policies under v: swapped and with v's options merged.
func (v Variation) policies(ps []Policy) []Policy {
	out := make([]Policy, len(ps))
	for i, p := range ps {
		q := Policy{Name: p.Name, Options: map[string]any{}}
		if s, ok := v.Swap[p.Name]; ok {
			q.Name = s
		}
		for k, x := range p.Options {
			if q.Name == p.Name {
				q.Options[k] = x
			}
		}
		for k, x := range v.Options[q.Name] {
			q.Options[k] = x
		}
		out[i] = q
	}
	return out
}

// apply sets v's scenario keys in the YAML document data.
func (v Variation) apply(data []byte) ([]byte, error) {
	if len(v.Set) == 0 {
		return data, nil
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	for path, val := range v.Set {
		m := doc
		keys := strings.Split(path, ".")
		for _, k := range keys[:len(keys)-1] {
			next, ok := m[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[k] = next
			}
			m = next
		}
		m[keys[len(keys)-1]] = val
	}
	return yaml.Marshal(doc)
}

// sensitivity runs every variation of e on the grid that was run (quick or
// full) under dir/sensitivity/NAME and returns their results. A variation
// that fails is reported in the returned notes and left out.
func (e *Experiment) sensitivity(o Options, dir string) ([]sensitivityRun, []string) {
	var out []sensitivityRun
	var notes []string
	for _, v := range e.Variations {
		ve := *e
		ve.Policies = v.policies(e.Policies)
		ve.Variations = nil
		if v.Traces != nil {
			ve.Traces = v.Traces
		}
		g, err := ve.runGrid(o, filepath.Join(dir, "sensitivity", v.Name), oneSeed(v.apply))
		if err != nil {
			notes = append(notes, fmt.Sprintf("Sensitivity run %s failed: %v", v.Name, err))
			continue
		}
		if g.failed != nil {
			notes = append(notes, fmt.Sprintf("Sensitivity run %s: some runs failed: %v", v.Name, g.failed))
		}
		res := g.results
		res.alias = map[string]string{}
		for from, to := range v.Swap {
			res.alias[from] = to
		}
		out = append(out, sensitivityRun{Variation: v, results: res})
	}
	return out, notes
}

// sensitivityTable is each headline's judged value as run and under each
// variation (one row each), with the verdict it would get.
func (e *Experiment) sensitivityTable(base *Results, sens []sensitivityRun) *reports.NamedTable {
	t := &reports.Table{Header: []string{"setting", "what changed"}}
	for _, h := range e.Headlines {
		t.Header = append(t.Header, h.Metric)
	}
	row := func(name, what string, r *Results) {
		cells := []string{name, what}
		for _, h := range e.Headlines {
			v := h.Check.measure(r)
			cell := h.Check.format(v)
			if !math.IsNaN(v) {
				cell += " (" + h.Check.Target.judge(v).String() + ")"
			}
			cells = append(cells, cell)
		}
		t.Rows = append(t.Rows, cells)
	}
	row("as run", "the experiment's grid", base)
	for _, s := range sens {
		row(s.Variation.Name, s.Variation.What, s.results)
	}
	return &reports.NamedTable{Name: "sensitivity", Title: "Sensitivity: one setting changed at a time",
		Caption: "Each headline's value (reduced over the grid's points as its verdict is) with the experiment as run and with one setting changed (seed 0 only); in brackets the verdict the value would get. A headline short of reproduced names, as its measured cause, the row that brings it closest to the paper's number.",
		Data:    t, Display: t}
}
