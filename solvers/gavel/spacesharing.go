package gavel

import (
	"math"
	"strconv"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// Registered name and summary.
const (
	SpaceSharingName    = "gavel-las-ss"
	SpaceSharingSummary = "Gavel max-min fairness with space sharing: jobs also run in pairs on the same GPUs at the matrix's co-located throughputs"
)

// pairGain is how much more than 1 the relative throughputs of a pair must
// add up to for the pair to enter the LP (see SpaceSharing).
const pairGain = 1e-9

// SpaceSharing is Gavel's max-min fairness with space sharing (Narayanan et
// al., OSDI 2020, its "packing" variant over job combinations of size at
// most 2; docs/algorithms/gavel.md): LAS where a job
// may also spend time sharing its GPUs with one other job of the same gang,
// each running at its co-located throughput. With z[{j,k}][g] the time the
// pair spends together on type g:
//
//	maximise   t
//	subject to Σ_g c[j][g]·x[j][g] + Σ_{k,g} c[j][g]·(U[j|k][g]/T[j][g])·z[{j,k}][g] ≥ t    for every job j
//	           Σ_g x[j][g] + Σ_{k,g} z[{j,k}][g] ≤ 1                                       for every job j
//	           Σ_j d_j·x[j][g] + Σ_{pairs} d·z[{j,k}][g] ≤ N_g                             for every type g
//	           x, z ≥ 0
//
// with c[j][g] as in LAS (the normaliser of a job is that of its isolated
// throughputs, as in Gavel) and U[j|k][g] = min(T[j][g], the matrix's
// co-located figure Pair(PairKey{Key{j's type, g, d, placement}, k's
// type})[0]): the simulator runs a job beside a partner at its isolated
// rate divided by ξ = max(1, isolated / co-located).
//
// A pair {j,k} enters on type g only when both jobs can run there alone,
// their memory needs fit one GPU together, both co-located figures are
// measured and positive (an unmeasured pair would run at the simulator's
// default slowdown, which the policy does not know), and
// U[j|k][g]/T[j][g] + U[k|j][g]/T[k][g] > 1. A pair failing the last test is
// dominated: splitting the same GPU time between the two jobs alone gives
// both at least as much, so dropping it loses nothing.
//
// Gavel's per-combination LP has a variable for every pair of active jobs,
// n(n−1)/2 of them. With aggregate (the default) the pairs are taken between
// classes instead: F[a,b][g] is the total pair time between the jobs of
// classes a and b, each job of a gets F/|a| of it (2F/|a| when a = b, which
// needs |a| ≥ 2). This is the same LP: a job's throughput, its time and the
// GPUs used depend only on how much time it spends with each class of
// partner, and any such split is made of pairs: between two classes by the
// northwest-corner rule (at most |a| + |b| − 1 pairs), within one class by
// pairing neighbours in arrival order, (1st, 2nd), (3rd, 4th), …, and, when
// |a| is odd, the last three in turns (each of their three pairs for half the
// share). That is how the allocation's Shared list is built. Without aggregate every job is its
// own class and the LP is Gavel's.
//
// Objective reports t.
type SpaceSharing struct {
	base
	normaliser string
}

// NewSpaceSharing builds gavel-las-ss from MaxMinOptions.
func NewSpaceSharing(c solvers.Config) (solvers.Policy, error) {
	o := defaultMaxMin()
	b, err := newBase(SpaceSharingName, c, &o, false)
	if err != nil {
		return nil, err
	}
	return &SpaceSharing{base: b, normaliser: o.Normaliser}, nil
}

// pairVar is one pair variable F[a,b][g] of the LP.
type pairVar struct {
	a, b, g, v int
}

// Allocate solves the LP above.
func (p *SpaceSharing) Allocate(s *models.Snapshot) (models.Allocation, error) {
	in, err := p.open(s)
	if in == nil {
		return models.Allocation{}, err
	}
	n := in.n()
	factor := make([]float64, n)
	coef := make([][]float64, n)
	for i := range factor {
		factor[i] = maxMinFactor(in, p.normaliser, i)
		coef[i] = make([]float64, len(in.types))
		for g, t := range in.tput[i] {
			coef[i][g] = factor[i] * t
		}
	}
	classes := group(n, p.opt.Aggregate, func(k keyer, i int) keyer {
		j := &s.Jobs[i].Job
		return k.str(j.Type).num(float64(j.Gang)).num(s.MemoryNeed(j)).num(factor[i]).nums(in.tput[i])
	})
	m := newModel(in, classes, lp.Maximize, false)
	t, rows := m.maxMin(coef)
	var pairs []pairVar
	for a := range classes {
		for b := a; b < len(classes); b++ {
			if a == b && len(classes[a].jobs) < 2 {
				continue
			}
			ja, jb := classes[a].rep(), classes[b].rep()
			for g := range in.types {
				ua, ub, ok := pairRates(in, ja, jb, g)
				if !ok {
					continue
				}
				ka, kb := classes[a].size(), classes[b].size()
				v := m.share("z["+strconv.Itoa(a)+","+strconv.Itoa(b)+","+in.types[g]+"]", 0, 1)
				if a == b {
					m.add(m.timeRow[a], v, 2/ka)
					m.add(rows[a], v, 2*factor[ja]*ua/ka)
				} else {
					m.add(m.timeRow[a], v, 1/ka)
					m.add(m.timeRow[b], v, 1/kb)
					m.add(rows[a], v, factor[ja]*ua/ka)
					m.add(rows[b], v, factor[jb]*ub/kb)
				}
				m.add(m.capRow[g], v, float64(in.gang(ja)))
				pairs = append(pairs, pairVar{a, b, g, v})
			}
		}
	}
	res, err := p.solver().solve(&m.p, "space-sharing max-min")
	if err != nil {
		return models.Allocation{}, err
	}
	p.objective = res.X[t]
	v := m.clean(res.X)
	alloc := models.Allocation{Fractions: m.fractions(v)}
	for _, pv := range pairs {
		if v[pv.v] == 0 {
			continue
		}
		alloc.Shared = appendPairs(alloc.Shared, in, classes[pv.a], classes[pv.b], pv.a == pv.b, in.types[pv.g], v[pv.v])
	}
	if len(alloc.Fractions) == 0 {
		alloc.Fractions = nil
	}
	return alloc, nil
}

// pairRates are the throughputs U[a|b][g] and U[b|a][g] of jobs a and b
// (indices into s.Jobs, of the same gang) sharing GPUs of type g, and
// whether the pair may enter the LP there (see SpaceSharing).
func pairRates(in *instance, a, b, g int) (ua, ub float64, ok bool) {
	s := in.s
	ja, jb := &s.Jobs[a].Job, &s.Jobs[b].Job
	ta, tb := in.tput[a][g], in.tput[b][g]
	if ja.Gang != jb.Gang || ta <= 0 || tb <= 0 {
		return 0, 0, false
	}
	typ, _ := s.Cluster.Type(in.types[g])
	if s.MemoryNeed(ja)+s.MemoryNeed(jb) > typ.MemoryGB {
		return 0, 0, false
	}
	pl := placementOn(s.Cluster, typ.Name, ja.Gang)
	pa, okA := s.Matrix.Pair(models.PairKey{Key: models.Key{Job: ja.Type, GPU: typ.Name, Gang: ja.Gang, Placement: pl}, Other: jb.Type})
	pb, okB := s.Matrix.Pair(models.PairKey{Key: models.Key{Job: jb.Type, GPU: typ.Name, Gang: jb.Gang, Placement: pl}, Other: ja.Type})
	if !okA || !okB || pa[0] <= 0 || pb[0] <= 0 {
		return 0, 0, false
	}
	ua, ub = math.Min(ta, pa[0]), math.Min(tb, pb[0])
	return ua, ub, ua/ta+ub/tb > 1+pairGain
}

// appendPairs splits the pair time f between the jobs of classes a and b
// (the same class when same) on type typ into pairs of jobs, each job of a
// getting f/|a| (2f/|a| when same) and each of b f/|b|, as SpaceSharing
// describes.
func appendPairs(out []models.SharedFraction, in *instance, a, b class, same bool, typ string, f float64) []models.SharedFraction {
	id := func(i int) models.JobID { return in.s.Jobs[i].ID }
	emit := func(i, k int, x float64) {
		if x <= zeroShare {
			return
		}
		p, q := id(i), id(k)
		if p > q {
			p, q = q, p
		}
		out = append(out, models.SharedFraction{Jobs: [2]models.JobID{p, q}, Type: typ, X: x})
	}
	if same {
		// Neighbours in arrival order, so that a new job leaves the
		// existing pairs alone: (0, 1), (2, 3), …, each for the whole share;
		// with k odd the last three take turns, half the share per pair.
		k := len(a.jobs)
		share := 2 * f / float64(k)
		n := k
		if k%2 == 1 {
			n = k - 3
		}
		for i := 0; i < n; i += 2 {
			emit(a.jobs[i], a.jobs[i+1], share)
		}
		if k%2 == 1 {
			x, y, z := a.jobs[k-3], a.jobs[k-2], a.jobs[k-1]
			emit(x, y, share/2)
			emit(x, z, share/2)
			emit(y, z, share/2)
		}
		return out
	}
	// Northwest corner: walk both classes, giving each pair what is left of
	// the smaller of the two jobs' needs.
	na, nb := f/a.size(), f/b.size()
	i, k := 0, 0
	ra, rb := na, nb
	eps := 1e-12 * f
	for i < len(a.jobs) && k < len(b.jobs) {
		x := math.Min(ra, rb)
		emit(a.jobs[i], b.jobs[k], x)
		ra -= x
		rb -= x
		if ra <= eps {
			i++
			ra = na
		}
		if rb <= eps {
			k++
			rb = nb
		}
	}
	return out
}
