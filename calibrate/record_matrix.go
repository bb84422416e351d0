package calibrate

import (
	"fairbench/models"
)

// Matrix is MatrixFor with the time-sliced pairs.
func (r *Record) Matrix(source string) *models.Matrix { return r.MatrixFor(source, ModeTimeSlice) }

// MatrixFor is the throughput matrix of the record's finished entries and
// of its pairs measured in mode. The citation of every figure is source.
//
// Isolated figures: an ok entry gives its MatrixStepsPerSecond (the mean
// when several entries measured the same key, e.g. two GPUs of one type or
// two merged runs), an out-of-memory entry a 0 ("does not fit":
// models.Matrix reads a stored 0 as "cannot run there") unless another
// entry of the key ran. Failed entries give nothing.
//
// Pairs, in Gavel's format: an ok pair of A and B gives A beside B the
// isolated figure of A's key times A's measured paired/alone ratio (the
// mean ratio over measurements of the same pair), so the slowdown
// ξ = isolated / co-located the simulator and SJF-BSBF compute is the one
// measured, whichever measurement the isolated figure comes from; and the
// same for B, in both directions. A pair that cannot share is [0, 0]
// (models.Feasible forbids it) unless a measurement of it ran. Failed pairs
// give nothing.
func (r *Record) MatrixFor(source, mode string) *models.Matrix {
	m := r.isolated(source)
	setPairs(m, r.Pairs, mode, source)
	return m
}

// setPairs stores the pairs measured in mode in m, scaled to m's isolated
// figures (see MatrixFor): a key m lacks gets the pair's alone figure. It
// replaces any pair m had for the same keys.
func setPairs(m *models.Matrix, pairs []PairEntry, mode, source string) {
	type acc struct {
		self, other float64 // sums of the paired/alone ratios
		n           int
	}
	byKey := map[models.PairKey]*acc{}
	var keys []models.PairKey
	add := func(k models.PairKey, self, other float64, ok bool) {
		a := byKey[k]
		if a == nil {
			a = &acc{}
			byKey[k] = a
			keys = append(keys, k)
		}
		if ok {
			a.self, a.other, a.n = a.self+self, a.other+other, a.n+1
		}
	}
	for _, p := range pairs {
		if p.Mode != mode || (p.Status != PairOK && p.Status != PairCannotShare) {
			continue
		}
		ka := models.Key{Job: p.A.JobType, GPU: p.GPUType, Gang: p.Gang, Placement: models.Consolidated}
		kb := ka
		kb.Job = p.B.JobType
		for _, s := range []struct {
			k     models.Key
			alone float64
		}{{ka, p.A.AloneStepsPerSecond}, {kb, p.B.AloneStepsPerSecond}} {
			if _, ok := m.Lookup(s.k); !ok {
				mustSet(m, s.k, s.alone*float64(p.Gang), source)
			}
		}
		ok := p.Status == PairOK
		var ra, rb float64
		if ok {
			ra, rb = p.A.PairedStepsPerSecond/p.A.AloneStepsPerSecond, p.B.PairedStepsPerSecond/p.B.AloneStepsPerSecond
		}
		if ka == kb { // a type beside itself: one key, both ratios are its
			add(models.PairKey{Key: ka, Other: p.B.JobType}, (ra+rb)/2, (ra+rb)/2, ok)
			continue
		}
		add(models.PairKey{Key: ka, Other: p.B.JobType}, ra, rb, ok)
		add(models.PairKey{Key: kb, Other: p.A.JobType}, rb, ra, ok)
	}
	for _, k := range keys {
		a := byKey[k]
		self, other := 0.0, 0.0
		if a.n > 0 {
			ko := k.Key
			ko.Job = k.Other
			self = m.Throughput(k.Key) * a.self / float64(a.n)
			other = m.Throughput(ko) * a.other / float64(a.n)
		}
		if err := m.SetPair(k, self, other); err != nil {
			panic("calibrate: " + err.Error()) // ratios are finite and ≥ 0 by DecodeRecord and the runner
		}
	}
}

// isolated is the matrix of the record's entries alone.
func (r *Record) isolated(source string) *models.Matrix {
	type acc struct {
		sum float64
		n   int
	}
	byKey := map[models.Key]*acc{}
	var keys []models.Key
	for _, e := range r.Entries {
		if e.Status != StatusOK && e.Status != StatusDoesNotFit {
			continue
		}
		k := e.Key()
		a := byKey[k]
		if a == nil {
			a = &acc{}
			byKey[k] = a
			keys = append(keys, k)
		}
		if e.Status == StatusOK {
			a.sum += e.MatrixStepsPerSecond
			a.n++
		}
	}
	m := models.NewMatrix()
	for _, k := range keys {
		a := byKey[k]
		v := 0.0
		if a.n > 0 {
			v = a.sum / float64(a.n)
		}
		mustSet(m, k, v, source)
	}
	return m
}

func mustSet(m *models.Matrix, k models.Key, v float64, source string) {
	if err := m.Set(k, v, source); err != nil {
		panic("calibrate: " + err.Error()) // steps/s are finite and ≥ 0 by DecodeRecord and the runner
	}
}
