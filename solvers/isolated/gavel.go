package isolated

import (
	"math"

	"fairbench/models"
	"fairbench/solvers"
)

// Registered name and summary of Gavel's isolated policy.
const (
	GavelName    = "gavel-isolated"
	GavelSummary = "Gavel's isolated baseline: every GPU type split equally among the active jobs (1/m of each type per job, gang-scaled), re-solved on Gavel's cadence"
)

// Gavel is Gavel's "isolated" policy (Narayanan et al., OSDI 2020; the
// baseline its max-min fairness is compared against; docs/algorithms/
// isolated.md): with m active jobs, job j gets
//
//	x[j][g] = (N_g / m) / d_j
//
// of every type g — an equal share of each type's GPUs, turned into a time
// share of its gang d_j — and each job's shares are divided by
// max(1, Σ_g x[j][g]) so that they add up to at most 1. The split does not
// depend on throughputs or users. A share on a type the job cannot run on is
// left out (Gavel gives it, and its round mechanism never uses it).
//
// It is not fairbench's static-partition (Isolated, a static per-user partition of
// the cluster that counts idle users too). The round rules are Gavel's:
// re-solved on Gavel's cadence (option resolve_seconds, default 1920), and
// the GPU types visited in a shuffled order each round, as Gavel's
// simulator does for this policy; GPUs nobody's share claims are filled by
// any runnable job (Gavel's round mechanism is work-conserving), so the
// split is a priority, not a cap.
type Gavel struct {
	solvers.Paced
}

var (
	_ solvers.Policy    = (*Gavel)(nil)
	_ solvers.Triggered = (*Gavel)(nil)
	_ solvers.Rounds    = (*Gavel)(nil)
)

// NewGavel builds gavel-isolated from solvers.RoundOptions.
func NewGavel(c solvers.Config) (solvers.Policy, error) {
	p, err := solvers.GavelPaced(GavelName, c, true)
	if err != nil {
		return nil, err
	}
	return &Gavel{p}, nil
}

// Name is "gavel-isolated".
func (*Gavel) Name() string { return GavelName }

// Allocate returns the equal split above.
func (*Gavel) Allocate(s *models.Snapshot) (models.Allocation, error) {
	m := float64(len(s.Jobs))
	fr := map[models.JobID]map[string]float64{}
	types := s.Cluster.TypeNames()
	for i := range s.Jobs {
		j := &s.Jobs[i]
		x := make([]float64, len(types))
		sum := 0.0
		for g, name := range types {
			x[g] = float64(s.Cluster.Capacity(name)) / m / float64(j.Gang)
			sum += x[g]
		}
		scale := math.Max(1, sum)
		for g, name := range types {
			if s.Throughput(&j.Job, name) <= 0 {
				continue
			}
			if fr[j.ID] == nil {
				fr[j.ID] = map[string]float64{}
			}
			fr[j.ID][name] = x[g] / scale
		}
	}
	return models.Allocation{Fractions: fr}, nil
}
