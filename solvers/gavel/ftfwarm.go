package gavel

import (
	"fairbench/models"
	"fairbench/solvers/lp"
)

// ftfCarry is what gavel-ftf keeps of one decision's bisection LP for the
// next decision's first step: the last step's basis, and where each job's
// variables and rows were in that LP. Between two decisions jobs arrive and
// leave, so the LPs differ in shape; the basis is carried over by job
// (lp.Basis.Remap), and the first step starts warm instead of cold. Only
// the vertex reached among tied optima can differ from a cold start: the
// optimal value s, which decides each step, does not.
type ftfCarry struct {
	basis *lp.Basis
	jobs  map[models.JobID]ftfPlace // by the job that represents its class
	types map[string]ftfTypePlace
	s     int // the variable s
}

// ftfPlace is where a class's variables and rows sat.
type ftfPlace struct {
	x         map[string]int // by type name: x[c][g]
	time, rho int            // rows; rho −1 for a class without steps left
}

// ftfTypePlace is where a type's capacity row sat.
type ftfTypePlace struct{ capRow int }

// layout records where m's variables and rows are, with rows[c] the ρ row
// of class c (−1 for none) and sv the variable s.
func ftfLayout(m *model, rows []int, sv int) *ftfCarry {
	k := &ftfCarry{jobs: make(map[models.JobID]ftfPlace, len(m.classes)), types: make(map[string]ftfTypePlace, len(m.in.types)), s: sv}
	for g, name := range m.in.types {
		k.types[name] = ftfTypePlace{capRow: m.capRow[g]}
	}
	for c, cl := range m.classes {
		pl := ftfPlace{x: make(map[string]int, len(m.in.types)), time: m.timeRow[c], rho: rows[c]}
		for g, v := range m.x[c] {
			if v >= 0 {
				pl.x[m.in.types[g]] = v
			}
		}
		k.jobs[m.in.s.Jobs[cl.rep()].ID] = pl
	}
	return k
}

// start is the basis carried from old (nil: none) to the model m laid out
// as now: each variable and row takes the status of the same job's (or
// type's) in old's LP, new ones start at their bound or basic.
func (now *ftfCarry) start(old *ftfCarry, m *model) *lp.Basis {
	if old == nil || old.basis == nil {
		return &lp.Basis{}
	}
	vars := make([]int, len(m.p.Vars))
	rows := make([]int, len(m.p.Rows))
	for i := range vars {
		vars[i] = -1
	}
	for i := range rows {
		rows[i] = -1
	}
	vars[now.s] = old.s
	for name, t := range now.types {
		if o, ok := old.types[name]; ok {
			rows[t.capRow] = o.capRow
		}
	}
	for id, pl := range now.jobs {
		o, ok := old.jobs[id]
		if !ok {
			continue
		}
		rows[pl.time] = o.time
		if pl.rho >= 0 {
			rows[pl.rho] = o.rho
		}
		for name, v := range pl.x {
			if ov, ok := o.x[name]; ok {
				vars[v] = ov
			}
		}
	}
	return old.basis.Remap(vars, rows)
}
