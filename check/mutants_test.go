package check

import (
	"math"
	"strings"
	"testing"

	"fairbench/models"
)

// Planted bugs of the first instance space (one job per user, every user
// active). Each mutant breaks one property of a correct reference; the test
// asserts the checker catches it within the default case budget on that
// space (classicCfg: 100 random cases, bound 1) and that the reference
// holds under the same budget. widened_test.go plants bugs in the classes
// of the widened space.

// market is Gandiva_fair's trading (Chaudhary et al., EuroSys 2020, §4) on
// the fractional shares of users whose jobs are alike: every user starts
// with its weighted share of every type; over each pair of types (faster
// ranked h, slower l) the user with the highest speedup r = T[h]/T[l] buys
// fast share from the one with the lowest, paying p slow GPUs per fast GPU,
// with the volume bounded by what each side holds and can use (its jobs'
// Σ gang); then each user's jobs fill its bundle, fastest types first.
// price(rBuyer, rSeller) picks p: a correct market has rSeller ≤ p ≤ rBuyer.
func market(price func(rb, rs float64) float64) func(s *models.Snapshot) (models.Allocation, error) {
	return func(s *models.Snapshot) (models.Allocation, error) {
		types := s.Cluster.TypeNames()
		total := 0.0
		for _, u := range s.Users {
			total += u.Weight
		}
		bundle := map[string]map[string]float64{}
		demand := map[string]float64{}
		first := map[string]*models.JobState{}
		for i := range s.Jobs {
			j := &s.Jobs[i]
			demand[j.User] += float64(j.Gang)
			if first[j.User] == nil {
				first[j.User] = j
			}
		}
		var users []string
		for _, u := range s.Users {
			if first[u.Name] == nil {
				continue
			}
			users = append(users, u.Name)
			bundle[u.Name] = map[string]float64{}
			for _, g := range types {
				bundle[u.Name][g] = u.Weight / total * float64(s.Cluster.Capacity(g))
			}
		}
		held := func(u string) float64 {
			t := 0.0
			for _, v := range bundle[u] {
				t += v
			}
			return t
		}
		for hi := 0; hi < len(types); hi++ {
			for lo := len(types) - 1; lo > hi; lo-- {
				h, l := types[hi], types[lo]
				speedup := func(u string) float64 {
					j := first[u]
					th, tl := s.Throughput(&j.Job, h), s.Throughput(&j.Job, l)
					if th <= 0 || tl <= 0 {
						return math.NaN()
					}
					return th / tl
				}
				buyer, seller := "", ""
				for _, u := range users {
					r := speedup(u)
					if math.IsNaN(r) {
						continue
					}
					if buyer == "" || r > speedup(buyer) {
						buyer = u
					}
					if seller == "" || r < speedup(seller) {
						seller = u
					}
				}
				if buyer == "" || speedup(buyer) <= speedup(seller) {
					continue
				}
				p := price(speedup(buyer), speedup(seller))
				v := math.Min(bundle[buyer][l]/p, bundle[seller][h])
				if p > 1 { // the seller ends up with more GPUs
					v = math.Min(v, (demand[seller]-held(seller))/(p-1))
				}
				if p < 1 { // the buyer does
					v = math.Min(v, (demand[buyer]-held(buyer))/(1-p))
				}
				if v <= 1e-12 {
					continue
				}
				bundle[buyer][l] -= p * v
				bundle[buyer][h] += v
				bundle[seller][l] += p * v
				bundle[seller][h] -= v
			}
		}
		fr := map[models.JobID]map[string]float64{}
		for i := range s.Jobs {
			j := &s.Jobs[i]
			if x := fill(s, j, bundle[j.User]); len(x) > 0 {
				fr[j.ID] = x
			}
		}
		return models.Allocation{Fractions: fr, Capped: true}, nil
	}
}

// tradeLimits: users of 2–3 alike single-GPU jobs that run on every type,
// on small clusters, so that demand exceeds shares and trades happen.
func tradeLimits() Limits {
	return Limits{MaxUsers: 3, MaxTypes: 3, MaxGPUs: 2, MaxJobsPerUser: 3, IdenticalJobs: true,
		Gangs: []int{1}, Weights: []float64{1, 2}, Speeds: []float64{1, 2, 3, 4, 6, 8}}
}

