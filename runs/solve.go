package runs

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"fairbench/internal/input"
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
// .yaml or .yml, of at most input.MaxInstanceBytes. Unknown or repeated
// keys, trailing data and values out of range are refused (see
// models.DecodeInstance); errors start with the file name. GPU types the
// instance does not list are the catalogue's.
func ReadInstance(path string) (*models.Instance, error) {
	b, err := input.ReadFile(path, input.MaxInstanceBytes)
	if err != nil {
		return nil, err
	}
	ext := strings.ToLower(filepath.Ext(path))
	in, err := models.DecodeInstance(b, ext == ".yaml" || ext == ".yml", models.Catalogue().GPUTypes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return in, nil
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
