package gandivafair

import (
	"slices"

	"fairbench/models"
)

// Home reports where the last decision homed job id: its GPU type and, for
// a small job, its home server (a cluster server index; -1 for a large job).
func (p *GandivaFair) Home(id models.JobID) (typ string, server int, ok bool) {
	if p.st == nil {
		return "", 0, false
	}
	j, ok := p.st.jobs[id]
	if !ok || j.typ < 0 {
		return "", 0, false
	}
	return p.st.types[j.typ], j.srv, true
}

// Pass reports job id's stride pass and tickets after the last decision.
func (p *GandivaFair) Pass(id models.JobID) (pass, tickets float64, ok bool) {
	if p.st == nil {
		return 0, 0, false
	}
	j, ok := p.st.jobs[id]
	if !ok {
		return 0, 0, false
	}
	return j.pass, j.tickets, true
}

// ServerPass reports the pass and tickets of server i's pseudo-job in the
// central scheduler after the last decision.
func (p *GandivaFair) ServerPass(i int) (pass, tickets float64) {
	if p.st == nil || i < 0 || i >= len(p.st.srv) {
		return 0, 0
	}
	return p.st.srv[i].pass, p.st.srv[i].tickets
}

// Shares reports the last decision's shares of user (GPUs per type) before
// and after trading, and the trades it made.
func (p *GandivaFair) Shares(user string) (before, after map[string]float64, trades []Trade) {
	if p.st == nil || p.st.lastD == nil {
		return nil, nil, nil
	}
	u, ok := p.st.userIdx[user]
	if !ok {
		return nil, nil, nil
	}
	before, after = map[string]float64{}, map[string]float64{}
	for k, g := range p.st.types {
		before[g], after[g] = p.st.lastD.before[u][k], p.st.lastD.share[u][k]
	}
	return before, after, slices.Clone(p.st.lastD.trades)
}
