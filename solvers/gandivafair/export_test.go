package gandivafair

import (
	"fmt"
	"slices"

	"fairbench/models"
)

// CheckBookkeeping compares what the policy keeps up to date from one
// decision to the next (sync and home) with a recomputation from scratch
// over the jobs of s, the snapshot it has just decided on: each user's jobs
// in snapshot order, its demand, runnable and homed GPUs, and what it knows
// of each job's throughputs (with measured profiling, exactly the types with
// Received > 0; lastKnown only where it is known on its last type), its
// rows of speeds and terms, and each user's speeds and speedups: those not due to be
// measured again (changedS, changedR) are the means over its jobs now, in
// job order, bit for bit; and every homed job's tickets, its user's per-GPU
// tickets on its type in this decision times its gang.
func (p *GandivaFair) CheckBookkeeping(s *models.Snapshot) error {
	st := p.st
	nU, nT := len(st.users), len(st.types)
	byUser := make([][]*job, nU)
	demand, runnable, homed := make([]float64, nU), matrix(nU, nT), matrix(nU, nT)
	for i := range s.Jobs {
		sj := &s.Jobs[i]
		j, ok := st.jobs[sj.ID]
		if !ok {
			return fmt.Errorf("job %d: not in the state", sj.ID)
		}
		if j != st.active[i] {
			return fmt.Errorf("job %d: active[%d] is job %d", sj.ID, i, st.active[i].id)
		}
		byUser[j.user] = append(byUser[j.user], j)
		g := float64(j.gang)
		demand[j.user] += g
		for k := range st.types {
			if j.tput[k] > 0 {
				runnable[j.user][k] += g
			}
			if want := p.oracle || sj.Received.On(st.types[k]) > 0; j.known[k] != want {
				return fmt.Errorf("job %d: known on %s = %v, want %v", sj.ID, st.types[k], j.known[k], want)
			}
		}
		if j.typ >= 0 {
			homed[j.user][j.typ] += g
		}
		if j.lastKnown && (j.lastTyp < 0 || !j.known[j.lastTyp]) {
			return fmt.Errorf("job %d: lastKnown, but not known on its last type %d", sj.ID, j.lastTyp)
		}
	}
	if d := st.lastD; d != nil {
		for _, j := range st.active {
			if want := max(minPerGPU, d.perGPU[j.user][max(j.typ, 0)]) * float64(j.gang); j.typ >= 0 && j.tickets != want {
				return fmt.Errorf("job %d: %v tickets, want %v (its user's per-GPU tickets on its type)", j.id, j.tickets, want)
			}
		}
	}
	for i := range st.srv {
		// A server not stale keeps the sum sumTickets would compute.
		sv := &st.srv[i]
		var sum float64
		for _, j := range sv.members {
			sum += j.tickets
		}
		if !sv.stale && (sv.tickets != sum || sv.load != sum/float64(sv.gpus)) {
			return fmt.Errorf("server %d: not stale, %v tickets and load %v, want %v", i, sv.tickets, sv.load, sum)
		}
	}
	if len(st.jobs) != len(s.Jobs) {
		return fmt.Errorf("the state holds %d jobs, the snapshot %d", len(st.jobs), len(s.Jobs))
	}
	for u := range nU {
		if !slices.Equal(byUser[u], st.byUser[u]) {
			return fmt.Errorf("user %d: jobs %v, want %v", u, ids(st.byUser[u]), ids(byUser[u]))
		}
		if demand[u] != st.demand[u] {
			return fmt.Errorf("user %d: demand %v, want %v", u, st.demand[u], demand[u])
		}
		if !slices.Equal(runnable[u], st.runnable[u]) || !slices.Equal(homed[u], st.homed[u]) {
			return fmt.Errorf("user %d: runnable %v homed %v, want %v and %v", u, st.runnable[u], st.homed[u], runnable[u], homed[u])
		}
		if err := checkRows(st, u); err != nil {
			return err
		}
		if err := checkMeans(st, u); err != nil {
			return err
		}
	}
	return nil
}

// checkRows compares user u's rows with its jobs' speeds and terms, and
// each job's upos with its place in the user's list.
func checkRows(st *state, u int) error {
	nT, nP := len(st.types), len(st.pairs)
	var want rows
	for p, j := range st.byUser[u] {
		if int(j.upos) != p {
			return fmt.Errorf("user %d: job %d at %d has upos %d", u, j.id, p, j.upos)
		}
		want.add(j, nT, nP)
	}
	r := st.rows[u]
	if !slices.Equal(r.sp, want.sp) || !slices.Equal(r.tm, want.tm) || !slices.Equal(r.g, want.g) {
		return fmt.Errorf("user %d: rows %v %v %v, want %v %v %v", u, r.sp, r.tm, r.g, want.sp, want.tm, want.g)
	}
	return nil
}

// checkMeans recomputes user u's speeds and speedups from its jobs' known
// throughputs (not from their kept terms) where they are not due to be
// measured again.
func checkMeans(st *state, u int) error {
	nT, nP := len(st.types), len(st.pairs)
	sNum, sDen, rNum, rDen := make([]float64, nT), make([]float64, nT), make([]float64, nP), make([]float64, nP)
	for _, j := range st.byUser[u] {
		g := float64(j.gang)
		for k := range nT {
			if j.known[k] && j.tput[k] > 0 {
				sNum[k] += j.tput[k] / g
				sDen[k]++
			}
		}
		for pi, pr := range st.pairs {
			if j.known[pr.fast] && j.known[pr.slow] && j.tput[pr.fast] > 0 && j.tput[pr.slow] > 0 {
				rNum[pi] += g * j.tput[pr.fast] / j.tput[pr.slow]
				rDen[pi] += g
			}
		}
	}
	for k := range nT {
		if !st.changedS[u] && sDen[k] > 0 && st.lastS[u][k] != sNum[k]/sDen[k] {
			return fmt.Errorf("user %d: speed on %s %v, want %v", u, st.types[k], st.lastS[u][k], sNum[k]/sDen[k])
		}
	}
	for pi := range nP {
		if !st.changedR[u] && rDen[pi] > 0 && st.lastR[u][pi] != rNum[pi]/rDen[pi] {
			return fmt.Errorf("user %d: speedup of pair %d %v, want %v", u, pi, st.lastR[u][pi], rNum[pi]/rDen[pi])
		}
	}
	return nil
}

func ids(js []*job) []models.JobID {
	out := make([]models.JobID, len(js))
	for i, j := range js {
		out[i] = j.id
	}
	return out
}
