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

// subject wraps a stateless allocation function as a checker subject.
func subject(name string, claims []string, f func(s *models.Snapshot) (models.Allocation, error)) *Subject {
	return &Subject{Name: name, Claims: claims, New: func() (solvers.Policy, error) { return funcPolicy{name, f}, nil }}
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

// partition is the isolated policy's allocation (the correct reference the
// mutants break).
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

// quick is a small, fast configuration for tests.
func quick(props ...string) Config {
	return Config{Props: props, Cases: 40, Bound: 1, Seed: 1, Workers: 2}
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
