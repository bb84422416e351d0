package gandivafair_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/gandivafair"
)

func TestOptions(t *testing.T) {
	t.Parallel()
	bad := []map[string]any{
		{"quantum_rounds": -1},
		{"quantum_rounds": "often"},
		{"migrate_threshold": -0.5},
		{"migrate_threshold": math.NaN()},
		{"max_migrations": -1},
		{"profile": "guess"},
		{"quantum": 2},
	}
	for _, o := range bad {
		if _, err := gandivafair.New(solvers.Config{Options: o}); err == nil {
			t.Errorf("options %v accepted", o)
		} else if !strings.Contains(err.Error(), gandivafair.Name) {
			t.Errorf("options %v: error %q does not name the policy", o, err)
		}
	}
	if _, err := gandivafair.NewNoTrade(solvers.Config{Options: map[string]any{"trading": true}}); err == nil {
		t.Error("gandiva-fair-notrade accepted the trading option")
	}
	good := map[string]any{"quantum_rounds": "3", "migrate_threshold": 0.25, "max_migrations": 0, "profile": "oracle", "trading": false}
	p := newGF(t, good)
	if p.Name() != gandivafair.Name {
		t.Errorf("Name = %q", p.Name())
	}
	r := p.Report().(*gandivafair.Report)
	if r.Trading || r.Profile != "oracle" || r.QuantumRounds != 3 {
		t.Errorf("report of a fresh policy = %+v", r)
	}
	if q := newNoTrade(t, nil); q.Name() != gandivafair.NoTradeName || q.Report().(*gandivafair.Report).Trading {
		t.Errorf("notrade variant: %q, %+v", q.Name(), q.Report())
	}
	if d := newGF(t, nil).Report().(*gandivafair.Report); !d.Trading || d.Profile != "measured" || d.QuantumRounds != 1 {
		t.Errorf("defaults: %+v", d)
	}
	if got := solvers.TriggersOf(p); got != models.AtRound|models.AtArrival|models.AtCompletion {
		t.Errorf("Triggers = %v", got)
	}
}

// A quantum of two rounds: the setting of TestLocalStrideGangs decided
// every other round. At the rounds in between running jobs keep their GPUs
// (the free GPU left beside J1 and J2 cannot hold J4), and each pass is
// charged half a quantum per round, so every quantum of the one-round case
// lasts two rounds here.
func TestQuantumRounds(t *testing.T) {
	t.Parallel()
	p := newGF(t, map[string]any{"quantum_rounds": 2})
	d := newDriver(t, p, users("U", "V"), models.Server{Type: "V100", GPUs: 4})
	d.add(job(1, "U", "unit", 1), job(2, "V", "unit", 2), job(4, "U", "unit", 4))
	unit := [][]int{{1, 2}, {4}, {1, 2}, {1, 2}, {4}}
	for q := range 2 * len(unit) {
		d.quantum(q)
		if got := d.runIDs(); !reflect.DeepEqual(got, unit[q/2]) {
			t.Fatalf("round %d: running %v, want %v", q, got, unit[q/2])
		}
	}
	if r := p.Report().(*gandivafair.Report); r.Quanta != len(unit) || r.Decisions != 2*len(unit) {
		t.Errorf("%d quanta in %d decisions, want %d in %d", r.Quanta, r.Decisions, len(unit), 2*len(unit))
	}
}

