package check

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"fairbench/fairness"
	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
)

// Subject is the policy under check: its name, the properties it claims
// (with their conditions), and a factory that builds a fresh policy (fresh
// state) for every decision or simulation.
type Subject struct {
	Name   string
	Claims []models.Claim
	// Options are the policy's options (written into counterexamples).
	Options map[string]any
	New     func() (solvers.Policy, error)
	// Close releases what the subject holds (an external policy's process).
	Close func() error
}

// SubjectOf is the registered policy name, built with options.
func SubjectOf(reg *solvers.Registry, name string, options map[string]any) (*Subject, error) {
	e, ok := reg.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown policy %q (known: %v)", name, reg.Names())
	}
	if _, err := reg.New(name, solvers.Config{Options: options}); err != nil {
		return nil, err
	}
	return &Subject{Name: name, Claims: e.Claims, Options: options, New: func() (solvers.Policy, error) {
		return reg.New(name, solvers.Config{Options: options})
	}}, nil
}

// Mode says how a single-allocation property sees a policy.
type Mode string

const (
	// Auto uses the realised shares when the policy answers with
	// placements (Allocation.Run), and the decision itself otherwise (time
	// fractions, or nothing at all).
	Auto Mode = "auto"
	// OneDecision checks the allocation of one Allocate call, as it is.
	OneDecision Mode = "decision"
	// Realised simulates the instance (every job present from the start,
	// none finishing) for Config.Rounds rounds and checks the time-averaged
	// shares the policy realised: x̄[j][g] = time on g / horizon. This is how
	// integral and stateful policies (Gandiva_fair's stride scheduling,
	// Tiresias) keep properties such as sharing incentive: over time, not in
	// one round.
	Realised Mode = "realised"
)

// Decision is one instance under check with what the policy did on it.
type Decision struct {
	Spec     *Spec // nil for a replayed file that is not spec-shaped
	Instance *models.Instance
	Snapshot *models.Snapshot
	Division *fairness.Division
	// Allocation is the policy's answer to one Allocate call.
	Allocation models.Allocation
	// Mode is the mode the outcome was measured in (OneDecision or Realised).
	Mode Mode
	// Outcome is the allocation in the division's terms.
	Outcome *fairness.Outcome
	// Infeasible is the constraint the allocation (or, realised, one of the
	// simulation's allocations) breaks; nil when feasible.
	Infeasible error
	// PolicyErr is a failure of the policy (an error, a crash, a hang, a
	// malformed answer): never a property violation.
	PolicyErr error
	// Mechanism reruns the policy on misreported speeds (strategy-proofness).
	Mechanism fairness.Mechanism
	// Relaxed is set in Realised mode when a job's gang exceeds one GPU:
	// the time-sharing model the fairness predicates measure against is
	// then a relaxation that no schedule of whole gangs may meet (2 GPUs, a
	// 1-GPU job and a 2-GPU job: shares x₁ = 1 and x₂ = ½ fit Σ d·x ≤ N but
	// the two cannot overlap), so sharing incentive, envy-freeness, Pareto
	// efficiency and strategy-proofness do not judge the case (it counts as
	// passing); feasibility still does.
	Relaxed bool

	cfg *Config
	err error // a failure while checking a property (see Fail)
}

// Fail records a failure that is not a violation (a policy or solver error
// met while checking); the checker reports it as an error.
func (c *Decision) Fail(err error) { c.err = err }

// Err is the failure recorded by Fail, or PolicyErr.
func (c *Decision) Err() error {
	if c.PolicyErr != nil {
		return c.PolicyErr
	}
	return c.err
}

// claimOf is the subject's claim of property name: every policy claims
// feasibility, unconditionally.
func (s *Subject) claimOf(name string) (models.Claim, bool) {
	if name == Feasible {
		return models.Claim{Property: Feasible}, true
	}
	for _, c := range s.Claims {
		if c.Property == name {
			return c, true
		}
	}
	return models.Claim{}, false
}

// decide runs the subject on one instance: the policy's answer, checked
// for feasibility first, and its outcome in the mode of the check.
func decide(subj *Subject, cfg *Config, in *models.Instance, spec *Spec) *Decision {
	c := &Decision{Spec: spec, Instance: in, cfg: cfg}
	snap, err := in.Snapshot(specTypes)
	if err != nil {
		c.PolicyErr = fmt.Errorf("instance: %w", err)
		return c
	}
	c.Snapshot = snap
	snap.Job(0) // builds the job index now: the decision is shared by goroutines
	if c.Division, err = fairness.NewDivision(snap); err != nil {
		c.PolicyErr = err
		return c
	}
	p, err := subj.New()
	if err != nil {
		c.PolicyErr = err
		return c
	}
	c.Allocation, err = p.Allocate(snap)
	if err != nil {
		c.PolicyErr = fmt.Errorf("policy %s: %w", subj.Name, err)
		return c
	}
	c.Infeasible = models.Feasible(snap, c.Allocation)
	c.Mode = cfg.Mode
	if c.Mode == Auto || c.Mode == "" {
		c.Mode = OneDecision
		if len(c.Allocation.Run) > 0 {
			c.Mode = Realised
		}
	}
	if c.Mode == Realised {
		for i := range snap.Jobs {
			c.Relaxed = c.Relaxed || snap.Jobs[i].Gang > 1
		}
	}
	j := judge{subj: subj, cfg: cfg, mode: c.Mode}
	if c.Infeasible == nil || c.Mode == Realised {
		c.Outcome, err = j.outcome(snap, c.Division, &c.Allocation)
		var v *models.Violation
		switch {
		case errors.As(err, &v):
			c.Infeasible = err
		case err != nil:
			c.PolicyErr = err
			return c
		}
	}
	c.Mechanism = func(rep *fairness.Division) (*fairness.Outcome, error) {
		return j.outcome(reportedSnapshot(snap, rep), rep, nil)
	}
	return c
}

