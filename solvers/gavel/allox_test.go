package gavel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
)

// bruteForce is the optimum of the position-indexed assignment by
// enumeration: each job to a type (a job with no finite cost to none); on a
// type with W machines the jobs, longest first, take positions 1,…,1 (W
// times), 2,…: the r-th (0-based) costs (⌊r/W⌋ + 1)·cost.
func bruteForce(cost [][]float64, machines []int) float64 {
	best := math.Inf(1)
	m, nt := len(cost), len(machines)
	choice := make([]int, m)
	var rec func(j int)
	rec = func(j int) {
		if j == m {
			total := 0.0
			for t := range nt {
				var cs []float64
				for k := range m {
					if choice[k] == t {
						cs = append(cs, cost[k][t])
					}
				}
				sort.Sort(sort.Reverse(sort.Float64Slice(cs)))
				for r, c := range cs {
					total += float64(r/machines[t]+1) * c
				}
			}
			best = math.Min(best, total)
			return
		}
		any := false
		for t := range nt {
			if !math.IsInf(cost[j][t], 1) {
				any = true
				choice[j] = t
				rec(j + 1)
			}
		}
		if !any {
			choice[j] = -1
			rec(j + 1)
		}
	}
	rec(0)
	return best
}

// The matching reaches the enumerated optimum on random small instances,
// places every job that has a finite cost, and fills each type's positions
// from the bottom (no position k+1 used while k has room).
func TestPositionMatchOptimal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for it := range 400 {
		m, nt := 1+r.IntN(6), 1+r.IntN(3)
		machines := make([]int, nt)
		for t := range machines {
			machines[t] = 1 + r.IntN(2)
		}
		cost := make([][]float64, m)
		for j := range cost {
			cost[j] = make([]float64, nt)
			for t := range cost[j] {
				cost[j][t] = float64(1 + r.IntN(20))
				if r.IntN(5) == 0 {
					cost[j][t] = math.Inf(1)
				}
			}
		}
		got := positionMatch(cost, machines)
		total := 0.0
		used := map[[2]int]int{}
		for j, s := range got {
			if s.typ < 0 {
				for _, c := range cost[j] {
					if !math.IsInf(c, 1) {
						t.Fatalf("case %d: job %d left out with a finite cost", it, j)
					}
				}
				continue
			}
			total += float64(s.pos) * cost[j][s.typ]
			used[[2]int{s.typ, s.pos}]++
		}
		for k, n := range used {
			if n > machines[k[0]] || (k[1] > 1 && used[[2]int{k[0], k[1] - 1}] < machines[k[0]]) {
				t.Fatalf("case %d: type %d position %d holds %d (machines %d, below %d)", it, k[0], k[1], n, machines[k[0]], used[[2]int{k[0], k[1] - 1}])
			}
		}
		if want := bruteForce(cost, machines); math.Abs(total-want) > 1e-9 {
			t.Fatalf("case %d: cost %v, optimum %v (cost %v machines %v got %v)", it, total, want, cost, machines, got)
		}
	}
}

