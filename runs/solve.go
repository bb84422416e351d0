package runs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"fairbench/models"
	"fairbench/solvers"
)

// Decision is what `fairbench solve` prints.
type Decision struct {
	Policy     string            `json:"policy"`
	Instance   string            `json:"instance"`
	Allocation models.Allocation `json:"allocation"`
	// Throughput is each job's steps per second under the allocation (for
	// fractions, Σ_g x[j][g]·T[j][g]).
	Throughput map[models.JobID]float64 `json:"throughput"`
}

// ReadInstance reads an instance file: JSON, or YAML when the name ends in
// .yaml or .yml. Unknown keys are refused.
func ReadInstance(path string) (*models.Instance, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var in models.Instance
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		err = dec.Decode(&in)
	default:
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err = dec.Decode(&in)
		err = jsonLine(b, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &in, nil
}

// jsonLine adds the line number to a JSON syntax or type error.
func jsonLine(b []byte, err error) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if off < 0 {
		return err
	}
	line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
	return fmt.Errorf("line %d: %w", line, err)
}

// Solve asks one policy for one decision on the instance in path.
func Solve(path, policy string, reg *solvers.Registry, seed int64) (*Decision, error) {
	in, err := ReadInstance(path)
	if err != nil {
		return nil, err
	}
	if policy == "" {
		policy = in.Policy
	}
	if policy == "" {
		return nil, fmt.Errorf("%s: no policy given (use --policy; known: %v)", path, reg.Names())
	}
	snap, err := in.Snapshot(models.Catalogue().GPUTypes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p, err := reg.New(policy, solvers.Config{Options: in.Options, Rand: rand.New(rand.NewPCG(uint64(seed), 0))})
	if err != nil {
		return nil, err
	}
	a, err := p.Allocate(snap)
	if err != nil {
		return nil, fmt.Errorf("%s: policy %s: %w", path, policy, err)
	}
	if err := models.Feasible(snap, a); err != nil {
		return nil, fmt.Errorf("%s: policy %s: infeasible allocation: %w", path, policy, err)
	}
	d := &Decision{Policy: policy, Instance: path, Allocation: a, Throughput: map[models.JobID]float64{}}
	for _, as := range a.Run {
		j, _ := snap.Job(as.Job)
		d.Throughput[as.Job] = snap.Throughput(&j.Job, as.Type)
	}
	for id, xs := range a.Fractions {
		j, _ := snap.Job(id)
		for _, g := range snap.Cluster.TypeNames() {
			d.Throughput[id] += xs[g] * snap.Throughput(&j.Job, g)
		}
	}
	return d, nil
}
