package gandivafair_test

import (
	"testing"

	"fairbench/models"
	"fairbench/solvers/gandivafair"
)

// balanceFixture: 2 servers of 4 V100; users U and V, equal tickets, eight
// gang-1 jobs each, arriving U1 U2 V1 V2 U3 U4 V3 V4 … (IDs: U 1–8, V 11–18).
//
//	Shares 4 and 4, per-GPU tickets 4/8 = 0.5. Each new job goes to the
//	least loaded server (ties: the lower index), so arrivals alternate:
//	S0 U1 V1 U3 V3 U5 V5 U7 V7, S1 U2 V2 U4 V4 U6 V6 U8 V8: load 8·0.5/4 = 1 each.
//	Quantum 1 runs the first four of each server (all passes 0).
//
// Then V's jobs on S0 (V1 V3 V5 V7) finish. At quantum 2 V has 4 jobs:
// shares U 4, V 4, per-GPU tickets U 0.5, V 1. Loads: S0 4·0.5/4 = 0.5,
// S1 (4·0.5 + 4·1)/4 = 1.5 — a gap of 1, and S1 is contended (8 jobs, 4 GPUs).
func balanceFixture(t *testing.T, opts map[string]any) (*gandivafair.GandivaFair, *driver) {
	p := newGF(t, opts)
	d := newDriver(t, p, users("U", "V"), models.Server{Type: "V100", GPUs: 4}, models.Server{Type: "V100", GPUs: 4})
	for i := 0; i < 8; i += 2 {
		d.add(job(1+i, "U", "unit", 1), job(2+i, "U", "unit", 1), job(11+i, "V", "unit", 1), job(12+i, "V", "unit", 1))
	}
	d.quantum(0)
	for _, id := range []int{1, 11, 3, 13} {
		if _, srv, _ := p.Home(models.JobID(id)); srv != 0 {
			t.Fatalf("job %d homed on server %d, want 0", id, srv)
		}
	}
	d.remove(11, 13, 15, 17)
	return p, d
}

// Loads drift apart: the balancer moves jobs from S1 to S0, waiting ones
// first (they move for free), each time the one leaving the smaller gap.
//
//	S1 members: running U2 V2 U4 V4, waiting U6 V6 U8 V8.
//	Move 1: a waiting U job (tickets 0.5) would leave |1.375 − 0.625| = 0.75,
//	  a V job (tickets 1) |1.25 − 0.75| = 0.5: V6 (the first such) moves.
//	Move 2: loads 0.75 / 1.25, gap 0.5 > 0.1; V8 leaves |1 − 1| = 0: moves.
//	Loads 1 / 1: done. Two moves, no migration.
func TestBalanceMovesOnDrift(t *testing.T) {
	t.Parallel()
	p, d := balanceFixture(t, nil)
	d.quantum(1)
	for id, want := range map[models.JobID]int{16: 0, 18: 0, 12: 1, 14: 1, 6: 1, 8: 1} {
		if _, srv, _ := p.Home(id); srv != want {
			t.Errorf("job %d homed on server %d, want %d", id, srv, want)
		}
	}
	r := p.Report().(*gandivafair.Report)
	if r.BalanceMoves != 2 || r.BalanceMigrations != 0 {
		t.Errorf("%d balance moves (%d migrations), want 2 (0)", r.BalanceMoves, r.BalanceMigrations)
	}
	if got := len(d.runIDs()); got != 8 {
		t.Errorf("%d jobs run, want 8", got)
	}
}

// Within the threshold nothing moves; with threshold 0.6 one move (gap 1 →
// 0.5) is enough; with threshold 1 the gap of 1 is tolerated.
func TestBalanceThreshold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		threshold float64
		moves     int
	}{{0.6, 1}, {1, 0}} {
		p, d := balanceFixture(t, map[string]any{"migrate_threshold": tc.threshold})
		d.quantum(1)
		if r := p.Report().(*gandivafair.Report); r.BalanceMoves != tc.moves {
			t.Errorf("threshold %v: %d moves, want %d", tc.threshold, r.BalanceMoves, tc.moves)
		}
	}
	// Balanced loads (quantum 1 of the fixture, and any quantum while all
	// sixteen jobs stay): no move.
	p := newGF(t, nil)
	d := newDriver(t, p, users("U", "V"), models.Server{Type: "V100", GPUs: 4}, models.Server{Type: "V100", GPUs: 4})
	for i := range 8 {
		d.add(job(1+i, "U", "unit", 1), job(11+i, "V", "unit", 1))
	}
	for q := range 5 {
		d.quantum(q)
	}
	if r := p.Report().(*gandivafair.Report); r.BalanceMoves != 0 {
		t.Errorf("balanced: %d moves, want 0", r.BalanceMoves)
	}
}

// A server whose jobs all run is not relieved, however uneven the tickets:
// moving a job off it would gain nobody anything and cost a migration.
// 2 servers of 4 V100, one user with J1–J5: placed S0 J1 J3 J5, S1 J2 J4
// (share 5, per-GPU tickets 1: loads 0.75 and 0.5). J2 and J4 finish: loads
// 0.75 and 0, gap 0.75 > 0.1, but S0 runs all three of its jobs.
func TestBalanceOnlyContended(t *testing.T) {
	t.Parallel()
	p := newGF(t, nil)
	d := newDriver(t, p, users("U"), models.Server{Type: "V100", GPUs: 4}, models.Server{Type: "V100", GPUs: 4})
	for i := 1; i <= 5; i++ {
		d.add(job(i, "U", "unit", 1))
	}
	d.quantum(0)
	d.remove(2, 4)
	d.quantum(1)
	if r := p.Report().(*gandivafair.Report); r.BalanceMoves != 0 {
		t.Errorf("%d moves, want 0", r.BalanceMoves)
	}
	if got := d.running(); len(got) != 3 || got[0] != "1@V100[0]" {
		t.Errorf("running %v, want J1 J3 J5 where they were", got)
	}
}
