package tiresias_test

import (
	"math/rand/v2"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
	"fairbench/solvers/tiresias"
)

func newPerType(t *testing.T, seed uint64) *tiresias.Tiresias {
	t.Helper()
	p, err := tiresias.NewPerType(solvers.Config{Rand: rand.New(rand.NewPCG(seed, 0))})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*tiresias.Tiresias)
}

// tiresias-pertype draws one type per job among the types that can run it
// and only ever runs the job there: across decisions with different free
// room and job orders each job keeps its type; "k80" jobs (K80 only) always
// land on the K80; over 300 "resnet" jobs the draws split about evenly
// between V100 and K80 (each 150 ± 40, well over 4 standard deviations of
// 8.7); the draws depend on the seed, not on the order of decisions.
func TestPerTypeDraws(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 400}, {Type: "K80", GPUs: 400}}
	var jobs []models.JobState
	for i := range 300 {
		jobs = append(jobs, policytest.Job(i, 0, "resnet", 1, 1000))
	}
	for i := 300; i < 320; i++ {
		jobs = append(jobs, policytest.Job(i, 0, "k80", 1, 1000))
	}
	typeOf := func(p *tiresias.Tiresias, js []models.JobState) map[models.JobID]string {
		s := policytest.Snap(t, 0, nil, servers, js...)
		a, err := p.Allocate(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := models.Feasible(s, a); err != nil {
			t.Fatal(err)
		}
		out := map[models.JobID]string{}
		for _, as := range a.Run {
			out[as.Job] = as.Type
		}
		return out
	}
	first := typeOf(newPerType(t, 1), jobs)
	if len(first) != len(jobs) {
		t.Fatalf("%d of %d jobs placed with room for all", len(first), len(jobs))
	}
	count := map[string]int{}
	for id, g := range first {
		if id >= 300 && g != "K80" {
			t.Errorf("job %d (K80 only) on %s", id, g)
		}
		if id < 300 {
			count[g]++
		}
	}
	if count["V100"] < 110 || count["K80"] < 110 {
		t.Errorf("draws %v, want about 150 each", count)
	}
	// The same seed, the jobs in reverse order: the same types.
	rev := make([]models.JobState, len(jobs))
	for i, j := range jobs {
		rev[len(jobs)-1-i] = j
	}
	if again := typeOf(newPerType(t, 1), rev); len(again) != len(first) {
		t.Fatalf("%d placed", len(again))
	} else {
		for id, g := range first {
			if again[id] != g {
				t.Fatalf("job %d: %s, then %s in reverse order", id, g, again[id])
			}
		}
	}
	// No migration: with room for one job on the K80 and for all on the
	// V100, the jobs drawn to the K80 wait rather than move.
	p := newPerType(t, 1)
	typeOf(p, jobs)
	small := []models.Server{{Type: "V100", GPUs: 400}, {Type: "K80", GPUs: 1}}
	s := policytest.Snap(t, 0, nil, small, jobs...)
	a, err := p.Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	onK80 := 0
	for _, as := range a.Run {
		if first[as.Job] != as.Type {
			t.Fatalf("job %d moved from %s to %s", as.Job, first[as.Job], as.Type)
		}
		if as.Type == "K80" {
			onK80++
		}
	}
	if onK80 != 1 || len(a.Run) != count["V100"]+1 {
		t.Errorf("%d jobs run, %d on the K80; want the %d V100 jobs and one K80 job", len(a.Run), onK80, count["V100"])
	}
	if p.Name() != tiresias.PerTypeName {
		t.Errorf("name %q", p.Name())
	}
}

func TestPerTypeBadService(t *testing.T) {
	t.Parallel()
	if _, err := tiresias.NewPerType(solvers.Config{Options: map[string]any{"service": "space"}}); err == nil {
		t.Error("service space accepted")
	}
}