func newAlloX(t *testing.T, opts map[string]any) *AlloX {
	t.Helper()
	p, err := NewAlloX(solvers.Config{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*AlloX)
}

// runs decides on s and returns "id:type" per running job, sorted.
func runs(t *testing.T, p *AlloX, s *models.Snapshot) []string {
	t.Helper()
	a, err := p.Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := models.Feasible(s, a); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, as := range a.Run {
		out = append(out, fmt.Sprintf("%d:%s", as.Job, as.Type))
	}
	slices.Sort(out)
	return out
}

// One V100 and one K80; "resnet" runs 3 steps/s on the V100 and 1 on the
// K80. A has 300 steps (100 s on the V100, 300 s on the K80), B 3,000
// (1,000 s and 3,000 s). The assignments and their Σ position × time:
// both on the V100, A first: 2·100 + 1,000 = 1,200; B on the V100, A on
// the K80: 1,000 + 300 = 1,300; A on the V100, B on the K80: 3,100; both on
// the K80: 3,600. So A holds the V100 and B is queued behind it: the K80
// is left over, and B runs there for this round only (Gavel's leftover
// fill). At the next round A has finished and B (2,640 steps left after 360
// s at 1 step/s: 880 s on the V100, 2,640 s on the K80) takes the V100.
func TestAlloXQueuesBehindFastType(t *testing.T) {
	servers := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	p := newAlloX(t, nil)
	a, b := policytest.Job(1, 0, "resnet", 1, 300), policytest.Job(2, 0, "resnet", 1, 3000)
	if got := runs(t, p, policytest.Snap(t, 0, nil, servers, a, b)); !reflect.DeepEqual(got, []string{"1:V100", "2:K80"}) {
		t.Fatalf("round 0: %v", got)
	}
	if _, ok := p.typeOf[2]; ok {
		t.Fatal("B holds the K80; it should run there for the round only")
	}
	b = policytest.Running(b, "K80", 0, 360, 360)
	if got := runs(t, p, policytest.Snap(t, 360*time.Second, nil, servers, b)); !reflect.DeepEqual(got, []string{"2:V100"}) {
		t.Fatalf("round 1: %v", got)
	}
}

// Non-preemptive: a job holding a type keeps it when a shorter job
// arrives; with no arrival or completion nothing is recomputed.
func TestAlloXKeepsHeldJobs(t *testing.T) {
	servers := []models.Server{{Type: "V100", GPUs: 1}}
	p := newAlloX(t, nil)
	long := policytest.Job(1, 0, "resnet", 1, 30000)
	if got := runs(t, p, policytest.Snap(t, 0, nil, servers, long)); !reflect.DeepEqual(got, []string{"1:V100"}) {
		t.Fatalf("round 0: %v", got)
	}
	long = policytest.Running(long, "V100", 0, 360, 1080)
	short := policytest.Job(2, 100, "resnet", 1, 30)
	if got := runs(t, p, policytest.Snap(t, 360*time.Second, nil, servers, long, short)); !reflect.DeepEqual(got, []string{"1:V100"}) {
		t.Fatalf("round 1: %v, want the long job kept", got)
	}
}

// Gangs: a type's free GPUs are its machines, a gang-d job costs d·p and
// may only use a type with d free GPUs. Four V100s (3 steps/s); a 4-GPU job
// W of 1,000 steps costs 4·1,000/3 = 1,333.3 GPU-s, two 1-GPU jobs of 3,000
// steps 1,000 GPU-s each. Three jobs on four machines all take position 1,
// so all are first in their queue and start shortest first while their
// gang fits: the two small jobs take 2 GPUs and W (4 GPUs) no longer fits
// the 2 left. It waits, and the leftover fill cannot run it either.
func TestAlloXGangs(t *testing.T) {
	servers := []models.Server{{Type: "V100", GPUs: 4}}
	p := newAlloX(t, nil)
	w := policytest.Job(1, 0, "resnet", 4, 1000)
	x, y := policytest.Job(2, 0, "resnet", 1, 3000), policytest.Job(3, 0, "resnet", 1, 3000)
	if got := runs(t, p, policytest.Snap(t, 0, nil, servers, w, x, y)); !reflect.DeepEqual(got, []string{"2:V100", "3:V100"}) {
		t.Fatalf("got %v", got)
	}
}

func TestAlloXOptions(t *testing.T) {
	for _, bad := range []map[string]any{{"alpha": 0}, {"alpha": 1.5}, {"alpha": math.NaN()}, {"beta": 1}} {
		if _, err := NewAlloX(solvers.Config{Options: bad}); err == nil || !strings.Contains(err.Error(), AlloXName) {
			t.Errorf("%v: error %v", bad, err)
		}
	}
}

// End to end on a heterogeneous workload: every job finishes, every
// decision is feasible (policytest.Simulate checks), the same run twice
// gives the same result, and a second run on the same policy value starts
// afresh.
func TestAlloXSimulate(t *testing.T) {
	servers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "P100", GPUs: 4}, {Type: "K80", GPUs: 4}}
	var jobs []models.Job
	types := []string{"resnet", "unit", "recsys", "k80"}
	for i := range 40 {
		jobs = append(jobs, policytest.Job(i, float64(i*400%9000), types[i%4], []int{1, 1, 2, 4}[i%4], float64(2000+i*977%30000)).Job)
	}
	p := newAlloX(t, nil)
	_, a := policytest.Simulate(t, p, servers, nil, jobs...)
	_, b := policytest.Simulate(t, p, servers, nil, jobs...)
	if a.Summary.Jobs != len(jobs) || !reflect.DeepEqual(a, b) {
		t.Fatalf("%d jobs finished; runs equal: %v", a.Summary.Jobs, reflect.DeepEqual(a, b))
	}
}
