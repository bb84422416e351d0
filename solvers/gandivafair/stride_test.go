package gandivafair_test

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"fairbench/models"
	"fairbench/solvers/gandivafair"
)

// The paper's motivating example (Chaudhary et al., EuroSys 2020, §2): 8
// GPUs, users A and B with 4 GPUs of demand each, C with one 2-GPU job. C's
// fair share 8/3 exceeds what it can use, so it gets 2 and A and B 3 each.
//
// Two types, filled in rank order: V100 4 + K80 4; A needs 6 GPUs (jobs run
// anywhere), B 1, C 3 that run only on K80.
//
//	V100: demands A 6, B 1, C 0 → B capped at 1, A 3.
//	K80:  demands A min(6, 6 − 3) = 3, B 0, C 3 → 2 and 2.
//
// Tickets 1:2:3 on 12 GPUs of each of two types, everyone saturated: 2, 4, 6
// of each.
func TestWaterFillTypes(t *testing.T) {
	t.Parallel()
	got := gandivafair.WaterFillTypes([]float64{8}, []float64{1, 1, 1}, []float64{4, 4, 2}, [][]float64{{4}, {4}, {2}})
	if want := [][]float64{{3}, {3}, {2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("motivating example: %v, want %v", got, want)
	}
	got = gandivafair.WaterFillTypes([]float64{4, 4}, []float64{1, 1, 1}, []float64{6, 1, 3}, [][]float64{{6, 6}, {1, 1}, {0, 3}})
	if want := [][]float64{{3, 2}, {1, 0}, {0, 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("two types: %v, want %v", got, want)
	}
	got = gandivafair.WaterFillTypes([]float64{12, 12}, []float64{1, 2, 3}, []float64{100, 100, 100}, [][]float64{{100, 100}, {100, 100}, {100, 100}})
	if want := [][]float64{{2, 2}, {4, 4}, {6, 6}}; !reflect.DeepEqual(got, want) {
		t.Errorf("tickets 1:2:3: %v, want %v", got, want)
	}
}

// Local stride scheduling on one server of 4 V100, gangs 1, 2 and 4. Users
// U (jobs J1, gang 1, and J4, gang 4) and V (J2, gang 2), equal tickets;
// arrival order J1, J2, J4.
//
//	Shares: 4 GPUs water-filled over demands U 5, V 2 → V 2, U 2.
//	Per-GPU tickets: U 2/5 = 0.4, V 2/2 = 1. Tickets: J1 0.4, J4 1.6, J2 2.
//	A quantum run advances a pass by gang/tickets: J1 and J4 by 2.5, J2 by 1.
//
//	quantum  passes before (J1, J2, J4)  order (pass, then arrival)  runs (free GPUs left)
//	1        0, 0, 0                      J1 J2 J4                    J1 (3), J2 (1); J4 skipped
//	2        2.5, 1, 0                    J4 J2 J1                    J4 (0)
//	3        2.5, 1, 2.5                  J2 J1 J4                    J2 (2), J1 (1); J4 skipped
//	4        5, 2, 2.5                    J2 J4 J1                    J2 (2), J4 skipped, J1 (1)
//	5        7.5, 3, 2.5                  J4 J2 J1                    J4 (0)
//	6        7.5, 3, 5                    J2 J4 J1                    J2, J1
//	7        10, 4, 5                     J2 J4 J1                    J2, J1
//	8        12.5, 5, 5                   J2 J4 J1 (tie: J2 arrived first)  J2, J1
//	9        15, 6, 5                     J4 J2 J1                    J4
//
// The job that does not fit is skipped, not waited for, so a gang-1 job
// fills in beside the gang-2 job.
func TestLocalStrideGangs(t *testing.T) {
	t.Parallel()
	p := newGF(t, nil)
	d := newDriver(t, p, users("U", "V"), models.Server{Type: "V100", GPUs: 4})
	d.add(job(1, "U", "unit", 1), job(2, "V", "unit", 2), job(4, "U", "unit", 4))
	want := [][]int{{1, 2}, {4}, {1, 2}, {1, 2}, {4}, {1, 2}, {1, 2}, {1, 2}, {4}}
	passes := [][3]float64{{0, 0, 0}, {2.5, 1, 0}, {2.5, 1, 2.5}, {5, 2, 2.5}, {7.5, 3, 2.5}, {7.5, 3, 5}, {10, 4, 5}, {12.5, 5, 5}, {15, 6, 5}}
	for q, w := range want {
		d.quantum(q)
		for i, id := range []models.JobID{1, 2, 4} {
			if got, _, _ := p.Pass(id); math.Abs(got-passes[q][i]) > 1e-9 {
				t.Errorf("quantum %d: J%d pass %v, want %v", q+1, id, got, passes[q][i])
			}
		}
		if got := d.runIDs(); !reflect.DeepEqual(got, w) {
			t.Fatalf("quantum %d: running %v, want %v", q+1, got, w)
		}
	}
	if _, tk, _ := p.Pass(4); math.Abs(tk-1.6) > 1e-12 {
		t.Errorf("J4 tickets %v, want 1.6", tk)
	}
}

// The central scheduler: 2 servers of 4 V100. User A has one job of gang 8
// (large: it needs both servers), user B eight gang-1 jobs; equal tickets.
//
//	Shares: A 4, B 4. Per-GPU tickets 4/8 = 0.5 for both.
//	Large job L: tickets 0.5·8 = 4, a quantum run advances its pass by 8/4 = 2.
//	B's jobs go to the least loaded server, alternately: 4 per server, tickets
//	0.5 each, so each server's pseudo-job has 2 tickets and advances by 4/2 = 2.
//
//	quantum  passes L, S0, S1   order                  runs
//	1        0, 0, 0            L S0 S1 (large first)   L on both servers (GPUs 0–7)
//	2        2, 0, 0            S0 S1 L                 S0 and S1 claim their servers: B's 8 jobs
//	3        2, 2, 2            L S0 S1                 L
//	…        alternating: A gets 8 GPUs half the time = 4 = its share, B the same.
//
// L runs on the same GPUs every time (no restore), and B's jobs time-share
// within their servers.
func TestCentralLargeJob(t *testing.T) {
	t.Parallel()
	p := newGF(t, nil)
	d := newDriver(t, p, users("A", "B"), models.Server{Type: "V100", GPUs: 4}, models.Server{Type: "V100", GPUs: 4})
	d.add(job(1, "A", "unit", 8))
	for i := range 8 {
		d.add(job(11+i, "B", "unit", 1))
	}
	for q := range 6 {
		d.quantum(q)
		if q%2 == 0 {
			if got := d.running(); !reflect.DeepEqual(got, []string{"1@V100[0 1 2 3 4 5 6 7]"}) {
				t.Fatalf("quantum %d: running %v, want L alone on GPUs 0–7", q+1, got)
			}
		} else if got := d.runIDs(); !reflect.DeepEqual(got, []int{11, 12, 13, 14, 15, 16, 17, 18}) {
			t.Fatalf("quantum %d: running %v, want B's eight jobs", q+1, got)
		}
		if pl, tk, _ := p.Pass(1); tk != 4 || pl != float64(2*((q+1)/2)) {
			t.Errorf("quantum %d: L pass %v tickets %v, want %v and 4", q+1, pl, tk, 2*((q+1)/2))
		}
		if ps, tk := p.ServerPass(0); tk != 2 || ps != float64(2*(q/2)) {
			t.Errorf("quantum %d: S0 pass %v tickets %v, want %v and 2", q+1, ps, tk, 2*(q/2))
		}
	}
	for i := range 8 {
		if _, srv, _ := p.Home(models.JobID(11 + i)); srv != i%2 {
			t.Errorf("job %d homed on server %d, want %d", 11+i, srv, i%2)
		}
	}
	if _, srv, _ := p.Home(1); srv != -1 {
		t.Errorf("the large job is homed on server %d, want the central scheduler (-1)", srv)
	}
}

// A winning large job takes ⌈gang/G⌉ whole servers, and the free GPUs left
// elsewhere go to waiting small jobs. 3 servers of 4 V100; A has a gang-8
// job and weight 2, B four gang-1 jobs and weight 1.
//
//	Shares: 12 GPUs over demands A 8, B 4 with weights 2:1 → 8 and 4: all
//	per-GPU tickets are 1. B's jobs J11–J14 go to the least loaded servers:
//	J11 S0, J12 S1, J13 S2, J14 S0.
//	Quantum 1: L (pass 0, large first) takes S0 and S1 (lowest indices among
//	  equals); S2's pseudo-job claims S2: J13 runs there, and J11, J12, J14,
//	  waiting on servers L took, fill S2's three free GPUs. All 12 GPUs busy
//	  (free GPUs go out in job order: J11 GPU 8, J12 9, J13 10, J14 11).
//	Quantum 2: J11 is re-homed to S2, where it runs (S2's load 0.5 does not
//	  exceed J11's home S0's 0.5); J12 and J14 would make S2 busier than
//	  their homes and stay homed there. S0 (pass 0) and S1 (0) now come before
//	  L (pass 8/8 = 1) and claim their servers for J14 and J12, so L is
//	  skipped; but both run on S2 now and S2 has room for them, so S0 and S1
//	  are emptied for L (consolidation) and nothing moves. The same every quantum.
func TestCentralTakesWholeServers(t *testing.T) {
	t.Parallel()
	p := newGF(t, nil)
	us := []models.User{{Name: "A", Weight: 2}, {Name: "B", Weight: 1}}
	d := newDriver(t, p, us, models.Server{Type: "V100", GPUs: 4}, models.Server{Type: "V100", GPUs: 4}, models.Server{Type: "V100", GPUs: 4})
	d.add(job(1, "A", "unit", 8), job(11, "B", "unit", 1), job(12, "B", "unit", 1), job(13, "B", "unit", 1), job(14, "B", "unit", 1))
	want := []string{"1@V100[0 1 2 3 4 5 6 7]", "11@V100[8]", "12@V100[9]", "13@V100[10]", "14@V100[11]"}
	for q := range 4 {
		d.quantum(q)
		if got := d.running(); !reflect.DeepEqual(got, want) {
			t.Fatalf("quantum %d: running %v, want %v", q+1, got, want)
		}
	}
	homes := map[models.JobID]int{11: 2, 12: 1, 13: 2, 14: 0}
	for id, w := range homes {
		if _, srv, _ := p.Home(id); srv != w {
			t.Errorf("job %d homed on server %d, want %d", id, srv, w)
		}
	}
	r := p.Report().(*gandivafair.Report)
	if r.Consolidations != 3 {
		t.Errorf("%d consolidations, want 3 (quanta 2–4)", r.Consolidations)
	}
}

// Between quanta (an arrival or a completion) running jobs keep their GPUs
// and only free GPUs are filled, lowest pass first; a new job starts at the
// server's minimum pass. One server of 4 V100, one user, jobs J1–J6 of gang 1.
//
//	Quantum 1 (t=0): J1–J4 run (all passes 0, arrival order).
//	t=100: J1 has finished and J7 arrives. Per-GPU tickets 4/6 → 4/6 (six jobs
//	  again). J2–J4 are charged 100/360 of a quantum: pass 1/(4/6)·100/360 =
//	  0.4167. J5, J6 are at 0, the minimum, where J7 starts too. J2–J4 keep
//	  GPUs 1–3; the free GPU 0 goes to J5 (pass 0, earliest).
func TestFillBetweenQuanta(t *testing.T) {
	t.Parallel()
	p := newGF(t, nil)
	d := newDriver(t, p, users("U"), models.Server{Type: "V100", GPUs: 4})
	for i := 1; i <= 6; i++ {
		d.add(job(i, "U", "unit", 1))
	}
	d.quantum(0)
	if got := d.running(); !reflect.DeepEqual(got, []string{"1@V100[0]", "2@V100[1]", "3@V100[2]", "4@V100[3]"}) {
		t.Fatalf("t=0: %v", got)
	}
	d.remove(1)
	d.add(job(7, "U", "unit", 1))
	d.decide(100)
	if got := d.running(); !reflect.DeepEqual(got, []string{"2@V100[1]", "3@V100[2]", "4@V100[3]", "5@V100[0]"}) {
		t.Fatalf("t=100: %v", got)
	}
	for id, want := range map[models.JobID]float64{2: 1.5 * 100 / 360, 5: 0, 7: 0} {
		if got, _, _ := p.Pass(id); math.Abs(got-want) > 1e-12 {
			t.Errorf("J%d pass %v, want %v", id, got, want)
		}
	}
}

// A job that arrives after others have run starts at the current minimum
// pass of its server: it neither starves nor monopolises. One server of 2
// V100, one user; J1–J3 gang 1 from t=0, J4 at quantum 5.
//
//	Per-GPU tickets 2/3 (three jobs): a run advances a pass by 1.5.
//	Quanta 1–4 run J1 J2, J3 J1, J2 J3, J1 J2 (lowest pass, then arrival):
//	passes after quantum 4: J1 4.5, J2 4.5, J3 3.
//	Quantum 5: J4 arrives; per-GPU tickets 2/4, but passes charged so far stay.
//	J4 starts at min(4.5, 4.5, 3) = 3 and runs with J3 (both at 3, J3 arrived first).
func TestNewJobStartsAtMinimumPass(t *testing.T) {
	t.Parallel()
	p := newGF(t, nil)
	d := newDriver(t, p, users("U"), models.Server{Type: "V100", GPUs: 2})
	d.add(job(1, "U", "unit", 1), job(2, "U", "unit", 1), job(3, "U", "unit", 1))
	want := [][]int{{1, 2}, {1, 3}, {2, 3}, {1, 2}}
	for q, w := range want {
		d.quantum(q)
		if got := d.runIDs(); !reflect.DeepEqual(got, w) {
			t.Fatalf("quantum %d: running %v, want %v", q+1, got, w)
		}
	}
	d.add(job(4, "U", "unit", 1))
	d.quantum(4)
	if got, _, _ := p.Pass(4); math.Abs(got-3) > 1e-9 {
		t.Errorf("J4 starts at pass %v, want 3", got)
	}
	if got := d.runIDs(); !slices.Equal(got, []int{3, 4}) {
		t.Errorf("quantum 5: running %v, want [3 4]", got)
	}
}