// judge measures the outcome of a policy in one mode.
type judge struct {
	subj *Subject
	cfg  *Config
	mode Mode
}

// outcome is the outcome of allocation a on snap (nil: ask a fresh policy
// first): the allocation itself, or the shares a simulation realised. An
// infeasible answer is an error wrapping its *models.Violation.
func (j judge) outcome(snap *models.Snapshot, d *fairness.Division, a *models.Allocation) (*fairness.Outcome, error) {
	if j.mode == Realised {
		return realise(j.subj, j.cfg, snap, d)
	}
	if a == nil {
		p, err := j.subj.New()
		if err != nil {
			return nil, err
		}
		alloc, err := p.Allocate(snap)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", j.subj.Name, err)
		}
		if err := models.Feasible(snap, alloc); err != nil {
			return nil, fmt.Errorf("policy %s: infeasible allocation on a misreport: %w", j.subj.Name, err)
		}
		a = &alloc
	}
	return fairness.OutcomeOf(snap, d, *a, j.cfg.Slowdown)
}

// reportedSnapshot is snap with every job's throughputs replaced by its
// speeds in rep (0: cannot run there; the same figure consolidated and
// spread). A job whose reported speeds differ from the truth reports them
// as a job type of its own, "lie-<id>" (with its type's memory and state),
// so that a lie about one job is not a lie about the others of its type.
func reportedSnapshot(snap *models.Snapshot, rep *fairness.Division) *models.Snapshot {
	c := *snap
	c.Jobs = slices.Clone(snap.Jobs)
	m := models.NewMatrix()
	m.Merge(snap.Matrix)
	types := maps.Clone(snap.JobTypes)
	byID := make(map[models.JobID]*fairness.Job, len(rep.Jobs))
	for i := range rep.Jobs {
		byID[rep.Jobs[i].ID] = &rep.Jobs[i]
	}
	for k := range c.Jobs {
		js := &c.Jobs[k]
		dj, ok := byID[js.ID]
		if !ok || !differs(snap, &js.Job, rep.Types, dj.Speed) {
			continue
		}
		name := fmt.Sprintf("lie-%d", js.ID)
		if jt, ok := types[js.Type]; ok {
			jt.Name = name
			types[name] = jt
		}
		js.Type = name
		for g, t := range dj.Speed {
			for _, p := range []models.Placement{models.Consolidated, models.Spread} {
				// Valid by construction: t ≥ 0 and finite, gang > 0.
				_ = m.Set(models.Key{Job: name, GPU: rep.Types[g], Gang: js.Gang, Placement: p}, t, "misreport")
			}
		}
	}
	c.Matrix, c.JobTypes = m, types
	return &c
}

// differs reports whether a report differs from the job's true speeds.
func differs(snap *models.Snapshot, j *models.Job, types []string, speeds []float64) bool {
	for g, t := range speeds {
		if t != snap.Throughput(j, types[g]) {
			return true
		}
	}
	return false
}

// realise simulates snap's jobs under a fresh policy for cfg.Rounds rounds,
// every job present from time 0 and too large to finish, and returns the
// realised outcome: X[j][g] = time on g / horizon, and K[j] = steps done /
// Σ_g T[j][g]·time on g (below 1 when co-location or restores slowed it).
func realise(subj *Subject, cfg *Config, snap *models.Snapshot, d *fairness.Division) (*fairness.Outcome, error) {
	p, err := subj.New()
	if err != nil {
		return nil, err
	}
	round := snap.RoundLength
	horizon := float64(cfg.Rounds) * round.Seconds()
	var jobs []models.Job
	for i := range snap.Jobs {
		j := snap.Jobs[i].Job
		j.Arrival = 0
		_, best := snap.BestThroughput(&j)
		// 1.5 horizons at the best speed: no job can finish in time.
		j.Steps = math.Max(1, best*horizon*1.5)
		jobs = append(jobs, j)
	}
	sc := sim.Config{Cluster: snap.Cluster, Users: snap.Users, Jobs: jobs, Matrix: snap.Matrix,
		JobTypes: snap.JobTypes, Round: round, DefaultSlowdown: cfg.Slowdown}
	tr, _, err := simulate(sc, p, []float64{horizon})
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", subj.Name, err)
	}
	o := fairness.NewOutcome(d)
	at := tr.At[0]
	for j := range d.Jobs {
		st := at[d.Jobs[j].ID]
		nominal := 0.0
		for g, t := range d.Types {
			o.X[j][g] = st.Time[t] / horizon
			nominal += d.Jobs[j].Speed[g] * st.Time[t]
		}
		if nominal > 0 && math.Abs(st.Done-nominal) > 1e-9*nominal {
			for g := range d.Types {
				o.SetFactor(j, g, st.Done/nominal)
			}
		}
	}
	o.Hold(d)
	return o, nil
}
