package themis

import (
	"fmt"
	"math"
	"sort"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// Registered name and summary.
const (
	Name    = "themis"
	Summary = "Themis (Mahajan et al., NSDI 2020): GPU leases auctioned each round to the jobs with the worst finish-time fairness ρ by a partial-allocation auction over 1/ρ, leftovers to the rest"
)

// Options are themis's settings (the keys of the scenario file's options
// map):
//
//	fairness: 0.8        the fairness knob f: the 1−f fraction of waiting jobs with
//	                     the worst ρ bid in each auction (0: all of them)
//	lease_rounds: 3      a lease's length in rounds (won bundles hold c_i of it)
//	backend: auto        auto | coin | pure, the MIP backend of the auctions
//	time_limit: 1m       solver time for one decision; 0 means none
type Options struct {
	Fairness    float64       `mapstructure:"fairness"`
	LeaseRounds int           `mapstructure:"lease_rounds"`
	Backend     string        `mapstructure:"backend"`
	TimeLimit   time.Duration `mapstructure:"time_limit"`
}

// DefaultOptions are fairbench's defaults (the paper sweeps the knob and
// the lease; see docs/algorithms/themis.md).
func DefaultOptions() Options {
	return Options{Fairness: 0.8, LeaseRounds: 3, Backend: "auto", TimeLimit: time.Minute}
}

// lease is a job's hold on a whole gang of one type, until round Until.
type lease struct {
	Type  string
	Until int
}

// Stats is what themis reports over a run (solvers.Reporter).
type Stats struct {
	Decisions int `json:"decisions"`
	Auctions  int `json:"auctions"`
	Bids      int `json:"bids"`
	Won       int `json:"won"`
	// Kept is the sum over winners of the lease rounds they kept, and
	// Withheld the rounds withheld from them (the hidden payments).
	Kept     int `json:"kept_rounds"`
	Withheld int `json:"withheld_rounds"`
	Leftover int `json:"leftover_leases"`
}

// Policy is themis: a leaseholder that runs an auction whenever GPUs are
// free. It keeps the leases between decisions.
type Policy struct {
	opt     Options
	backend lp.Solver
	leases  map[models.JobID]lease
	stats   Stats
}

// New builds themis from Options.
func New(c solvers.Config) (solvers.Policy, error) {
	o := DefaultOptions()
	if err := c.Decode(&o); err != nil {
		return nil, fmt.Errorf("%s: options: %w", Name, err)
	}
	switch {
	case !(o.Fairness >= 0 && o.Fairness < 1):
		return nil, fmt.Errorf("%s: options: fairness must be in [0, 1), got %v", Name, o.Fairness)
	case o.LeaseRounds < 1:
		return nil, fmt.Errorf("%s: options: lease_rounds must be ≥ 1, got %d", Name, o.LeaseRounds)
	case o.TimeLimit < 0:
		return nil, fmt.Errorf("%s: options: time_limit must not be negative, got %v", Name, o.TimeLimit)
	}
	def := lp.Default()
	var b lp.Solver
	switch o.Backend {
	case "auto":
		b = def
	case "pure":
		b = lp.Pure{}
	case "coin":
		if def.Name() == (lp.Pure{}).Name() {
			return nil, fmt.Errorf("%s: options: backend coin: this build has no COIN-OR (built without cgo)", Name)
		}
		b = def
	default:
		return nil, fmt.Errorf("%s: options: backend must be auto, coin or pure, got %q", Name, o.Backend)
	}
	return &Policy{opt: o, backend: b, leases: map[models.JobID]lease{}}, nil
}

// Name is the registered name.
func (p *Policy) Name() string { return Name }

// Triggers: rounds (leases expire at round starts), arrivals and
// completions (GPUs that free up are auctioned at once).
func (p *Policy) Triggers() models.Trigger {
	return models.AtRound | models.AtArrival | models.AtCompletion
}

// Report returns the run's Stats.
func (p *Policy) Report() any { st := p.stats; return &st }

// job is one active job's finish-time view.
type job struct {
	i       int     // index in the snapshot
	tid     float64 // T_id: its time alone on 1/n of every type, seconds
	elapsed float64 // seconds since arrival
	rem     float64 // steps left
	speed   []float64
	fair    float64 // throughput on 1/n of every type
	rhoNow  float64 // ρ if it ran at its fair-share speed (or its leased speed) from now on
}

// rho is the finish-time fairness the job would have holding a whole gang
// of a type of throughput t from now on: (elapsed + rem/t) / T_id.
func (j *job) rho(t float64) float64 { return (j.elapsed + j.rem/t) / j.tid }

// Allocate expires leases, auctions the free GPUs among the jobs with the
// worst ρ, gives what is left to the other waiting jobs, and returns every
// leased job's placement.
func (p *Policy) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p.stats.Decisions++
	types := s.Cluster.TypeNames()
	free := make([]float64, len(types))
	for g, t := range types {
		free[g] = float64(s.Cluster.Capacity(t))
	}
	typeIdx := map[string]int{}
	for g, t := range types {
		typeIdx[t] = g
	}
	active := map[models.JobID]int{}
	for i := range s.Jobs {
		active[s.Jobs[i].ID] = i
	}
	for _, id := range sortedIDs(p.leases) {
		l := p.leases[id]
		i, ok := active[id]
		if !ok || s.Trigger&models.AtRound != 0 && s.Round >= l.Until {
			delete(p.leases, id)
			continue
		}
		free[typeIdx[l.Type]] -= float64(s.Jobs[i].Gang)
	}
	jobs := p.views(s, types)
	var waiting []*job
	for k := range jobs {
		if _, held := p.leases[s.Jobs[jobs[k].i].ID]; !held {
			waiting = append(waiting, &jobs[k])
		}
	}
	sort.SliceStable(waiting, func(a, b int) bool {
		if waiting[a].rhoNow != waiting[b].rhoNow {
			return waiting[a].rhoNow > waiting[b].rhoNow
		}
		return s.Jobs[waiting[a].i].ID < s.Jobs[waiting[b].i].ID
	})
	if len(waiting) > 0 && anyFree(free) {
		n := int(math.Ceil((1 - p.opt.Fairness) * float64(len(waiting))))
		if err := p.auction(s, types, free, waiting[:n]); err != nil {
			return models.Allocation{}, err
		}
		p.leftover(s, types, free, waiting[n:])
	}
	var run []models.Assignment
	for _, id := range sortedIDs(p.leases) {
		run = append(run, models.Assignment{Job: id, Type: p.leases[id].Type})
	}
	return models.Allocation{Run: run}, nil
}

