package themis

import (
	"math"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
	"fairbench/solvers/lp"
)

// One free GPU, two bidders. A bids log(1/1.5) for it and log(1/3) for
// waiting, B log(1/2) and log(1/2.5). Serving A gains log 3 − log 1.5 =
// log 2, serving B log 2.5 − log 2 = log 1.25: A wins. Without A, B would
// win, so A keeps c_A = (1/2.5)/(1/2) = 0.8 of its bundle.
func TestAuctionByHand(t *testing.T) {
	a := &auction{free: []float64{1}, backend: lp.Default(), bidders: []bidder{
		{gang: 1, value: []float64{-math.Log(1.5)}, none: -math.Log(3)},
		{gang: 1, value: []float64{-math.Log(2)}, none: -math.Log(2.5)},
	}}
	win, keep, err := a.partial()
	if err != nil {
		t.Fatal(err)
	}
	if win[0] != 0 || win[1] != -1 {
		t.Fatalf("winners %v, want [0 -1]", win)
	}
	if math.Abs(keep[0]-0.8) > 1e-9 {
		t.Errorf("c_A = %g, want 0.8", keep[0])
	}
}

// A gang that does not fit is never sold, and a bidder whose bundle does
// not beat waiting does not bid for it.
func TestAuctionFitsAndWorth(t *testing.T) {
	a := &auction{free: []float64{1, 4}, backend: lp.Default(), bidders: []bidder{
		{gang: 2, value: []float64{0, -1}, none: -2},  // type 0 holds 1 GPU: only type 1
		{gang: 1, value: []float64{-3, -3}, none: -2}, // worse than waiting everywhere
	}}
	win, _, err := a.partial()
	if err != nil {
		t.Fatal(err)
	}
	if win[0] != 1 || win[1] != -1 {
		t.Errorf("winners %v, want [1 -1]", win)
	}
}

// Leases hold between rounds and expire: with fairness 0 (everyone bids)
// and one V100 for one job, the job keeps the V100 for lease_rounds rounds
// and is re-auctioned at the round its lease ends.
func TestLeaseHoldsAndExpires(t *testing.T) {
	p, err := New(solvers.Config{Options: map[string]any{"fairness": 0, "lease_rounds": 2}})
	if err != nil {
		t.Fatal(err)
	}
	servers := []models.Server{{Type: "V100", GPUs: 1}}
	j := policytest.Job(1, 0, "resnet", 1, 1e6)
	for round, want := range []int{0, 0, 2} {
		s := policytest.Snap(t, policytest.Sec(360*float64(round)), nil, servers, j)
		s.Round, s.Trigger = round, models.AtRound
		if _, err := p.Allocate(s); err != nil {
			t.Fatal(err)
		}
		if got := p.(*Policy).leases[1].Until; got != want+2 {
			t.Errorf("round %d: lease until %d, want %d", round, got, want+2)
		}
	}
}
