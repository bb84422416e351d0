package check

import (
	"math"
	"sort"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/gavel"
	"fairbench/solvers/isolated"
	"fairbench/solvers/registry"
)

// funcPolicy is a test policy from a function.
type funcPolicy struct {
	name string
	f    func(s *models.Snapshot) (models.Allocation, error)
}

func (p funcPolicy) Name() string { return p.name }
func (p funcPolicy) Allocate(s *models.Snapshot) (models.Allocation, error) {
	return p.f(s)
}

// subject wraps a stateless allocation function as a checker subject that
// claims the named properties unconditionally.
func subject(name string, claims []string, f func(s *models.Snapshot) (models.Allocation, error)) *Subject {
	return &Subject{Name: name, Claims: claimsOf(claims...), New: func() (solvers.Policy, error) { return funcPolicy{name, f}, nil }}
}

// claimsOf makes unconditional claims of the named properties.
func claimsOf(names ...string) []models.Claim {
	var out []models.Claim
	for _, n := range names {
		out = append(out, models.Claim{Property: n})
	}
	return out
}

// dflt is the default budget (bound 2, 100 random cases) on props, seed 1.
func dflt(props ...string) Config {
	return Config{Props: props, Cases: DefaultCases, Bound: DefaultBound, Seed: 1}
}

// classic are the limits of the checker's first instance space: one job
// per user, every user active, one server per type, no shared job types,
// no history, integer weights (what the reference partition is correct
// on, and where the planted bugs of mutants_test.go live).
func classic() Limits {
	return Limits{MaxUsers: 3, MaxTypes: 3, MaxGPUs: 4, MaxJobsPerUser: 1,
		Gangs: []int{1, 2}, Weights: []float64{1, 2, 3}, Speeds: []float64{1, 2, 3, 4, 5, 6, 8}, ZeroChance: 0.2}
}

// registered is the subject of a policy of the default registry, or of the
// Gavel family when the registry does not hold it yet.
func registered(t *testing.T, name string) *Subject {
	t.Helper()
	reg := registry.Default()
	if _, ok := reg.Lookup(name); !ok {
		for _, e := range gavel.Entries() {
			if e.Name == name {
				if err := reg.Register(e); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	s, err := SubjectOf(reg, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// partition is the static-partition policy's allocation: correct (sharing
// incentive, envy-freeness, strategy-proofness) for users with one job
// each, all active; fairPartition (mutants_test.go) is correct on every
// instance.
func partition(s *models.Snapshot) (models.Allocation, error) {
	return (&isolated.Isolated{}).Allocate(s)
}

// result finds one property's result.
func result(t *testing.T, rep *Report, prop string) Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.Property == prop {
			return r
		}
	}
	t.Fatalf("no result for %s", prop)
	return Result{}
}

// classicCfg is dflt on the classic limits, without the widened levels of
// the exhaustive bound (level 1 only).
func classicCfg(props ...string) Config {
	c := dflt(props...)
	c.Limits, c.Bound = classic(), 1
	return c
}

// typesBySpeed lists the types that can run j, fastest first.
func typesBySpeed(s *models.Snapshot, j *models.JobState) []string {
	var out []string
	for _, g := range s.Cluster.TypeNames() {
		if s.Throughput(&j.Job, g) > 0 {
			out = append(out, g)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return s.Throughput(&j.Job, out[a]) > s.Throughput(&j.Job, out[b]) })
	return out
}

// fill lets job j take time from bundle b (GPUs per type), fastest types
// first, up to its time cap; it returns j's fractions.
func fill(s *models.Snapshot, j *models.JobState, b map[string]float64) map[string]float64 {
	x := map[string]float64{}
	need := 1.0
	for _, g := range typesBySpeed(s, j) {
		v := math.Min(need, b[g]/float64(j.Gang))
		if v <= 1e-12 {
			continue
		}
		x[g] = v
		b[g] -= v * float64(j.Gang)
		need -= v
	}
	return x
}

// oneJobClaims claims sharing incentive, envy-freeness and
// strategy-proofness for users with one job each (the example policies').
func oneJobClaims() []models.Claim {
	var out []models.Claim
	for _, p := range []string{SharingIncentive, EnvyFree, StrategyProof} {
		out = append(out, models.Claim{Property: p, Conditions: []string{models.OneJobPerUser}})
	}
	return out
}