// views computes every active job's T_id, elapsed time, remaining steps,
// speeds and current ρ. T_id uses the job's throughput on 1/n of every type
// with n the active jobs now (the simulator's isolated JCT uses n averaged
// over the job's lifetime, which a decision cannot know).
func (p *Policy) views(s *models.Snapshot, types []string) []job {
	n := float64(len(s.Jobs))
	out := make([]job, len(s.Jobs))
	for i := range s.Jobs {
		j := &s.Jobs[i]
		v := job{i: i, elapsed: math.Max(0, (s.Now - j.Arrival).Seconds()), rem: j.Remaining(), speed: make([]float64, len(types))}
		fair := s.EqualShareThroughput(&j.Job, 1/n)
		v.fair = fair
		for g, t := range types {
			v.speed[g] = s.Throughput(&j.Job, t)
		}
		v.tid = math.Inf(1)
		if fair > 0 {
			v.tid = j.Steps / fair
		}
		now := fair
		if l, ok := p.leases[j.ID]; ok {
			now = s.Throughput(&j.Job, l.Type)
		}
		v.rhoNow = math.Inf(1)
		if now > 0 && v.tid > 0 && !math.IsInf(v.tid, 1) {
			v.rhoNow = v.rho(now)
		}
		out[i] = v
	}
	return out
}

// auction runs the partial-allocation auction among the bidders over the
// free GPUs and grants each winner a lease of round(c_i·L) rounds.
func (p *Policy) auction(s *models.Snapshot, types []string, free []float64, bidders []*job) error {
	a := &auction{free: free, backend: p.backend}
	if p.opt.TimeLimit > 0 {
		a.limit = time.Now().Add(p.opt.TimeLimit)
	}
	wait := float64(p.opt.LeaseRounds) * s.RoundLength.Seconds()
	for _, b := range bidders {
		bd := bidder{gang: float64(s.Jobs[b.i].Gang), value: make([]float64, len(types)),
			none: -math.Log((b.elapsed + wait + b.rem/b.fair) / b.tid)}
		for g, t := range b.speed {
			bd.value[g] = math.Inf(-1)
			if t > 0 && !math.IsInf(b.tid, 1) {
				bd.value[g] = -math.Log(b.rho(t))
			}
		}
		a.bidders = append(a.bidders, bd)
	}
	win, keep, err := a.partial()
	if err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	p.stats.Auctions++
	p.stats.Bids += len(bidders)
	for k, g := range win {
		if g < 0 {
			continue
		}
		p.stats.Won++
		rounds := int(math.Round(keep[k] * float64(p.opt.LeaseRounds)))
		p.stats.Kept += rounds
		p.stats.Withheld += p.opt.LeaseRounds - rounds
		if rounds == 0 {
			continue
		}
		j := &s.Jobs[bidders[k].i]
		p.leases[j.ID] = lease{Type: types[g], Until: s.Round + rounds}
		free[g] -= float64(j.Gang)
	}
	return nil
}

// leftover gives the GPUs still free (unsold, or withheld as hidden
// payments) to the jobs that did not bid, worst ρ first, each on the
// fastest type that still holds its gang, for a full lease (work
// conservation).
func (p *Policy) leftover(s *models.Snapshot, types []string, free []float64, rest []*job) {
	for _, v := range rest {
		j := &s.Jobs[v.i]
		best := -1
		for g, t := range v.speed {
			if t > 0 && free[g] >= float64(j.Gang) && (best < 0 || t > v.speed[best]) {
				best = g
			}
		}
		if best < 0 {
			continue
		}
		p.leases[j.ID] = lease{Type: types[best], Until: s.Round + p.opt.LeaseRounds}
		free[best] -= float64(j.Gang)
		p.stats.Leftover++
	}
}

func anyFree(free []float64) bool {
	for _, f := range free {
		if f > 0 {
			return true
		}
	}
	return false
}

func sortedIDs(m map[models.JobID]lease) []models.JobID {
	ids := make([]models.JobID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	return ids
}

var (
	_ solvers.Policy    = (*Policy)(nil)
	_ solvers.Triggered = (*Policy)(nil)
	_ solvers.Reporter  = (*Policy)(nil)
)