func TestMutantTradeOutsideSpeedups(t *testing.T) {
	t.Parallel()
	cfg := Config{Props: []string{SharingIncentive, Feasible}, Seed: 1, Cases: DefaultCases, Limits: tradeLimits()}
	secondPrice := func(rb, rs float64) float64 { return rs }
	rep, err := Run(subject("market", []string{SharingIncentive}, market(secondPrice)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != Holds {
			t.Errorf("correct market: %s %s: %s\n%s", r.Property, r.Status, r.Reason, r.Instance.Note)
		}
	}
	overpay := func(rb, rs float64) float64 { return 2 * rb }
	rep, err = Run(subject("market-overpays", []string{SharingIncentive}, market(overpay)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := result(t, rep, SharingIncentive)
	if r.Status != Violated {
		t.Fatalf("trading at twice the buyer's speedup not caught: %s %s", r.Status, r.Method)
	}
	t.Logf("caught after %d random instances, shrunk %d steps: %s\n  %s", r.Random, r.Shrinks, r.Reason, r.Instance.Note)
}

func TestMutantDropsCapacity(t *testing.T) {
	t.Parallel()
	// Every job gets all its time on its fastest type, whoever else wants it.
	greedy := func(s *models.Snapshot) (models.Allocation, error) {
		fr := map[models.JobID]map[string]float64{}
		for i := range s.Jobs {
			if ts := typesBySpeed(s, &s.Jobs[i]); len(ts) > 0 {
				fr[s.Jobs[i].ID] = map[string]float64{ts[0]: 1}
			}
		}
		return models.Allocation{Fractions: fr}, nil
	}
	rep, err := Run(subject("no-capacity", nil, greedy), classicCfg(Feasible))
	if err != nil {
		t.Fatal(err)
	}
	r := result(t, rep, Feasible)
	if r.Status != Violated || !strings.Contains(r.Reason, "N_g") || rep.ExitCode() != 1 {
		t.Fatalf("dropped capacity constraint not caught: %s %q", r.Status, r.Reason)
	}
	t.Logf("caught at exhaustive instance %d: %s", r.Exhaustive, r.Reason)
}

func TestMutantIgnoresWeights(t *testing.T) {
	t.Parallel()
	unweighted := func(s *models.Snapshot) (models.Allocation, error) {
		c := *s
		c.Users = append([]models.User(nil), s.Users...)
		for i := range c.Users {
			c.Users[i].Weight = 1
		}
		return partition(&c)
	}
	rep, err := Run(subject("unweighted", nil, unweighted), classicCfg(SharingIncentive))
	if err != nil {
		t.Fatal(err)
	}
	if r := result(t, rep, SharingIncentive); r.Status != Violated {
		t.Fatalf("ignored weights not caught: %s", r.Status)
	}
}

func TestMutantGivesLeftoversToOne(t *testing.T) {
	t.Parallel()
	// Work-conserving partition, done wrong: every GPU left idle goes to the
	// first user's first job (envy), before the others' jobs fill up.
	leftovers := func(s *models.Snapshot) (models.Allocation, error) {
		a, err := partition(s)
		if err != nil || len(s.Jobs) == 0 {
			return a, err
		}
		free := map[string]float64{}
		for _, g := range s.Cluster.TypeNames() {
			free[g] = float64(s.Cluster.Capacity(g))
		}
		used := map[models.JobID]float64{}
		for i := range s.Jobs {
			j := &s.Jobs[i]
			for g, x := range a.Fractions[j.ID] {
				free[g] -= x * float64(j.Gang)
				used[j.ID] += x
			}
		}
		lucky := &s.Jobs[0]
		if a.Fractions[lucky.ID] == nil {
			a.Fractions[lucky.ID] = map[string]float64{}
		}
		left := 1 - used[lucky.ID]
		for _, g := range typesBySpeed(s, lucky) {
			x := math.Min(left, free[g]/float64(lucky.Gang))
			if x > 1e-12 {
				a.Fractions[lucky.ID][g] += x
				left -= x
			}
		}
		a.Capped = true
		return a, nil
	}
	rep, err := Run(subject("leftovers", nil, leftovers), classicCfg(EnvyFree, SharingIncentive))
	if err != nil {
		t.Fatal(err)
	}
	if r := result(t, rep, EnvyFree); r.Status != Violated {
		t.Fatalf("leftovers to one user not caught as envy: %s", r.Status)
	} else {
		t.Logf("envy: %s", r.Reason)
	}
	if r := result(t, rep, SharingIncentive); r.Status != Holds {
		t.Errorf("leftovers keep sharing incentive, got %s: %s", r.Status, r.Reason)
	}
}

func TestMutantRewardsExaggeration(t *testing.T) {
	t.Parallel()
	// The fastest type of the cluster goes to jobs in proportion to their
	// reported speed there over their speed on the slowest type they can
	// run on: exaggerating the speedup pays.
	proportional := func(s *models.Snapshot) (models.Allocation, error) {
		a, err := partition(s)
		if err != nil || len(s.Jobs) < 2 {
			return a, err
		}
		types := s.Cluster.TypeNames()
		fast := types[0]
		var sum float64
		ratio := map[models.JobID]float64{}
		for i := range s.Jobs {
			j := &s.Jobs[i]
			ts := typesBySpeed(s, j)
			if tf := s.Throughput(&j.Job, fast); tf > 0 && len(ts) > 0 {
				ratio[j.ID] = tf / s.Throughput(&j.Job, ts[len(ts)-1])
				sum += ratio[j.ID]
			}
		}
		if sum == 0 {
			return a, nil
		}
		n := float64(s.Cluster.Capacity(fast))
		for i := range s.Jobs {
			j := &s.Jobs[i]
			x := a.Fractions[j.ID]
			if x == nil {
				x = map[string]float64{}
				a.Fractions[j.ID] = x
			}
			other := 0.0
			for g, v := range x {
				if g != fast {
					other += v
				}
			}
			x[fast] = math.Min(1-other, ratio[j.ID]/sum*n/float64(j.Gang))
			if x[fast] <= 0 {
				delete(x, fast)
			}
		}
		return a, nil
	}
	rep, err := Run(subject("proportional", nil, proportional), classicCfg(StrategyProof, Feasible))
	if err != nil {
		t.Fatal(err)
	}
	if r := result(t, rep, StrategyProof); r.Status != Violated {
		t.Fatalf("reward for exaggeration not caught: %s", r.Status)
	} else {
		t.Logf("lie: %s", r.Reason)
	}
	rep, err = Run(subject("partition", nil, partition), classicCfg(StrategyProof, SharingIncentive, EnvyFree))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != Holds {
			t.Errorf("reference partition: %s %s: %s", r.Property, r.Status, r.Reason)
		}
	}
}
