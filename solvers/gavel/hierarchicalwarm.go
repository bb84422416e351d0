package gavel

import "fairbench/solvers/lp"

// The water filling's LPs are all built by newModel over the same classes,
// so they share its variables x[c][g] (the first ones, in the same order)
// and its capacity and time rows (the first rows), and differ in one row per
// class (its level, reach or gain row; none for a class pinned at its cap)
// and in a few scalar variables: the level t (or the reach s) shared by the
// classes, or one gain u_c per class. A shape records where those are in
// one LP, so that the simplex basis of one LP can start the next
// (lp.Basis.Remap): every share, time and capacity row keeps its status, a
// class row its class's, and a scalar variable its own where the next LP
// has it (a new one starts at its lower bound, 0, where the last
// allocation satisfies every row of the next LP).
type shape struct {
	vars, rows int
	shared     int   // the variable t or s, −1 when the LP has none
	own        []int // per class: its u variable, −1 for none
	row        []int // per class: its class row, −1 for none
}

// newShape is the shape of m with the class rows row (−1 for none), its
// shared scalar variable (−1 for none) and per-class variables own (nil for
// none).
func newShape(m *model, row []int, shared int, own []int) shape {
	return shape{vars: len(m.p.Vars), rows: len(m.p.Rows), shared: shared, own: own, row: row}
}

// warmChain carries the basis of a decision's last LP to its next one.
type warmChain struct {
	fixedVars, fixedRows int // the shares x, and the capacity and time rows
	basis                lp.Basis
	last                 shape
	carried              *carried // the decision's first LP
}

// start is the basis to start an LP of shape next from: the last LP's,
// renumbered.
func (ch *warmChain) start(next shape) *lp.Basis {
	vars := make([]int, next.vars)
	rows := make([]int, next.rows)
	for j := range vars {
		vars[j] = -1
		if j < ch.fixedVars {
			vars[j] = j
		}
	}
	for i := range rows {
		rows[i] = -1
		if i < ch.fixedRows {
			rows[i] = i
		}
	}
	if next.shared >= 0 && ch.last.shared >= 0 {
		vars[next.shared] = ch.last.shared
	}
	for c := range next.row {
		if next.row[c] >= 0 && c < len(ch.last.row) && ch.last.row[c] >= 0 {
			rows[next.row[c]] = ch.last.row[c]
		}
		if next.own != nil && next.own[c] >= 0 && ch.last.own != nil && ch.last.own[c] >= 0 {
			vars[next.own[c]] = ch.last.own[c]
		}
	}
	return ch.basis.Remap(vars, rows)
}

// solve solves m (of shape sh) from the last LP's basis and keeps its own
// for the next. A decision's first LP starts from the carried one of the
// last decision (k, nil for none), and is carried to the next
// (ch.carried).
func (ch *warmChain) solve(run *solver, m *model, sh shape, what string, k *carried, keys []string) (lp.Result, error) {
	first := ch.last.vars == 0
	var b *lp.Basis
	switch {
	case !first:
		b = ch.start(sh)
	case k != nil:
		b = k.start(m, sh, keys)
	default:
		b = &lp.Basis{}
	}
	res, err := run.solveWarm(&m.p, what, b)
	if err == nil {
		ch.basis, ch.last = *b, sh
		if first {
			ch.carried = carry(m, sh, keys, *b)
		}
	}
	return res, err
}

// carried is one decision's LP as the next decision's LP starts from it:
// its basis, and where each class's shares and rows were, by the class's
// key (gavel-hierarchical's first water-filling LP, by the classes' data;
// gavel-ftf's last bisection step, by the job that represents each class).
type carried struct {
	basis   lp.Basis
	class   map[string]int // key → class index in that LP
	x       [][]int
	timeRow []int
	capRow  []int
	types   map[string]int // GPU type → its index in that LP
	sh      shape
}

// carry records m (of shape sh, over classes with keys), solved with the
// basis b, for the next decision.
func carry(m *model, sh shape, keys []string, b lp.Basis) *carried {
	cl := make(map[string]int, len(keys))
	for c, k := range keys {
		cl[k] = c
	}
	types := make(map[string]int, len(m.in.types))
	for g, name := range m.in.types {
		types[name] = g
	}
	return &carried{basis: b, class: cl, x: m.x, timeRow: m.timeRow, capRow: m.capRow, types: types, sh: sh}
}

// start is the basis of the carried LP for m (of shape sh, over classes
// with keys): a class found again keeps its shares' and rows' statuses, a
// new one starts with its shares at 0 and its rows' slacks basic.
func (k *carried) start(m *model, sh shape, keys []string) *lp.Basis {
	vars := make([]int, sh.vars)
	rows := make([]int, sh.rows)
	for j := range vars {
		vars[j] = -1
	}
	for i := range rows {
		rows[i] = -1
	}
	old := make([]int, len(m.in.types)) // each type's index in the carried LP
	for g, name := range m.in.types {
		old[g] = -1
		if h, ok := k.types[name]; ok {
			old[g] = h
			rows[m.capRow[g]] = k.capRow[h]
		}
	}
	if sh.shared >= 0 {
		vars[sh.shared] = k.sh.shared
	}
	for c, key := range keys {
		oc, ok := k.class[key]
		if !ok {
			continue
		}
		rows[m.timeRow[c]] = k.timeRow[oc]
		if sh.row[c] >= 0 {
			rows[sh.row[c]] = k.sh.row[oc]
		}
		for g, v := range m.x[c] {
			if v >= 0 && old[g] >= 0 {
				vars[v] = k.x[oc][old[g]]
			}
		}
	}
	return k.basis.Remap(vars, rows)
}
