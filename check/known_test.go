package check

import (
	"math"
	"strings"
	"testing"

	"fairbench/models"
)

// Known violations from the literature: the checker must find them.

// drf is a DRF-style allocator (Ghodsi et al., NSDI 2011) that treats GPU
// types as distinct resources, as DRF adaptations to GPU clusters do: each
// job demands its gang of GPUs of its fastest type (a Leontief demand) and
// progressive filling raises every user's weighted dominant share alike
// until a job runs all the time or its type is full. GPU types are
// interchangeable for the jobs (they run, slower, elsewhere), which DRF
// ignores.
func drf(s *models.Snapshot) (models.Allocation, error) {
	weight := map[string]float64{}
	for _, u := range s.Users {
		weight[u.Name] = u.Weight
	}
	type dem struct {
		job *models.JobState
		typ string
		x   float64
		on  bool
	}
	var ds []*dem
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if ts := typesBySpeed(s, j); len(ts) > 0 {
			ds = append(ds, &dem{job: j, typ: ts[0], on: true})
		}
	}
	// Dominant share of a job's user grows as level·w_u; a job's time is
	// x = level·w_u·N_g / d_j (its dominant share is d·x/N_g).
	left := map[string]float64{}
	for _, g := range s.Cluster.TypeNames() {
		left[g] = float64(s.Cluster.Capacity(g))
	}
	level := 0.0
	for {
		// The next event: a job reaches x = 1, or a type fills.
		step := math.Inf(1)
		rate := map[string]float64{}
		active := 0
		for _, d := range ds {
			if !d.on {
				continue
			}
			active++
			n := float64(s.Cluster.Capacity(d.typ))
			r := weight[d.job.User] * n // GPUs per unit of level
			rate[d.typ] += r
			step = math.Min(step, (1-d.x)*float64(d.job.Gang)/r)
		}
		if active == 0 {
			break
		}
		for g, r := range rate {
			step = math.Min(step, left[g]/r)
		}
		level += step
		for _, d := range ds {
			if d.on {
				n := float64(s.Cluster.Capacity(d.typ))
				d.x += step * weight[d.job.User] * n / float64(d.job.Gang)
			}
		}
		for g, r := range rate {
			left[g] -= step * r
		}
		for _, d := range ds {
			if d.on && (d.x >= 1-1e-12 || left[d.typ] <= 1e-12) {
				d.on = false
			}
		}
	}
	fr := map[models.JobID]map[string]float64{}
	for _, d := range ds {
		if d.x > 0 {
			fr[d.job.ID] = map[string]float64{d.typ: math.Min(1, d.x)}
		}
	}
	return models.Allocation{Fractions: fr, Capped: true}, nil
}

func TestDRFBreaksSharingIncentiveWithInterchangeableTypes(t *testing.T) {
	t.Parallel()
	rep, err := Run(subject("drf", nil, drf), dflt(Feasible, SharingIncentive, EnvyFree))
	if err != nil {
		t.Fatal(err)
	}
	if r := result(t, rep, Feasible); r.Status != Holds {
		t.Fatalf("the DRF reference is infeasible: %s", r.Reason)
	}
	si, ef := result(t, rep, SharingIncentive), result(t, rep, EnvyFree)
	if si.Status != Violated && ef.Status != Violated {
		t.Fatalf("DRF kept both sharing incentive and envy-freeness: %s / %s", si.Status, ef.Status)
	}
	for _, r := range []Result{si, ef} {
		if r.Status == Violated {
			t.Logf("%s: %s\n  %s", r.Property, r.Reason, r.Instance.Note)
		}
	}
}

// Gavel's max-min fairness is not strategy-proof (Narayanan et al., OSDI
// 2020, §4): a job gains by misreporting its throughputs.
func TestGavelMaxMinIsNotStrategyProof(t *testing.T) {
	t.Parallel()
	subj := registered(t, "gavel-las")
	for _, cfg := range []Config{
		dflt(StrategyProof), // the default: exhaustive, then random
		{Props: []string{StrategyProof}, Seed: 1, Bound: 0, Cases: 100, Workers: 1}, // gopter alone, with shrinking
	} {
		rep, err := Run(subj, cfg)
		if err != nil {
			t.Fatal(err)
		}
		r := result(t, rep, StrategyProof)
		if r.Status != Violated || !strings.Contains(r.Reason, "misreporting") {
			t.Fatalf("bound %d: gavel-las strategy-proof %s: %s", cfg.Bound, r.Status, r.Reason)
		}
		t.Logf("bound %d: %s (%d random, %d shrinks)\n  %s", cfg.Bound, r.Reason, r.Random, r.Shrinks, r.Instance.Note)
	}
}

// The partition gives every user exactly its share whatever the others
// report: sharing incentive, envy-freeness and strategy-proofness hold
// under isolated's conditions (users whose jobs are alike, every user
// active for sharing incentive) on every instance up to bound 2 and on
// random ones. Unconditionally sharing incentive fails (an idle user's
// slice stays idle; a user's unlike jobs fill its slice in arrival order,
// not at its best use), and Pareto efficiency fails (idle slices).
func TestIsolatedKeepsItsClaims(t *testing.T) {
	t.Parallel()
	subj := registered(t, "static-partition")
	rep, err := Run(subj, dflt(Feasible, SharingIncentive, EnvyFree, StrategyProof, ParetoEfficient))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		want := Holds
		if r.Property == ParetoEfficient {
			want = Violated
		}
		if r.Status != want {
			t.Errorf("isolated %s %v: %s, want %s: %s", r.Property, r.Conditions, r.Status, want, r.Reason)
		}
	}
	if r := result(t, rep, SharingIncentive); r.Unconditional == nil || r.Unconditional.Status != Violated {
		t.Errorf("isolated's sharing incentive holds unconditionally: %+v", r.Unconditional)
	}
	if rep.ExitCode() != 0 {
		t.Errorf("exit code %d, want 0 (the violated property is not claimed)", rep.ExitCode())
	}
}
