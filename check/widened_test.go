package check

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers/lp"
)

// Planted bugs in the classes of the widened instance space (docs/checker.md:
// non-integer weights, users with several jobs, users with no active job,
// servers with count > 1, jobs sharing a job type, history at round > 0, and
// a lie that needs a ×50 exaggeration). Each mutant breaks fairPartition,
// which is correct on every instance, in one class only; the test asserts
// the default budget (bound 2, 100 random cases) catches it, and that the
// reference itself passes (no false positive).

// partitionOptions are the knobs the mutants turn.
type partitionOptions struct {
	weight   func(w float64) float64                    // the weight a user counts with
	users    func(s *models.Snapshot) []models.User     // the users the cluster is split among
	capacity func(s *models.Snapshot, g string) float64 // the GPUs of a type
	jobs     func(jobs []*models.JobState) []*models.JobState
	after    func(s *models.Snapshot, a models.Allocation)
}

// activeUsers are the users with at least one active job.
func activeUsers(s *models.Snapshot) []models.User {
	active := map[string]bool{}
	for i := range s.Jobs {
		active[s.Jobs[i].User] = true
	}
	var out []models.User
	for _, u := range s.Users {
		if active[u.Name] {
			out = append(out, u)
		}
	}
	return out
}

// fairPartition gives every active user w_u/Σw of every type (the sum over
// active users) and uses that slice at its best: the transportation LP
// max Σ_j Σ_g (T[j][g]/max_h T[j][h])·x[j][g] over the user's jobs, with
// Σ_g x[j][g] ≤ 1 and Σ_j d_j·x[j][g] ≤ slice[g]. It is sharing-incentive
// (U_u = V_u(slice)), envy-free (another's bundle, scaled by the weights,
// is at most the same slice) and strategy-proof (a user's slice does not
// depend on any report, and its own reports only steer the LP away from
// its best use); not Pareto efficient.
func fairPartition(o partitionOptions) func(s *models.Snapshot) (models.Allocation, error) {
	if o.weight == nil {
		o.weight = func(w float64) float64 { return w }
	}
	if o.users == nil {
		o.users = activeUsers
	}
	if o.capacity == nil {
		o.capacity = func(s *models.Snapshot, g string) float64 { return float64(s.Cluster.Capacity(g)) }
	}
	if o.jobs == nil {
		o.jobs = func(j []*models.JobState) []*models.JobState { return j }
	}
	return func(s *models.Snapshot) (models.Allocation, error) {
		a := models.Allocation{Fractions: map[models.JobID]map[string]float64{}}
		total := 0.0
		for _, u := range o.users(s) {
			total += o.weight(u.Weight)
		}
		for _, u := range activeUsers(s) {
			var jobs []*models.JobState
			for i := range s.Jobs {
				if s.Jobs[i].User == u.Name {
					jobs = append(jobs, &s.Jobs[i])
				}
			}
			slice := map[string]float64{}
			for _, g := range s.Cluster.TypeNames() {
				slice[g] = o.weight(u.Weight) / total * o.capacity(s, g)
			}
			if err := bestUse(s, o.jobs(jobs), slice, a.Fractions); err != nil {
				return a, err
			}
		}
		if o.after != nil {
			o.after(s, a)
		}
		return a, nil
	}
}

// bestUse solves one user's transportation LP into fr.
func bestUse(s *models.Snapshot, jobs []*models.JobState, slice map[string]float64, fr map[models.JobID]map[string]float64) error {
	inf := math.Inf(1)
	types := s.Cluster.TypeNames()
	p := &lp.Problem{Sense: lp.Maximize}
	caps := make([]lp.Row, len(types))
	for g, t := range types {
		caps[g] = lp.Row{Lower: -inf, Upper: math.Max(0, slice[t])}
	}
	type col struct {
		id models.JobID
		t  string
	}
	var cols []col
	for _, j := range jobs {
		_, best := s.BestThroughput(&j.Job)
		row := lp.Row{Lower: -inf, Upper: 1}
		for g, t := range types {
			if tp := s.Throughput(&j.Job, t); tp > 0 && best > 0 {
				row.Coefs = append(row.Coefs, lp.Term{Var: len(p.Vars), Coef: 1})
				caps[g].Coefs = append(caps[g].Coefs, lp.Term{Var: len(p.Vars), Coef: float64(j.Gang)})
				p.Vars = append(p.Vars, lp.Var{Upper: inf, Obj: tp / best})
				cols = append(cols, col{j.ID, t})
			}
		}
		p.Rows = append(p.Rows, row)
	}
	p.Rows = append(p.Rows, caps...)
	res, err := lp.Default().Solve(p, lp.Options{})
	if err != nil {
		return fmt.Errorf("fair partition: %w", err)
	}
	for v, c := range cols {
		if x := res.X[v]; x > 1e-12 {
			if fr[c.id] == nil {
				fr[c.id] = map[string]float64{}
			}
			fr[c.id][c.t] = x
		}
	}
	return nil
}

