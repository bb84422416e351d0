package gandivafair_test

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/gandivafair"
)

// shareTolerance is the observable bound on shares: over a long run
// each user's GPU time is within 2% of its entitlement.
const shareTolerance = 0.02

// jobsOf makes n jobs of user u, IDs from first, all arriving at 0.
func jobsOf(first, n int, u, typ string, gang int, steps float64) []models.Job {
	var out []models.Job
	for i := range n {
		out = append(out, models.Job{ID: models.JobID(first + i), User: u, Type: typ, Gang: gang, Steps: steps})
	}
	return out
}

func servers(typ string, n, gpus int) []models.Server {
	return slices.Repeat([]models.Server{{Type: typ, GPUs: gpus}}, n)
}

// recorder collects a run's events.
type recorder struct{ events []sim.Event }

func (r *recorder) on(e sim.Event) { r.events = append(r.events, e) }

// firstFinish is the time of the first completion.
func (r *recorder) firstFinish() float64 {
	for _, e := range r.events {
		if e.Kind == sim.Finish {
			return e.Time
		}
	}
	return math.Inf(1)
}

// held is each user's GPU-seconds held in [0, until).
func (r *recorder) held(user map[models.JobID]string, until float64) map[string]float64 {
	type run struct {
		from float64
		n    int
	}
	cur := map[models.JobID]run{}
	out := map[string]float64{}
	stop := func(id models.JobID, t float64) {
		if x, ok := cur[id]; ok {
			out[user[id]] += float64(x.n) * (math.Min(t, until) - math.Min(x.from, until))
			delete(cur, id)
		}
	}
	for _, e := range r.events {
		switch e.Kind {
		case sim.Start, sim.Resume, sim.Migrate:
			stop(e.Job, e.Time)
			cur[e.Job] = run{e.Time, len(e.GPUs)}
		case sim.Preempt, sim.Vacate, sim.Finish:
			stop(e.Job, e.Time)
		}
	}
	return out
}

// checkWindow checks each user's fraction of the cluster's GPU time from t=0
// to the first completion (every user has all its jobs then) against want.
func checkWindow(t *testing.T, name string, r *recorder, jobs []models.Job, gpus float64, want map[string]float64) {
	t.Helper()
	user := map[models.JobID]string{}
	for _, j := range jobs {
		user[j.ID] = j.User
	}
	until := r.firstFinish()
	held := r.held(user, until)
	for _, u := range slices.Sorted(maps.Keys(want)) {
		got := held[u] / (gpus * until)
		t.Logf("%s: over [0, %.0f s) %s held %.4f of the cluster, entitled to %.4f", name, until, u, got, want[u])
		if math.Abs(got/want[u]-1) > shareTolerance {
			t.Errorf("%s: %s held %.4f of the cluster before the first completion, want %.4f ± 2%%", name, u, got, want[u])
		}
	}
}