// Measured profiling: a new job starts on the highest-ranked type its user
// has not been measured on, and the scheduler learns a user's speed on a
// type only once one of its jobs ran there, so a user trades only when it
// has been measured on both types; with profile: oracle it trades from the
// first decision. 1 server of 2 V100 and 1 of 2 K80; A's
// jobs speed up 4× on V100, B's 1.5×; three gang-1 jobs each (demand 3 > its
// share 2, so B can take more K80).
//
//	Shares: V100 1 + 1, K80 1 + 1. With both speedups known A buys V100 from
//	B at B's 1.5: v = min(1/1.5, 1) = 2/3 → A V100 5/3, B V100 1/3, K80 2.
func TestProfiling(t *testing.T) {
	t.Parallel()
	us := users("A", "B")
	srv := []models.Server{{Type: "V100", GPUs: 2}, {Type: "K80", GPUs: 2}}
	add := func(d *driver) {
		d.add(job(1, "A", "r4", 1), job(2, "A", "r4", 1), job(3, "A", "r4", 1),
			job(4, "B", "r15", 1), job(5, "B", "r15", 1), job(6, "B", "r15", 1))
	}
	want := func(t *testing.T, p *gandivafair.GandivaFair) {
		t.Helper()
		_, after, trades := p.Shares("A")
		if len(trades) != 1 || trades[0].Buyer != "A" || trades[0].Price != 1.5 || math.Abs(trades[0].Volume-2.0/3) > 1e-12 {
			t.Fatalf("trades %+v, want A buying 2/3 V100 from B at 1.5", trades)
		}
		if math.Abs(after["V100"]-5.0/3) > 1e-12 || after["K80"] > 1e-12 {
			t.Errorf("A's shares after trading %v, want V100 5/3", after)
		}
	}

	p := newGF(t, map[string]any{"profile": "oracle"})
	d := newDriver(t, p, us, srv...)
	add(d)
	d.quantum(0)
	want(t, p)

	p = newGF(t, nil)
	d = newDriver(t, p, us, srv...)
	add(d)
	d.quantum(0)
	for id := models.JobID(1); id <= 6; id++ {
		if typ, _, _ := p.Home(id); typ != "V100" {
			t.Errorf("measured: new job %d starts on %s, want V100", id, typ)
		}
	}
	first := -1
	for q := 0; q < 20 && first < 0; q++ {
		if q > 0 {
			d.quantum(q)
		}
		_, _, trades := p.Shares("A")
		// Profiling is per user: a user is measured on a type once any of
		// its jobs has run there.
		on := map[string]map[string]bool{}
		for _, j := range d.jobs {
			for _, r := range j.Received {
				if g := r.Type; r.Time > 0 {
					if on[j.User] == nil {
						on[j.User] = map[string]bool{}
					}
					on[j.User][g] = true
				}
			}
		}
		if len(trades) > 0 {
			first = q
			for _, u := range []string{"A", "B"} {
				if !on[u]["V100"] || !on[u]["K80"] {
					t.Fatalf("quantum %d: trades %+v before user %s was measured on both types (%v)", q+1, trades, u, on)
				}
			}
		}
	}
	if first < 0 {
		t.Fatal("measured: no trade in 20 quanta")
	}
	t.Logf("measured: first trade at quantum %d", first+1)
	want(t, p)
}

// The report records every market outcome when it changes, prices between
// the parties' speedups, gains that are never negative and add up, and
// shares that conserve every type.
func TestReport(t *testing.T) {
	t.Parallel()
	us := users("A", "B", "C")
	c := cluster(t, slices.Concat(servers("V100", 3, 2), servers("K80", 3, 2))...)
	jobs := slices.Concat(jobsOf(100, 8, "A", "r4", 1, 20000), jobsOf(200, 8, "B", "r2", 1, 20000),
		jobsOf(300, 8, "C", "r125", 1, 20000))
	r := simulate(t, newGF(t, map[string]any{"profile": "oracle"}), c, us, nil, jobs...)
	rep := r.PolicyReport.(*gandivafair.Report)
	if len(rep.Markets) == 0 || rep.Trades == 0 {
		t.Fatalf("no trades recorded: %+v", rep)
	}
	first := rep.Markets[0]
	if first.Time != 0 || len(first.Trades) != 2 || first.Trades[0].Buyer != "A" || first.Trades[0].Seller != "C" {
		t.Errorf("first market %+v, want A and then B buying from C at t=0", first)
	}
	for _, m := range rep.Markets {
		for _, tr := range m.Trades {
			if tr.Price < tr.SellerSpeedup || tr.Price > tr.BuyerSpeedup {
				t.Errorf("t=%v: trade %+v priced outside its parties' speedups", m.Time, tr)
			}
		}
	}
	sum := 0.0
	before, after := map[string]float64{}, map[string]float64{}
	for _, u := range rep.Users {
		if u.TradeGain < 0 {
			t.Errorf("%s lost %v by trading", u.Name, u.TradeGain)
		}
		sum += u.TradeGain
		for g := range u.ShareBefore {
			before[g] += u.ShareBefore[g]
			after[g] += u.ShareAfter[g]
		}
	}
	if rep.TradeGain <= 0 || math.Abs(sum-rep.TradeGain) > 1e-6*rep.TradeGain {
		t.Errorf("users gain %v, cluster %v", sum, rep.TradeGain)
	}
	for g := range before {
		if math.Abs(before[g]-after[g]) > 1e-6*before[g] {
			t.Errorf("%s: %v GPU-s of shares before trading, %v after", g, before[g], after[g])
		}
	}
	if math.Abs(rep.Seconds-r.Summary.Makespan) > 1e-6 {
		t.Errorf("report covers %v s of a %v s run", rep.Seconds, r.Summary.Makespan)
	}
}