// widenedMutants are the planted bugs, each with the class it lives in and
// the property that must catch it.
var widenedMutants = []struct {
	name, class, catches string
	opts                 partitionOptions
}{
	{"integer-weights", "non-integer weights", SharingIncentive, partitionOptions{
		// Weights truncated to integers (at least 1): 1.5 counts as 1.
		weight: func(w float64) float64 { return math.Max(1, math.Floor(w)) }}},
	{"first-job-only", "users with several jobs", SharingIncentive, partitionOptions{
		// Only a user's first job gets its slice.
		jobs: func(j []*models.JobState) []*models.JobState { return j[:1] }}},
	{"idle-users-counted", "users with no active job", SharingIncentive, partitionOptions{
		// The cluster is split among every user, active or not: an idle
		// user's slice stays idle.
		users: func(s *models.Snapshot) []models.User { return s.Users }}},
	{"one-server-capacity", "servers with count > 1", SharingIncentive, partitionOptions{
		// A type's capacity read as its largest server's GPUs.
		capacity: func(s *models.Snapshot, g string) float64 { return float64(s.Cluster.MaxServerGPUs(g)) }}},
	{"per-job-type", "jobs sharing a job type", Feasible, partitionOptions{
		// Decided per job type: every job of a type gets the fractions of
		// the type's first job.
		after: func(s *models.Snapshot, a models.Allocation) {
			first := map[string]models.JobID{}
			for i := range s.Jobs {
				j := &s.Jobs[i]
				if id, ok := first[j.Type]; ok {
					a.Fractions[j.ID] = a.Fractions[id]
				} else {
					first[j.Type] = j.ID
				}
			}
		}}},
	{"history-penalty", "history at round > 0 (received)", SharingIncentive, partitionOptions{
		// A job that has run before gets half its share.
		after: func(s *models.Snapshot, a models.Allocation) {
			for i := range s.Jobs {
				if len(s.Jobs[i].Received) > 0 {
					for g := range a.Fractions[s.Jobs[i].ID] {
						a.Fractions[s.Jobs[i].ID][g] /= 2
					}
				}
			}
		}}},
	{"sticky-last-type", "history at round > 0 (last_type)", SharingIncentive, partitionOptions{
		// A job that ran before keeps only its time on the type it ran on
		// last.
		after: func(s *models.Snapshot, a models.Allocation) {
			for i := range s.Jobs {
				j := &s.Jobs[i]
				if j.LastType == "" || a.Fractions[j.ID] == nil {
					continue
				}
				a.Fractions[j.ID] = map[string]float64{j.LastType: a.Fractions[j.ID][j.LastType]}
			}
		}}},
	{"reward-speedup-50", "a lie needing a ×50 exaggeration", StrategyProof, partitionOptions{
		// A user whose job reports a speedup (fastest over slowest figure)
		// of at least 50 counts twice: truthful speeds (1 to 8) never
		// trigger it, a ×50 lie does.
		weight: nil, users: nil}},
}

// speedupUsers is the weight rule of reward-speedup-50, applied per
// snapshot (it needs the jobs' reports).
func speedupWeights(s *models.Snapshot) map[string]float64 {
	out := map[string]float64{}
	for _, u := range s.Users {
		out[u.Name] = u.Weight
	}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		lo, hi := math.Inf(1), 0.0
		for _, g := range s.Cluster.TypeNames() {
			if t := s.Throughput(&j.Job, g); t > 0 {
				lo, hi = math.Min(lo, t), math.Max(hi, t)
			}
		}
		if hi >= 50*lo {
			out[j.User] = 2 * s.Users[userIndex(s, j.User)].Weight
		}
	}
	return out
}

func userIndex(s *models.Snapshot, name string) int {
	for i, u := range s.Users {
		if u.Name == name {
			return i
		}
	}
	return -1
}

// mutantPolicy builds a mutant's allocation function.
func mutantPolicy(name string, o partitionOptions) func(s *models.Snapshot) (models.Allocation, error) {
	if name != "reward-speedup-50" {
		return fairPartition(o)
	}
	return func(s *models.Snapshot) (models.Allocation, error) {
		w := speedupWeights(s)
		c := *s
		c.Users = append([]models.User(nil), s.Users...)
		for i := range c.Users {
			c.Users[i].Weight = w[c.Users[i].Name]
		}
		return fairPartition(partitionOptions{})(&c)
	}
}

// widenedProps are the properties every widened mutant claims.
var widenedProps = []string{Feasible, SharingIncentive, EnvyFree, StrategyProof}

func TestWidenedReferenceHolds(t *testing.T) {
	t.Parallel()
	subj := subject("fair-partition", widenedProps[1:], fairPartition(partitionOptions{}))
	start := time.Now()
	rep, err := Run(subj, dflt(widenedProps...))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != Holds {
			t.Errorf("fair partition %s: %s: %s", r.Property, r.Status, r.Reason)
		}
	}
	t.Logf("fair partition: %d instances, every claim holds, %.1fs", rep.Instances, time.Since(start).Seconds())
}

func TestWidenedMutantsAreCaught(t *testing.T) {
	t.Parallel()
	for _, m := range widenedMutants {
		t.Run(m.name, func(t *testing.T) {
			subj := subject(m.name, widenedProps[1:], mutantPolicy(m.name, m.opts))
			start := time.Now()
			rep, err := Run(subj, dflt(m.catches))
			if err != nil {
				t.Fatal(err)
			}
			r := result(t, rep, m.catches)
			if r.Status != Violated || rep.ExitCode() != 1 {
				t.Fatalf("%s (%s) not caught by %s: %s %s", m.name, m.class, m.catches, r.Status, r.Reason)
			}
			if m.catches == StrategyProof && !strings.Contains(r.Reason, "rechecked: the same report gains again") {
				t.Errorf("the lie was not rechecked exactly: %s", r.Reason)
			}
			how := fmt.Sprintf("exhaustive instance %d", r.Exhaustive)
			if r.Random > 0 {
				how = fmt.Sprintf("random instance %d", r.Random)
			}
			t.Logf("%s (%s): %s caught at %s, %.2fs on that property (%.1fs the whole check), shrunk %d steps: %s",
				m.name, m.class, m.catches, how, r.Seconds, time.Since(start).Seconds(), r.Shrinks, r.Reason)
		})
	}
}
