package fft

import (
	"math"

	"fairbench/models"
)

// tputKey identifies the jobs whose throughputs are the same everywhere.
type tputKey struct {
	typ  string
	gang int
	mem  float64
}

// tputs are one kind of job's throughputs on each type of the cluster, in
// Cluster.TypeNames() order.
type tputs struct {
	cons   []float64 // models.Environment.Throughput: what the program plans with
	spread []float64 // the matrix's spread figure (0 when unmeasured)
	best   float64   // max of cons
	fair   float64   // equal-share throughput at fairN jobs
	fairN  int
}

// tputsOf returns (and caches) the throughputs of jobs like j.
func (p *FFT) tputsOf(s *models.Snapshot, j *models.Job) *tputs {
	k := tputKey{j.Type, j.Gang, s.MemoryNeed(j)}
	if t, ok := p.tput[k]; ok {
		return t
	}
	types := s.Cluster.TypeNames()
	t := &tputs{cons: make([]float64, len(types)), spread: make([]float64, len(types))}
	for i, g := range types {
		t.cons[i] = s.Throughput(j, g)
		t.best = math.Max(t.best, t.cons[i])
		if t.cons[i] > 0 {
			t.spread[i] = s.Matrix.Throughput(models.Key{Job: j.Type, GPU: g, Gang: j.Gang, Placement: models.Spread})
		}
	}
	p.tput[k] = t
	return t
}

// fairRate is j's equal-share throughput (steps/s) among n active jobs.
func (p *FFT) fairRate(s *models.Snapshot, j *models.Job, t *tputs, n int) float64 {
	if t.fairN != n {
		t.fair = s.EqualShareThroughput(j, 1/float64(n))
		t.fairN = n
	}
	return t.fair
}

// unitOf is the number of steps in one work unit of j (see the Unit
// constants). With UnitEpoch, a job type with no epoch size (no
// steps_per_epoch entry and no EpochSamples in its JobType) falls back to
// UnitBestRound, and fellBack says so.
func (p *FFT) unitOf(s *models.Snapshot, j *models.Job, t *tputs, round float64) (unit float64, fellBack bool) {
	switch p.opt.WorkUnit {
	case UnitJob:
		return j.Steps, false
	case UnitStep:
		return 1, false
	case UnitEpoch:
		if v, ok := p.opt.StepsPerEpoch[j.Type]; ok {
			return v, false
		}
		if v := s.JobTypes[j.Type].StepsPerEpoch(); v > 0 {
			return v, false
		}
		fellBack = true
	}
	if t.best <= 0 {
		return 1, fellBack // runs nowhere; never costed
	}
	return t.best * round, fellBack
}

// restoreSeconds is the switching penalty's transfer time of j: the option's
// override for its type, else what the simulator will charge (Config.Restore,
// the scenario's preemption settings), else the job type's training state
// over the configured bandwidth.
func (p *FFT) restoreSeconds(s *models.Snapshot, j *models.Job) float64 {
	if v, ok := p.opt.RestoreSeconds[j.Type]; ok {
		return v
	}
	if p.restore != nil {
		return p.restore(s.JobTypes[j.Type]).Seconds()
	}
	return s.JobTypes[j.Type].StateGB / p.opt.BandwidthGBps
}

// instance builds the round's program (see Instance) at t rounds:
//
//	c[j][i] = φ[j][i](t) + s[j][i](t) − ρ_j(t)·θ[j][i]
//	φ[j][i](t) = (t − a_j)·θ[j][i]/W_j + d_j·W_j/θ[j][i]   (the first term × age_scale)
//	s[j][i](t) = restore_j / round   if j would resume from a checkpoint on i
//
// θ[j][i] = T[j][i]·round/unit_j is the work per round on type i at the
// job's gang (consolidated when it fits one server, as models.Environment.Throughput);
// x[j][i] may be 1 only where θ > 0 (the type has the memory, the figure is
// measured and the gang fits). With PhiWork "remaining", W_j in the second
// term of φ is the work still to do. s applies when the job has run before
// and either is not running now (it resumes) or runs on another type (it
// migrates): the simulator charges the same restore then; a job's first
// start is free. It also returns θ.
func (p *FFT) instance(s *models.Snapshot, states []*jobState, t, round float64) (*Instance, []float64) {
	types := s.Cluster.TypeNames()
	nt := len(types)
	in := &Instance{Types: nt, Cap: make([]int, nt), Gang: make([]int, len(s.Jobs)),
		Cost: make([]float64, len(s.Jobs)*nt), OK: make([]bool, len(s.Jobs)*nt)}
	theta := make([]float64, len(s.Jobs)*nt)
	for i, g := range types {
		in.Cap[i] = s.Cluster.Capacity(g)
	}
	for k := range s.Jobs {
		j := &s.Jobs[k]
		st := states[k]
		in.Gang[k] = j.Gang
		tp := p.tputsOf(s, &j.Job)
		wPhi := st.w
		if p.opt.PhiWork == PhiRemaining {
			wPhi = j.Remaining() / st.unit
		}
		sw := p.restoreSeconds(s, &j.Job) / round
		for i, g := range types {
			th := tp.cons[i] * round / st.unit
			if th <= 0 {
				continue
			}
			x := k*nt + i
			theta[x] = th
			in.OK[x] = true
			c := p.age*(t-st.a)*th/st.w + float64(j.Gang)*wPhi/th - st.rho*th
			if j.Started() && (!j.Running() || j.LastType != g) {
				c += sw
			}
			in.Cost[x] = c
		}
	}
	return in, theta
}