// Homogeneous cluster, equal tickets, enough demand: 2 servers of 4 V100,
// users A, B, C with eight unit jobs each (1 step/s anywhere). Shares 8/3
// GPUs each (per-GPU tickets 1/3); every job gets a third of a GPU, so all
// finish together at 3 × steps. Each user's GPU time must be within 2% of
// its entitlement (the simulator's water-filled share of the cluster), over
// the whole run and, measured from the event log, over the time before the
// first completion (1/3 of the cluster each).
//
// The mixed case gives A gang-1, B gang-2 and C gang-4 jobs (8, 4 and 2 of
// them: 8 GPUs of demand each), with steps scaled so that every job needs
// the same GPU time.
func TestSimEqualShares(t *testing.T) {
	t.Parallel()
	us := users("A", "B", "C")
	c := cluster(t, servers("V100", 2, 4)...)
	cases := map[string][]models.Job{
		"gang 1": slices.Concat(jobsOf(100, 8, "A", "unit", 1, 36000), jobsOf(200, 8, "B", "unit", 1, 36000),
			jobsOf(300, 8, "C", "unit", 1, 36000)),
		"gangs 1, 2, 4": slices.Concat(jobsOf(100, 8, "A", "unit", 1, 36000), jobsOf(200, 4, "B", "unit", 2, 36000),
			jobsOf(300, 2, "C", "unit", 4, 36000)),
	}
	for _, name := range []string{"gang 1", "gangs 1, 2, 4"} {
		var rec recorder
		r := simulate(t, newGF(t, nil), c, us, rec.on, cases[name]...)
		checkWindow(t, name, &rec, cases[name], 8, map[string]float64{"A": 1.0 / 3, "B": 1.0 / 3, "C": 1.0 / 3})
		for _, u := range r.Users {
			t.Logf("%s: %s GPU-s %.0f entitled %.0f ratio %.4f", name, u.Name, u.GPUSeconds, u.EntitledSeconds, u.ShareRatio)
			if math.Abs(u.ShareRatio-1) > shareTolerance {
				t.Errorf("%s: user %s got %.4f of its entitlement, want 1 ± %v", name, u.Name, u.ShareRatio, shareTolerance)
			}
		}
		t.Logf("%s: makespan %.0f s, utilisation %.4f, preemptions %d, migrations %d", name, r.Summary.Makespan, r.Summary.Utilisation, r.Summary.Preemptions, r.Summary.Migrations)
	}
}

// Tickets 1:2:3 give shares 1:2:3. 2 servers of 4 V100; users A, B, C of
// weight 1, 2, 3 with eight unit jobs each. Shares 8/6, 16/6, 24/6 GPUs
// (per-GPU tickets 1/6, 1/3, 1/2). Steps 1:2:3 (12,000, 24,000, 36,000), so
// every job finishes at 72,000 s and the users' GPU time is 96,000,
// 192,000, 288,000 GPU-s: 1:2:3. Before the first completion the users hold
// 1/6, 2/6 and 3/6 of the cluster.
func TestSimTickets123(t *testing.T) {
	t.Parallel()
	us := []models.User{{Name: "A", Weight: 1}, {Name: "B", Weight: 2}, {Name: "C", Weight: 3}}
	c := cluster(t, servers("V100", 2, 4)...)
	jobs := slices.Concat(jobsOf(100, 8, "A", "unit", 1, 12000), jobsOf(200, 8, "B", "unit", 1, 24000),
		jobsOf(300, 8, "C", "unit", 1, 36000))
	var rec recorder
	r := simulate(t, newGF(t, nil), c, us, rec.on, jobs...)
	checkWindow(t, "tickets 1:2:3", &rec, jobs, 8, map[string]float64{"A": 1.0 / 6, "B": 2.0 / 6, "C": 3.0 / 6})
	a := r.Users[0].GPUSeconds
	for i, u := range r.Users {
		t.Logf("%s (weight %g): GPU-s %.0f (%.4f × A's), ratio to entitlement %.4f", u.Name, u.Weight, u.GPUSeconds, u.GPUSeconds/a, u.ShareRatio)
		if math.Abs(u.ShareRatio-1) > shareTolerance {
			t.Errorf("user %s got %.4f of its entitlement, want 1 ± %v", u.Name, u.ShareRatio, shareTolerance)
		}
		if got := u.GPUSeconds / a; math.Abs(got/float64(i+1)-1) > shareTolerance {
			t.Errorf("user %s got %.4f × A's GPU time, want %d ± 2%%", u.Name, got, i+1)
		}
	}
	t.Logf("makespan %.0f s, utilisation %.4f", r.Summary.Makespan, r.Summary.Utilisation)
}