// rates for job types that only some GPU types can run, for the random runs.
func init() {
	rates["vonly"] = map[string]float64{"V100": 2}
	rates["pk"] = map[string]float64{"P100": 2, "K80": 1.5}
}

// Random workloads on a heterogeneous cluster with servers of different
// sizes, gangs up to 8 (large on 4-GPU servers), restore costs, and job
// types that only some GPU types can run: every run ends (the simulator
// checks every allocation with models.Feasible), for both variants, both
// profile modes and two quanta, and the same inputs give the same result,
// report included.
func TestSimRandomWorkloads(t *testing.T) {
	t.Parallel()
	c := cluster(t, models.Server{Type: "V100", GPUs: 4}, models.Server{Type: "V100", GPUs: 4},
		models.Server{Type: "P100", GPUs: 4}, models.Server{Type: "P100", GPUs: 2}, models.Server{Type: "K80", GPUs: 8})
	us := []models.User{{Name: "x", Weight: 1}, {Name: "y", Weight: 2}, {Name: "z", Weight: 1}}
	types := []string{"unit", "r4", "r2", "r15", "vonly", "pk"}
	m := matrix(t)
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var jobs []models.Job
		for i := range 30 {
			jt := types[rng.IntN(len(types))]
			gang := []int{1, 1, 1, 2, 4, 8}[rng.IntN(6)]
			if jt == "vonly" && gang > 8 {
				gang = 8
			}
			jobs = append(jobs, models.Job{ID: models.JobID(i), User: us[rng.IntN(3)].Name, Type: jt, Gang: gang,
				Steps: float64(100 + rng.IntN(20000)), Arrival: time.Duration(rng.IntN(7200)) * time.Second})
		}
		for _, name := range []string{gandivafair.Name, gandivafair.NoTradeName} {
			for _, opts := range []map[string]any{nil, {"profile": "oracle", "quantum_rounds": 3}} {
				run := func() *sim.Result {
					var p solvers.Policy
					var err error
					if name == gandivafair.Name {
						p, err = gandivafair.New(solvers.Config{Options: opts})
					} else {
						p, err = gandivafair.NewNoTrade(solvers.Config{Options: opts})
					}
					if err != nil {
						t.Fatal(err)
					}
					r, err := sim.Run(sim.Config{Environment: models.Environment{Cluster: c, Matrix: m}, Users: us, Jobs: jobs, Round: round,
						Costs: sim.Costs{PerType: map[string]time.Duration{"r4": 30 * time.Second, "unit": 5 * time.Second}}}, p)
					if err != nil {
						t.Fatalf("seed %d, %s %v: %v", seed, name, opts, err)
					}
					return r
				}
				a, b := run(), run()
				if len(a.Jobs) != len(jobs) {
					t.Fatalf("seed %d, %s %v: %d of %d jobs finished", seed, name, opts, len(a.Jobs), len(jobs))
				}
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("seed %d, %s %v: two runs differ", seed, name, opts)
				}
			}
		}
	}
}

