package reproduce

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"fairbench/models"
	"fairbench/models/catalogue"
	"strconv"
)

// hpoUser is one user of the hyper-parameter-search workload: it searches
// over one job type.
type hpoUser struct {
	Name, JobType string
}

// hpoTrace describes a multi-user hyper-parameter-search trace (Gandiva_fair's
// target workload, Chaudhary et al., EuroSys 2020: "a user submits many
// similar jobs", so a user's speedups are its jobs' speedups).
type hpoTrace struct {
	Users []hpoUser
	// Sweeps per user and jobs per sweep (uniform in [MinJobs, MaxJobs]).
	Sweeps, MinJobs, MaxJobs int
	// Hours over which sweeps arrive (Poisson, the same rate for every user).
	Hours float64
	// Seed of the generator (a fixed number: the trace is a file, the same
	// for every seed of the grid).
	Seed uint64
	// GPUs are the cluster's GPU types: a sweep's gang is drawn among the
	// sizes its job type has a consolidated figure for on every one of them.
	GPUs []string
	// OneGPU makes every job take one GPU (the gang draw still consumes its
	// random number, so the sweeps' arrivals and lengths are unchanged).
	OneGPU bool
}

// Gavel's Philly-like durations (Narayanan et al., OSDI 2020, §7.1; see
// scenarios.PhillyShortProbability): 60·10^U(1.5,3) s w.p. 0.8, else
// 60·10^U(3,4) s.
const (
	hpoShortProbability = 0.8
)

// hpoGangs is the gang distribution of a search's jobs: mostly one GPU, as
// hyper-parameter trials are, some data-parallel on 2 or 4.
var hpoGangs = []struct {
	size   int
	weight float64
}{{1, 0.8}, {2, 0.1}, {4, 0.1}}

// gang draws a gang size for jobType from hpoGangs (x uniform in [0, 1)),
// renormalised over the sizes the job type can run at on every GPU type.
func (h hpoTrace) gang(jobType string, x float64) int {
	m := catalogue.Builtin().Matrix
	var ok []int
	var ws []float64
	var total float64
	for _, g := range hpoGangs {
		all := true
		for _, gpu := range h.GPUs {
			if !m.Runnable(models.Key{Job: jobType, GPU: gpu, Gang: g.size, Placement: models.Consolidated}) {
				all = false
			}
		}
		if all {
			ok, ws = append(ok, g.size), append(ws, g.weight)
			total += g.weight
		}
	}
	if len(ok) == 0 {
		return 1 // the scenario refuses the trace, naming the line
	}
	x *= total
	for i, w := range ws {
		if x < w {
			return ok[i]
		}
		x -= w
	}
	return ok[len(ok)-1]
}

// csv writes the trace in fairbench's CSV trace format (arrival_seconds,
// user, job_type, gang, duration_seconds). Each user's sweeps arrive as a
// Poisson process over Hours; a sweep's jobs arrive together, share one
// job type and gang, and each runs the sweep's base duration (drawn from
// Gavel's Philly-like distribution) times U(0.5, 1.5) — trials of one
// search differ in their hyper-parameters, not in their size. Rows are
// sorted by arrival (ties by user order).
func (h hpoTrace) csv() []byte {
	rng := rand.New(rand.NewPCG(h.Seed, 0x9e3779b97f4a7c15))
	type row struct {
		at     float64
		user   int
		gang   int
		durSec float64
	}
	var rows []row
	rate := float64(h.Sweeps) / h.Hours // sweeps per hour per user
	for u := range h.Users {
		t := 0.0
		for range h.Sweeps {
			t += rng.ExpFloat64() / rate
			n := h.MinJobs + rng.IntN(h.MaxJobs-h.MinJobs+1)
			var base float64
			if rng.Float64() < hpoShortProbability {
				base = 60 * math.Pow(10, 1.5+1.5*rng.Float64())
			} else {
				base = 60 * math.Pow(10, 3+rng.Float64())
			}
			gang := h.gang(h.Users[u].JobType, rng.Float64())
			if h.OneGPU {
				gang = 1
			}
			for range n {
				rows = append(rows, row{at: t * 3600, user: u, gang: gang, durSec: base * (0.5 + rng.Float64())})
			}
		}
	}
	// By arrival; ties keep their order (users in order).
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].at < rows[j].at })
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Multi-user hyper-parameter-search trace written by fairbench reproduce (reports/reproduce/hpo.go):\n")
	fmt.Fprintf(&b, "# %d users, %d sweeps each arriving as a Poisson process over %g hours, %d-%d jobs per sweep,\n", len(h.Users), h.Sweeps, h.Hours, h.MinJobs, h.MaxJobs)
	fmt.Fprintf(&b, "# gangs 1/2/4 w.p. 0.8/0.1/0.1 per sweep, durations Gavel's Philly-like distribution × U(0.5,1.5) per job, seed %d.\n", h.Seed)
	b.WriteString("arrival_seconds,user,job_type,gang,duration_seconds\n")
	for _, r := range rows {
		u := h.Users[r.user]
		fmt.Fprintf(&b, "%s,%s,%q,%d,%s\n", strconv.FormatFloat(math.Round(r.at), 'f', -1, 64), u.Name, u.JobType, r.gang,
			strconv.FormatFloat(math.Round(r.durSec), 'f', -1, 64))
	}
	return b.Bytes()
}