// busyWhileWaiting replays the event log and returns the time during which
// some gang-1 job waited while a GPU was free, and the time any job waited.
func busyWhileWaiting(gpus int, gang map[models.JobID]int) (func(sim.Event), func() (idle, waiting float64)) {
	var events []sim.Event
	on := func(e sim.Event) { events = append(events, e) }
	report := func() (idle, waiting float64) {
		active, running := map[models.JobID]bool{}, map[models.JobID]bool{}
		held := 0
		for i := 0; i < len(events); {
			t := events[i].Time
			for ; i < len(events) && events[i].Time == t; i++ {
				e := events[i]
				switch e.Kind {
				case sim.Arrive:
					active[e.Job] = true
				case sim.Start, sim.Resume, sim.Migrate:
					running[e.Job] = true
					held += len(e.GPUs)
				case sim.Preempt, sim.Vacate:
					delete(running, e.Job)
					held -= len(e.GPUs)
				case sim.Finish:
					delete(running, e.Job)
					delete(active, e.Job)
					held -= gang[e.Job]
				}
			}
			next := t
			if i < len(events) {
				next = events[i].Time
			}
			small := false
			for id := range active {
				if !running[id] && gang[id] == 1 {
					small = true
				}
			}
			if len(active) > len(running) {
				waiting += next - t
				if small && held < gpus {
					idle += next - t
				}
			}
		}
		return idle, waiting
	}
	return on, report
}

// A user with fewer jobs than its share gets what it can use and the rest
// goes to the others (the paper's motivating example, §2): 2 servers of 4
// V100; A and B have eight unit jobs each, C one job of gang 2.
//
//	Shares: C 2 (its fair 8/3 is more than it can use), A 3, B 3.
//	Per-GPU tickets: C 1, A and B 3/8. All passes start at 0 and ties go to
//	the earlier arrival, so A's and B's jobs take the first quantum; from
//	the second on C's job (pass +1 per quantum, the others +8/3) runs
//	without a break: 36,000 steps at 1 step/s, JCT 360 + 36,000 s, 72,000 GPU-s.
//
// No GPU may idle while a gang-1 job waits, at any instant of the run.
func TestSimFewerJobsThanShare(t *testing.T) {
	t.Parallel()
	us := users("A", "B", "C")
	c := cluster(t, servers("V100", 2, 4)...)
	jobs := slices.Concat(jobsOf(100, 8, "A", "unit", 1, 36000), jobsOf(200, 8, "B", "unit", 1, 36000),
		jobsOf(300, 1, "C", "unit", 2, 36000))
	gang := map[models.JobID]int{}
	for _, j := range jobs {
		gang[j.ID] = j.Gang
	}
	on, idle := busyWhileWaiting(8, gang)
	var rec recorder
	r := simulate(t, newGF(t, nil), c, us, func(e sim.Event) { on(e); rec.on(e) }, jobs...)
	// From the second quantum, when C's job runs (see above).
	user := map[models.JobID]string{}
	for _, j := range jobs {
		user[j.ID] = j.User
	}
	until := rec.firstFinish()
	held, first := rec.held(user, until), rec.held(user, round.Seconds())
	for u, want := range map[string]float64{"A": 3.0 / 8, "B": 3.0 / 8, "C": 2.0 / 8} {
		got := (held[u] - first[u]) / (8 * (until - round.Seconds()))
		t.Logf("over [360, %.0f s) %s held %.4f of the cluster, entitled to %.4f", until, u, got, want)
		if math.Abs(got/want-1) > shareTolerance {
			t.Errorf("%s held %.4f of the cluster, want %.4f ± 2%%", u, got, want)
		}
	}
	for _, j := range r.Jobs {
		if j.User == "C" && (math.Abs(j.JCT-36360) > 1e-6 || j.Preemptions > 0) {
			t.Errorf("C's job: JCT %v s with %d preemptions, want 36360 s and none", j.JCT, j.Preemptions)
		}
	}
	for _, u := range r.Users {
		t.Logf("%s: GPU-s %.0f entitled %.0f ratio %.4f", u.Name, u.GPUSeconds, u.EntitledSeconds, u.ShareRatio)
		if math.Abs(u.ShareRatio-1) > shareTolerance {
			t.Errorf("user %s got %.4f of its entitlement, want 1 ± %v", u.Name, u.ShareRatio, shareTolerance)
		}
	}
	idleS, waitS := idle()
	t.Logf("jobs waited %.0f s; a GPU idled while a gang-1 job waited %.0f s; utilisation %.4f", waitS, idleS, r.Summary.Utilisation)
	if waitS == 0 || idleS != 0 {
		t.Errorf("a GPU idled %v s of the %v s in which jobs waited, want 0", idleS, waitS)
	}
}