// An instance serves one run (solvers.Policy): two instances give the same
// run; a second run on the first is refused at its first decision (time
// went back), and so is a snapshot of another cluster; finished jobs leave
// an instance's state.
func TestOneInstancePerRun(t *testing.T) {
	t.Parallel()
	p := newGF(t, nil)
	c := cluster(t, servers("V100", 2, 4)...)
	jobs := slices.Concat(jobsOf(1, 6, "A", "unit", 1, 3000), jobsOf(11, 3, "B", "unit", 2, 2000))
	a := simulate(t, p, c, users("A", "B"), nil, jobs...)
	b := simulate(t, newGF(t, nil), c, users("A", "B"), nil, jobs...)
	if !reflect.DeepEqual(a, b) {
		t.Error("two instances give different runs")
	}
	_, err := sim.Run(sim.Config{Environment: models.Environment{Cluster: c, Matrix: matrix(t)}, Users: users("A", "B"), Jobs: jobs, Round: round}, p)
	if !errors.Is(err, solvers.ErrTimeWentBack) {
		t.Errorf("a second run on one instance: %v, want ErrTimeWentBack", err)
	}
	later := &models.Snapshot{Now: 1000 * round, Round: 1000, RoundLength: round, Trigger: models.AtRound,
		Environment: models.Environment{Cluster: cluster(t, servers("V100", 2, 4)...), Matrix: matrix(t)}, Users: users("A", "B")}
	if _, err := p.Allocate(later); err == nil || !strings.Contains(err.Error(), "another cluster") {
		t.Errorf("a snapshot of another cluster: %v", err)
	}
	for _, j := range jobs {
		if _, _, ok := p.Home(j.ID); ok {
			t.Errorf("finished job %d is still tracked", j.ID)
		}
	}
	p = newGF(t, nil)
	d := newDriver(t, p, users("U"), models.Server{Type: "V100", GPUs: 1})
	d.add(job(1, "U", "unit", 1), job(2, "U", "unit", 1))
	d.quantum(0)
	d.remove(1)
	d.quantum(1)
	if _, _, ok := p.Home(1); ok {
		t.Error("job 1 left the snapshot but is still tracked")
	}
	if _, _, ok := p.Home(2); !ok {
		t.Error("job 2 is not tracked")
	}
}

// A single decision on an instance (a fresh policy, jobs already running):
// running jobs are taken from the snapshot, and they keep their GPUs when
// they still win.
func TestInstanceDecision(t *testing.T) {
	t.Parallel()
	p := newGF(t, nil)
	d := newDriver(t, p, users("U"), models.Server{Type: "V100", GPUs: 4})
	a, b := job(1, "U", "unit", 2), job(2, "U", "unit", 1)
	a.FirstRun, a.LastType, a.LastGPUs = 0, "V100", []int{2, 3}
	d.add(a, b)
	d.decide(720)
	if got := d.running(); !reflect.DeepEqual(got, []string{"1@V100[2 3]", "2@V100[0]"}) {
		t.Errorf("running %v, want job 1 kept on GPUs 2–3", got)
	}
	bad := &models.Snapshot{Environment: models.Environment{Cluster: cluster(t, models.Server{Type: "V100", GPUs: 1}), Matrix: matrix(t)}, Users: users("U"),
		Jobs: []models.JobState{job(1, "nobody", "unit", 1)}}
	if _, err := newGF(t, nil).Allocate(bad); err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("unknown user: err %v", err)
	}
}

// Algorithm 2 with the user's measured speed: among types where the user's
// per-GPU tickets tie, a new job goes where the user runs fastest. Users A
// ("p100": 2 steps/s on P100, 1 on V100) and B, two jobs each, on 2 V100 +
// 2 P100 (oracle profiling): shares V100 1 + 1, P100 1 + 1. A's first job:
// tickets 1/1 on both types, speed 2 on P100 → P100 (the paper's rule
// without speeds takes the higher-ranked V100); its second: V100 1/1 against
// P100 1/2 → V100.
func TestTypeChoiceUsesSpeed(t *testing.T) {
	t.Parallel()
	p := newGF(t, map[string]any{"profile": "oracle"})
	d := newDriver(t, p, users("A", "B"), models.Server{Type: "V100", GPUs: 2}, models.Server{Type: "P100", GPUs: 2})
	d.add(job(1, "A", "p100", 1), job(2, "A", "p100", 1), job(3, "B", "unit", 1), job(4, "B", "unit", 1))
	d.quantum(0)
	for id, want := range map[models.JobID]string{1: "P100", 2: "V100"} {
		if typ, _, _ := p.Home(id); typ != want {
			t.Errorf("job %d homed on %s, want %s", id, typ, want)
		}
	}
}

