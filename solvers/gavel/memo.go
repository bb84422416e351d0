package gavel

import "fairbench/solvers/lp"

// memoSize is how many solved LPs a policy remembers. A policy re-solves on
// arrivals and completions; when the jobs that left and came leave the LP
// as it was (one job of a class replaced by another of the same class, or
// gavel-las-agnostic's LP, where every job of a gang is alike), the LP is
// one it solved before, often a few decisions back.
const memoSize = 32

// memo holds the central solutions (lp.Interior) of a policy's last
// memoSize distinct LPs, by their exact input (lp.Key): an LP solved again
// gets the same answer without a solve, as the method is deterministic.
// Vertex solves are not remembered: CLP's take a fraction of a millisecond,
// about what the key costs. Solutions are copied in and out, so no caller
// can change a remembered one.
type memo struct {
	keys []string // in the order remembered; the oldest is forgotten first
	res  map[string]lp.Result
}

// get returns the remembered solution of key.
func (m *memo) get(key string) (lp.Result, bool) {
	r, ok := m.res[key]
	if ok {
		r = copyResult(r)
	}
	return r, ok
}

// put remembers r as key's solution, forgetting the oldest beyond
// memoSize.
func (m *memo) put(key string, r lp.Result) {
	if m.res == nil {
		m.res = map[string]lp.Result{}
	}
	if _, ok := m.res[key]; ok {
		return
	}
	if len(m.keys) == memoSize {
		delete(m.res, m.keys[0])
		m.keys = append(m.keys[:0], m.keys[1:]...)
	}
	m.keys = append(m.keys, key)
	m.res[key] = copyResult(r)
}

func copyResult(r lp.Result) lp.Result {
	r.X = append([]float64(nil), r.X...)
	r.Duals = append([]float64(nil), r.Duals...)
	return r
}
