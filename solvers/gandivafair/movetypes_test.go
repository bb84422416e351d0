package gandivafair

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// moveGain is moveTypes' test of one move written out: what moving a job of
// gang g (running or not) from type a to b gains its user in per-GPU
// tickets, and whether the move passes. The gain table must agree with it
// bit for bit.
func moveGain(g float64, running bool, a, b int, share, homed []float64) (float64, bool) {
	pa, pb := share[a]/homed[a], share[b]/(homed[b]+g)
	if pb <= pa*(1+speedupTolerance)+eps {
		return 0, false
	}
	if running && homed[a] > g && pb < share[a]/(homed[a]-g)-eps {
		return 0, false // a running job moves only if the move does not overshoot
	}
	return pb - pa, true
}

// pickWrittenOut is movers.pick with every move's test and key computed
// afresh (moveGain) from the movers' jobs and current types.
func pickWrittenOut(ms []mover, from []bool, share, homed []float64, oracle bool) (best, to int, bk moveKey) {
	best = -1
	for i, m := range ms {
		a, j := m.typ, m.j
		if a < 0 || !from[a] || (!oracle && !j.known[a]) {
			continue
		}
		for _, b := range j.can {
			if b == a || share[b] <= eps {
				continue
			}
			gain, ok := moveGain(m.gang, m.running, a, b, share, homed)
			if !ok {
				continue
			}
			k := moveKey{profile: !oracle && j.known[a] && !j.known[b], waiting: !m.running, ratio: 1, gain: gain}
			if j.known[a] && j.known[b] {
				k.ratio = j.tput[b] / j.tput[a]
			}
			if best < 0 || k.better(bk) {
				best, to, bk = i, b, k
			}
		}
	}
	return best, to, bk
}

// randomMovers is movers with the jobs they are made of.
type randomMovers struct {
	movers
	js []*job
}

// randomUser is one user's jobs (as movers, with their gangs' table) and
// shares for TestMovePicks: a few types, gangs from 1 to 16, types each
// job can run on and is known on (speeds sometimes a few eps apart, so that
// the ratios' tolerance decides), homed GPUs that count its jobs, and
// shares that are often whole numbers or halves (ties at the move test's
// thresholds), sometimes set just inside or outside a threshold by 1e-10.
func randomUser(rng *rand.Rand) (t *randomMovers, share, homed []float64) {
	nT := 1 + rng.IntN(6)
	t = &randomMovers{}
	share, homed = make([]float64, nT), make([]float64, nT)
	for n := range rng.IntN(30) {
		j := &job{id: 0, gang: []int{1, 1, 2, 4, 8, 16}[rng.IntN(6)], typ: -1, tput: make([]float64, nT), known: make([]bool, nT)}
		for k := range nT {
			if rng.IntN(4) > 0 {
				j.tput[k] = float64(1+rng.IntN(8)) / 2
				if rng.IntN(3) == 0 { // speed ratios within a few eps of each other
					j.tput[k] *= 1 + float64(rng.IntN(5)-2)*6e-10
				}
				j.can = append(j.can, k)
				j.known[k] = rng.IntN(2) == 0
			}
		}
		if len(j.can) > 0 && rng.IntN(8) > 0 {
			j.typ = j.can[rng.IntN(len(j.can))]
			homed[j.typ] += float64(j.gang)
		}
		if rng.IntN(2) == 0 {
			j.last = []int{n}
		}
		t.js = append(t.js, j)
	}
	for k := range nT {
		switch rng.IntN(3) {
		case 0:
			share[k] = float64(rng.IntN(17)) / 2
		case 1:
			share[k] = rng.Float64() * 16
		}
	}
	if a, b := rng.IntN(nT), rng.IntN(nT); a != b && homed[a] > 1 && share[a] > 0 {
		g := float64([]int{1, 2, 4}[rng.IntN(3)])
		near := share[a] / homed[a] * (1 + speedupTolerance)
		if rng.IntN(2) == 0 && homed[a] > g {
			near = share[a] / (homed[a] - g)
		}
		share[b] = (near + (rng.Float64()*2-1)*1e-10) * (homed[b] + g)
	}
	return t, share, homed
}

// TestMovePicks: the moves moveTypes makes with its gain table (pick, then
// move, until none passes) are, move for move, the ones the test written
// out picks (pickWrittenOut, over the jobs in snapshot order), with the same keys, and every figure of the
// table agrees with moveGain before and after each move. Random users of
// both profile modes; 400 move sequences.
func TestMovePicks(t *testing.T) {
	moves := 0
	for seed := uint64(1); seed <= 400; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		mv, share, homed := randomUser(rng)
		oracle := rng.IntN(2) == 0
		mv.of(mv.js, share, homed, oracle)
		from := make([]bool, len(share))
		st := &state{}
		for range 200 {
			if err := tableAgrees(&mv.gains, share, homed); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if !st.mayMove(share, homed, from) {
				break
			}
			best, to, key := mv.pick(from)
			// The written-out pick scans the jobs in snapshot order (pick
			// has the waiting ones first).
			inOrder := make([]mover, len(mv.js))
			for n, j := range mv.js {
				inOrder[n] = mv.ms[slices.IndexFunc(mv.ms, func(m mover) bool { return m.j == j })]
			}
			wb, wto, wkey := pickWrittenOut(inOrder, from, share, homed, oracle)
			if (best < 0) != (wb < 0) || (best >= 0 && (mv.ms[best].j != inOrder[wb].j || to != wto || key != wkey)) {
				t.Fatalf("seed %d: picked mover %d → %d %+v, written out %d → %d %+v", seed, best, to, key, wb, wto, wkey)
			}
			if best < 0 {
				break
			}
			mv.move(best, to, share, homed)
			moves++
		}
	}
	if moves < 200 {
		t.Fatalf("only %d moves in 200 sequences: the test exercises too little", moves)
	}
}

// tableAgrees compares every figure the gain table gives with moveGain.
func tableAgrees(t *gainTable, share, homed []float64) error {
	for a := range homed {
		if homed[a] <= 0 {
			continue
		}
		for b := range share {
			for gi, g := range t.gangs {
				for _, running := range []bool{false, true} {
					g1, ok1 := t.gain(gi, running, a, b)
					g2, ok2 := moveGain(g, running, a, b, share, homed)
					if ok1 != ok2 || g1 != g2 {
						return fmt.Errorf("%d→%d gang %v running %v: table %v %v, moveGain %v %v", a, b, g, running, g1, ok1, g2, ok2)
					}
				}
			}
		}
	}
	return nil
}
