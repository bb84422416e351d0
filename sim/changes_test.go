package sim

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
)

// watchedChanges is watched for an Incremental policy.
type watchedChanges struct{ *watched }

func (w watchedChanges) AllocateChanges(s *models.Snapshot) (models.Allocation, bool, error) {
	if err := w.e.checkBookkeeping(); err != nil && w.failure == "" {
		w.failure = fmt.Sprintf("t=%v: %v", s.Now, err)
	}
	w.checked++
	return w.Policy.(solvers.Incremental).AllocateChanges(s)
}

// changing is churn answering with the changes alone (solvers.Incremental)
// whenever churn's allocation leaves every running job as it is: listed
// once, on its type, with its setting and its GPUs or none named, no GPU it
// holds named by another assignment, and none shared unless the allocation
// co-locates. The changes are churn's other
// assignments, in churn's (random) order for odd seeds, else in the
// snapshot's. With whole set it is an ordinary policy that answers with the
// whole allocation those changes stand for (solvers.Changes), and churn's
// otherwise: the two answer the same at every decision.
type changing struct {
	churn
	whole, ordered bool
	keeps          int // answers with keep true
}

func (p *changing) Allocate(s *models.Snapshot) (models.Allocation, error) {
	a, keep, err := p.changes(s)
	if keep {
		a = solvers.Changes(s, a)
	}
	return a, err
}

func (p *changing) changes(s *models.Snapshot) (models.Allocation, bool, error) {
	a, err := p.churn.Allocate(s)
	if err != nil || a.Fractional() {
		return a, false, err
	}
	at := map[models.JobID]int{}
	for i := range s.Jobs {
		at[s.Jobs[i].ID] = i
	}
	held := map[int]bool{}
	listed := 0
	var changes []models.Assignment
	for _, as := range a.Run {
		j := &s.Jobs[at[as.Job]]
		if !j.Running() {
			changes = append(changes, as)
			continue
		}
		if as.Type != j.LastType || as.Accum != j.LastAccum || (len(as.GPUs) > 0 && !slices.Equal(as.GPUs, j.LastGPUs)) {
			return a, false, nil
		}
		listed++
	}
	for i := range s.Jobs {
		if s.Jobs[i].Running() {
			listed--
			for _, g := range s.Jobs[i].LastGPUs {
				if held[g] && !a.Colocate {
					return a, false, nil // two jobs on a GPU: they cannot both stay
				}
				held[g] = true
			}
		}
	}
	for _, as := range changes {
		if slices.ContainsFunc(as.GPUs, func(g int) bool { return held[g] }) {
			return a, false, nil
		}
	}
	if listed != 0 {
		return a, false, nil
	}
	if p.ordered {
		slices.SortStableFunc(changes, func(x, y models.Assignment) int { return at[x.Job] - at[y.Job] })
	}
	p.keeps++
	return models.Allocation{Run: changes, Colocate: a.Colocate}, true, nil
}

// incremental is changing as a solvers.Incremental policy.
type incremental struct{ *changing }

func (p incremental) AllocateChanges(s *models.Snapshot) (models.Allocation, bool, error) {
	return p.changes(s)
}

// TestChangesMatchWhole runs random policies that often answer with the
// changes alone twice: as Incremental policies, and as ordinary ones
// answering with the whole allocations those changes stand for. The event
// logs and results must be the same, with the engine's bookkeeping equal to
// its recomputation at every decision; both the path that adopts the
// changes alone and the one that builds the whole allocation must be taken.
func TestChangesMatchWhole(t *testing.T) {
	fast, keeps := 0, 0
	for seed := int64(0); seed < 36; seed++ {
		rng := rand.New(rand.NewSource(seed))
		cfg := churnConfig(rng, seed)
		share := seed%4 == 3
		if share {
			addRandomPairs(rng, cfg.Matrix)
		}
		policy := func() *changing {
			return &changing{churn: churn{rng: rand.New(rand.NewSource(seed)), share: share, name: seed%3 != 0}, ordered: seed%2 == 0}
		}
		p := policy()
		logA, resA, wA := runWatched(t, cfg, incremental{p}, false)
		logB, resB, wB := runWatched(t, cfg, policy(), false)
		for _, w := range []*watched{wA, wB} {
			if w.failure != "" {
				t.Fatalf("seed %d: %s", seed, w.failure)
			}
		}
		if logA != logB {
			t.Fatalf("seed %d: the event logs differ:\n%s", seed, firstDiff(logA, logB))
		}
		if a, b := fmt.Sprintf("%+v", resA), fmt.Sprintf("%+v", resB); a != b {
			t.Fatalf("seed %d: the results differ", seed)
		}
		fast += wA.e.byChanges
		keeps += p.keeps
	}
	if fast == 0 {
		t.Error("no changes were adopted alone: that path went untested")
	}
	if keeps == fast {
		t.Error("every answer with the changes alone was adopted alone: the whole allocation's path went untested")
	}
	t.Logf("%d answers with the changes alone, %d adopted alone", keeps, fast)
}

// grab starts every job on GPU 0 of the V100 server, answering with the
// whole allocation its changes stand for (grabChanges: with the changes).
type grab struct{}

func (grab) Name() string             { return "grab" }
func (grab) Triggers() models.Trigger { return everyEvent }
func (grab) Allocate(s *models.Snapshot) (models.Allocation, error) {
	a, _, err := grabChanges{}.AllocateChanges(s)
	return solvers.Changes(s, a), err
}

type grabChanges struct{ grab }

func (grabChanges) AllocateChanges(s *models.Snapshot) (models.Allocation, bool, error) {
	var a models.Allocation
	for _, j := range s.Jobs {
		if !j.Running() {
			a.Run = append(a.Run, models.Assignment{Job: j.ID, Type: "V100", GPUs: []int{0}})
		}
	}
	return a, true, nil
}

// TestChangesOnHeldGPUsRefused: changes that name a GPU a running job keeps
// are refused with the whole allocation's error. Job 0 starts on GPU 0 at
// t=0; job 1 arrives at 5 s and is given GPU 0 too: the whole allocation
// names GPU 0 for both.
func TestChangesOnHeldGPUsRefused(t *testing.T) {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 2}},
		map[models.Key]float64{{Job: "m", GPU: "V100", Gang: 1}: 1},
		[]models.Job{{ID: 0, User: "u", Type: "m", Gang: 1, Steps: 10}, {ID: 1, User: "u", Type: "m", Gang: 1, Steps: 10, Arrival: sec(5)}})
	_, errChanges := Run(cfg, grabChanges{})
	_, errWhole := Run(cfg, grab{})
	if errChanges == nil || errWhole == nil || errChanges.Error() != errWhole.Error() {
		t.Fatalf("changes: %v; whole: %v; want the same error", errChanges, errWhole)
	}
	if !strings.Contains(errChanges.Error(), "double-booked") {
		t.Errorf("error %q: want the GPU named twice", errChanges)
	}
}