// throughput replays the event log and returns each user's steps done in
// [0, until), from the fixture's rates (no restore cost).
func throughput(events []sim.Event, jobType map[models.JobID]string, user map[models.JobID]string, until float64) map[string]float64 {
	type run struct {
		typ  string
		from float64
	}
	cur := map[models.JobID]run{}
	out := map[string]float64{}
	stop := func(id models.JobID, t float64) {
		if r, ok := cur[id]; ok {
			out[user[id]] += rates[jobType[id]][r.typ] * (math.Min(t, until) - math.Min(r.from, until))
			delete(cur, id)
		}
	}
	for _, e := range events {
		switch e.Kind {
		case sim.Start, sim.Resume, sim.Migrate:
			stop(e.Job, e.Time)
			cur[e.Job] = run{e.Type, e.Time}
		case sim.Preempt, sim.Vacate, sim.Finish:
			stop(e.Job, e.Time)
		}
	}
	return out
}

// Heterogeneous cluster, users whose speedups differ: 3 servers of 2 V100
// and 3 of 2 K80; A's jobs run 4× faster on V100 than on K80, B's 2×, C's
// 1.25× (K80 at 1 step/s for all, so steps/s are K80 equivalents); eight
// gang-1 jobs each, equal tickets.
//
//	Without trading each user has 2 V100 + 2 K80: A 2·4 + 2 = 10, B 2·2 + 2 =
//	6, C 2·1.25 + 2 = 4.5 steps/s; cluster 20.5.
//	Trading (TestMarketThreeUsersTwoTypes): A buys 1 V100 from C at 2 K80,
//	then B 1 V100 from C at 1.25: A 3 V100 → 12, B 3 V100 + 0.75 K80 → 6.75,
//	C 5.25 K80 → 5.25; cluster 24.
//
// Measured from the event log over the first 200 rounds (every user has all
// its jobs then). Trading must raise cluster throughput, and no user may
// fall below its no-trade throughput by more than 2% (the realisation's
// granularity: shares are time-shared in whole quanta).
func TestSimTradingRaisesThroughput(t *testing.T) {
	t.Parallel()
	us := users("A", "B", "C")
	c := cluster(t, slices.Concat(servers("V100", 3, 2), servers("K80", 3, 2))...)
	jobs := slices.Concat(jobsOf(100, 8, "A", "r4", 1, 1e6), jobsOf(200, 8, "B", "r2", 1, 1e6),
		jobsOf(300, 8, "C", "r125", 1, 1e6))
	jobType, user := map[models.JobID]string{}, map[models.JobID]string{}
	for _, j := range jobs {
		jobType[j.ID], user[j.ID] = j.Type, j.User
	}
	until := 200 * round.Seconds()
	measure := func(p solvers.Policy) (map[string]float64, *sim.Result) {
		var events []sim.Event
		r := simulate(t, p, c, us, func(e sim.Event) { events = append(events, e) }, jobs...)
		steps := throughput(events, jobType, user, until)
		for u := range steps {
			steps[u] /= until
		}
		return steps, r
	}
	for _, profile := range []string{"oracle", "measured"} {
		opts := map[string]any{"profile": profile}
		without, _ := measure(newNoTrade(t, opts))
		with, r := measure(newGF(t, opts))
		var sumWithout, sumWith float64
		for _, u := range []string{"A", "B", "C"} {
			sumWithout += without[u]
			sumWith += with[u]
			t.Logf("%s: %s %.3f steps/s without trading, %.3f with (%+.1f%%)", profile, u, without[u], with[u], 100*(with[u]/without[u]-1))
			if with[u] < without[u]*(1-shareTolerance) {
				t.Errorf("%s: user %s: %.3f steps/s with trading, below its %.3f without", profile, u, with[u], without[u])
			}
		}
		t.Logf("%s: cluster %.3f steps/s without trading, %.3f with (%+.1f%%)", profile, sumWithout, sumWith, 100*(sumWith/sumWithout-1))
		if sumWith <= sumWithout {
			t.Errorf("%s: trading did not raise cluster throughput: %.3f → %.3f", profile, sumWithout, sumWith)
		}
		rep := r.PolicyReport.(*gandivafair.Report)
		t.Logf("%s: %d trades in %d market records; trade gain %.0f K80-GPU-s; migrations %d, preemptions %d",
			profile, rep.Trades, len(rep.Markets), rep.TradeGain, r.Summary.Migrations, r.Summary.Preemptions)
	}
}

