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
	buf  []byte // the last key looked up (lp.AppendKey), its memory reused
}

// key writes p's key (lp.AppendKey) into the memo's buffer and returns it,
// valid until the next call.
func (m *memo) key(p *lp.Problem, cp lp.Copies) []byte {
	m.buf = lp.AppendKey(m.buf[:0], p, cp)
	return m.buf
}

// get returns the remembered solution of key.
func (m *memo) get(key []byte) (lp.Result, bool) {
	r, ok := m.res[string(key)] // no copy: the compiler looks the bytes up as they are
	if ok {
		r = copyResult(r)
	}
	return r, ok
}

// put remembers r as key's solution, forgetting the oldest beyond
// memoSize.
func (m *memo) put(k []byte, r lp.Result) {
	if m.res == nil {
		m.res = map[string]lp.Result{}
	}
	if _, ok := m.res[string(k)]; ok {
		return
	}
	key := string(k)
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
