package sim

import (
	"fmt"
	"math/rand"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
)

// receivedCheck wraps a policy and checks, at every decision, each job's
// Received against what the run so far implies: one entry per type of the
// cluster, the entries adding up to Executed (both count the same time run),
// none shrinking, and one growing only on the type the job runs on now
// (LastType) — a job runs on one type between two decisions and keeps
// running up to the second. Policies that learn from Received (gandiva-fair's
// measured profiling) rely on the last.
type receivedCheck struct {
	solvers.Policy
	last    map[models.JobID]models.Received
	failure string
}

func (c *receivedCheck) Triggers() models.Trigger       { return solvers.TriggersOf(c.Policy) }
func (c *receivedCheck) RoundRules() solvers.RoundRules { return solvers.RoundsOf(c.Policy) }

func (c *receivedCheck) Allocate(s *models.Snapshot) (models.Allocation, error) {
	if c.failure == "" {
		c.failure = c.check(s)
	}
	return c.Policy.Allocate(s)
}

func (c *receivedCheck) check(s *models.Snapshot) string {
	next := map[models.JobID]models.Received{}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		var sum int64
		seen := map[string]bool{}
		for _, e := range j.Received {
			if _, ok := s.Cluster.Type(e.Type); !ok || seen[e.Type] || e.Time < 0 {
				return fmt.Sprintf("t=%v job %d: entry %+v (a type twice, not the cluster's, or negative) in %v", s.Now, j.ID, e, j.Received)
			}
			seen[e.Type] = true
			sum += int64(e.Time)
			if was := c.last[j.ID].On(e.Type); e.Time < was || (e.Time > was && e.Type != j.LastType) {
				return fmt.Sprintf("t=%v job %d: %s went from %v to %v, running on %q", s.Now, j.ID, e.Type, was, e.Time, j.LastType)
			}
		}
		if sum != int64(j.Executed) {
			return fmt.Sprintf("t=%v job %d: received %v in all, executed %v", s.Now, j.ID, sum, j.Executed)
		}
		next[j.ID] = append(models.Received(nil), j.Received...)
	}
	c.last = next
	return ""
}

func TestReceivedAddsUp(t *testing.T) {
	grew := 0
	for seed := int64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		cfg := randomConfig(rng)
		inner := []solvers.Policy{inOrder{everyEvent}, inOrder{models.AtRound}, fractional{}, sharing{}}[seed%4]
		if _, ok := inner.(sharing); ok {
			addRandomPairs(rng, cfg.Matrix)
		}
		c := &receivedCheck{Policy: inner}
		if _, err := Run(cfg, c); err != nil {
			t.Fatalf("seed %d (%s): %v", seed, inner.Name(), err)
		}
		if c.failure != "" {
			t.Fatalf("seed %d (%s): %s", seed, inner.Name(), c.failure)
		}
		for _, r := range c.last {
			grew += len(r)
		}
	}
	if grew == 0 {
		t.Error("no job had received time at a decision: the check saw nothing")
	}
}