// wholeOnly is gandiva-fair without its answers of changes alone.
type wholeOnly struct{ p *gandivafair.GandivaFair }

func (w wholeOnly) Name() string             { return w.p.Name() }
func (w wholeOnly) Triggers() models.Trigger { return w.p.Triggers() }
func (w wholeOnly) Report() any              { return w.p.Report() }
func (w wholeOnly) Allocate(s *models.Snapshot) (models.Allocation, error) {
	return w.p.Allocate(s)
}

// counting counts gandiva-fair's answers of changes alone.
type counting struct {
	*gandivafair.GandivaFair
	keeps int
}

func (c *counting) AllocateChanges(s *models.Snapshot) (models.Allocation, bool, error) {
	a, keep, err := c.GandivaFair.AllocateChanges(s)
	if keep {
		c.keeps++
	}
	return a, keep, err
}

// TestSimChangesMatchWhole: gandiva-fair answering between quanta with the
// jobs that start alone (solvers.Incremental) runs exactly as it does
// answering with every assignment: the same event log and result, on a
// cluster of two types with small and large jobs arriving over time, in
// both profile modes and with a quantum of one and two rounds.
func TestSimChangesMatchWhole(t *testing.T) {
	t.Parallel()
	us := users("A", "B", "C")
	c := cluster(t, slices.Concat(servers("V100", 3, 4), servers("K80", 2, 8))...)
	var jobs []models.Job
	for i := range 60 {
		gang := []int{1, 1, 2, 4, 8, 12}[i%6]
		jobs = append(jobs, models.Job{ID: models.JobID(i), User: []string{"A", "B", "C"}[i%3],
			Type: []string{"r4", "r2", "unit"}[i%3], Gang: gang, Steps: float64(2000 + 700*(i%7)),
			Arrival: time.Duration(i*i%97) * 40 * time.Second})
	}
	for _, opts := range []map[string]any{nil, {"profile": "oracle", "quantum_rounds": 2}} {
		var changes, whole recorder
		inc := &counting{GandivaFair: newGF(t, opts)}
		rc := simulate(t, inc, c, us, changes.on, jobs...)
		rw := simulate(t, wholeOnly{newGF(t, opts)}, c, us, whole.on, jobs...)
		if !reflect.DeepEqual(changes.events, whole.events) || !reflect.DeepEqual(rc, rw) {
			t.Fatalf("%v: changes alone and whole allocations differ (%d and %d events)", opts, len(changes.events), len(whole.events))
		}
		if inc.keeps == 0 {
			t.Fatalf("%v: no answer of changes alone", opts)
		}
		t.Logf("%v: %d events, %d answers of changes alone", opts, len(changes.events), inc.keeps)
	}
}
