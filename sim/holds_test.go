package sim

import (
	"math/rand"
	"slices"
	"testing"

	"fairbench/models"
)

// vandal runs churn (naming GPUs, as gandiva-fair does) and, at each
// decision, also checks spoilt copies of churn's allocation with the
// engine's own checker, whose Held is the engine (most assignments keep a
// job on the GPUs it holds), and with a fresh one, which checks in full:
// the two verdicts and errors must be the same. It returns churn's own
// allocation, so that the run goes on.
type vandal struct {
	churn
	e                *engine
	checks, mismatch int
	// Checks with assignments Holds vouched for (heldSeen), and of those,
	// the ones refused.
	heldSeen, refused int
	failure           string
}

func (v *vandal) Allocate(s *models.Snapshot) (models.Allocation, error) {
	a, err := v.churn.Allocate(s)
	if err != nil {
		return a, err
	}
	for range 6 {
		b := v.spoil(s, a)
		n := v.vouched(s, b)
		got, want := v.e.check.Feasible(s, b), models.Feasible(s, b)
		v.checks++
		if want != nil && n > 0 {
			v.refused++
		}
		if n > 0 {
			v.heldSeen++
		}
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			v.mismatch++
			if v.failure == "" {
				v.failure = errText(got) + " | full check: " + errText(want)
			}
		}
	}
	return a, nil
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// vouched counts the assignments of b that the engine's Holds vouches for.
func (v *vandal) vouched(s *models.Snapshot, b models.Allocation) int {
	n := 0
	for i := range b.Run {
		if _, ok := v.e.Holds(&b.Run[i]); ok {
			n++
		}
	}
	return n
}

// spoil is a deep copy of a with zero to three random faults: a job
// assigned twice, a GPU out of range, of another type or held by another
// job, a type, job or setting changed, a gang's GPUs cut short, a waiting
// job put on a running job's GPUs, the order shuffled.
func (v *vandal) spoil(s *models.Snapshot, a models.Allocation) models.Allocation {
	rng := v.rng
	b := a
	b.Run = make([]models.Assignment, len(a.Run))
	for i, as := range a.Run {
		as.GPUs = slices.Clone(as.GPUs) // the snapshot's own lists: never change them
		b.Run[i] = as
	}
	total := s.Cluster.TotalGPUs()
	types := append(s.Cluster.TypeNames(), "none")
	var held [][]int // the GPUs of running jobs
	for i := range s.Jobs {
		if s.Jobs[i].Running() {
			held = append(held, s.Jobs[i].LastGPUs)
		}
	}
	insert := func(as models.Assignment) {
		k := rng.Intn(len(b.Run) + 1)
		b.Run = slices.Insert(b.Run, k, as)
	}
	for n := rng.Intn(4); n > 0 && len(b.Run) > 0; n-- {
		k := rng.Intn(len(b.Run))
		as := &b.Run[k]
		switch rng.Intn(9) {
		case 0:
			c := *as
			c.GPUs = slices.Clone(c.GPUs)
			insert(c)
		case 1:
			if len(as.GPUs) > 0 {
				as.GPUs[rng.Intn(len(as.GPUs))] = rng.Intn(total+4) - 2
			}
		case 2:
			if len(as.GPUs) > 0 && len(held) > 0 {
				h := held[rng.Intn(len(held))]
				as.GPUs[rng.Intn(len(as.GPUs))] = h[rng.Intn(len(h))]
			}
		case 3:
			as.Type = types[rng.Intn(len(types))]
		case 4:
			as.Job = s.Jobs[rng.Intn(len(s.Jobs))].ID + models.JobID(rng.Intn(3)-1)
		case 5:
			as.Accum = rng.Intn(5)
		case 6:
			if len(as.GPUs) > 0 {
				as.GPUs = as.GPUs[:rng.Intn(len(as.GPUs))]
			}
		case 7:
			for i := range s.Jobs {
				if j := &s.Jobs[i]; !j.Running() && len(held) > 0 {
					h := held[rng.Intn(len(held))]
					insert(models.Assignment{Job: j.ID, Type: s.Cluster.TypeOfGPU(h[0]), GPUs: slices.Clone(h)})
					break
				}
			}
		case 8:
			rng.Shuffle(len(b.Run), func(i, j int) { b.Run[i], b.Run[j] = b.Run[j], b.Run[i] })
		}
	}
	return b
}

// TestHeldCheckMatchesFull: the checker that takes the engine's word for
// the assignments keeping a job as it runs (Checker.Held) gives, on random
// allocations with random faults, the verdict and the error of the full
// check; and it did take the engine's word, on allocations it passed and
// on ones it refused.
func TestHeldCheckMatchesFull(t *testing.T) {
	checks, refused, vouched := 0, 0, 0
	for seed := int64(0); seed < 24; seed++ {
		cfg := churnConfig(rand.New(rand.NewSource(seed)), seed)
		cfg.defaults()
		if err := cfg.validate(); err != nil {
			t.Fatal(err)
		}
		v := &vandal{churn: churn{rng: rand.New(rand.NewSource(seed)), name: true}}
		v.e = newEngine(cfg, v)
		if err := v.e.loop(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if v.mismatch > 0 {
			t.Fatalf("seed %d: %d of %d checks differ from the full check, first: %s", seed, v.mismatch, v.checks, v.failure)
		}
		checks, refused, vouched = checks+v.checks, refused+v.refused, vouched+v.heldSeen
	}
	if refused == 0 || refused == vouched {
		t.Fatalf("%d checks, %d with assignments vouched for, %d of those refused: a path went untested", checks, vouched, refused)
	}
	t.Logf("%d checks, %d with assignments vouched for, %d of those refused", checks, vouched, refused)
}