// Profiling is per user: a new job whose user has been measured on every
// type it can run on is placed by Algorithm 2, not sent to the
// highest-ranked type to be measured again. User A alone on 1 V100 + 1 K80:
// job 1 has run on both (measured), job 2 is new. Shares V100 1, K80 1; job
// 1 takes the V100 (tickets 1/1 tie, speed 4 > 1), job 2 the K80 (1/1
// against V100's 1/2). Were only job 2's own measurements counted, it
// would start on the V100 behind job 1.
func TestProfilingPerUser(t *testing.T) {
	t.Parallel()
	p := newGF(t, nil)
	d := newDriver(t, p, users("A"), models.Server{Type: "V100", GPUs: 1}, models.Server{Type: "K80", GPUs: 1})
	measured := job(1, "A", "r4", 1)
	d.add(measured, job(2, "A", "r4", 1))
	d.jobs[0].Received = models.Received{{Type: "V100", Time: round}, {Type: "K80", Time: round}}
	d.jobs[0].FirstRun, d.jobs[0].Executed = 0, 2*round
	d.decide(2 * round.Seconds())
	for id, want := range map[models.JobID]string{1: "V100", 2: "K80"} {
		if typ, _, _ := p.Home(id); typ != want {
			t.Errorf("job %d homed on %s, want %s", id, typ, want)
		}
	}
}

// TestChangesOnlyWhenEveryRunningJobStays: between quanta gandiva-fair
// answers with the jobs that start alone (keep true) when every job the
// snapshot shows running keeps its GPUs, and that answer stands for the
// whole allocation a twin policy gives (solvers.Changes); when the
// snapshot does not show a job the policy placed as running (the simulator
// found no figure for its placement), it answers with every assignment.
// One server of 8 V100s: jobs 0–5 of gang 1 (A, B, A, B, A, B) run from the
// quantum at 0, and job 6 arrives at 100 s and starts on a free GPU: the
// changes are its assignment alone.
func TestChangesOnlyWhenEveryRunningJobStays(t *testing.T) {
	for _, hide := range []bool{false, true} {
		us := users("A", "B")
		twin := newDriver(t, newGF(t, nil), us, models.Server{Type: "V100", GPUs: 8})
		d := newDriver(t, newGF(t, nil), us, models.Server{Type: "V100", GPUs: 8})
		for _, dr := range []*driver{twin, d} {
			for i := range 6 {
				dr.add(job(i, []string{"A", "B"}[i%2], "unit", 1))
			}
			dr.quantum(0)
			dr.add(job(6, "A", "unit", 1))
		}
		if hide { // the simulator did not start the first job the policy placed
			for i := range d.jobs {
				if d.jobs[i].Running() {
					d.jobs[i].LastType, d.jobs[i].LastGPUs = "", nil
					break
				}
			}
		}
		snap := func(dr *driver) *models.Snapshot {
			env := models.Environment{Cluster: dr.c, Matrix: dr.m, JobTypes: map[string]models.JobType{}}
			return &models.Snapshot{Now: sec(100), RoundLength: round, Trigger: models.AtArrival, Environment: env, Users: dr.users, Jobs: dr.jobs}
		}
		s := snap(d)
		a, keep, err := d.p.(*gandivafair.GandivaFair).AllocateChanges(s)
		if err != nil {
			t.Fatal(err)
		}
		if keep == hide {
			t.Fatalf("hide %v: keep %v", hide, keep)
		}
		if hide {
			continue
		}
		w, err := twin.p.Allocate(snap(twin))
		if err != nil {
			t.Fatal(err)
		}
		if got := solvers.Changes(s, a); !reflect.DeepEqual(got.Run, w.Run) {
			t.Fatalf("changes %v stand for %v, the twin's allocation is %v", a.Run, got.Run, w.Run)
		}
		if len(a.Run) != 1 || a.Run[0].Job != 6 || len(w.Run) != 7 {
			t.Fatalf("changes %v, whole %v: want job 6 alone and 7 assignments", a.Run, w.Run)
		}
	}
}
