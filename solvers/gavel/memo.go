package gavel

import (
	"bytes"
	"hash/maphash"

	"fairbench/solvers/lp"
)

// memoSize is how many solved LPs a policy remembers. A policy re-solves on
// arrivals and completions; when the jobs that left and came leave the LP
// as it was (one job of a class replaced by another of the same class, or
// gavel-las-agnostic's LP, where every job of a gang is alike), the LP is
// one it solved before, often a few decisions back.
const memoSize = 32

// memo holds the central solutions (lp.Interior) of a policy's last
// memoSize distinct LPs, by their exact input (lp.AppendKey): an LP solved
// again gets the same answer without a solve, as the method is
// deterministic. Vertex solves are not remembered: CLP's take a fraction of
// a millisecond, about what the key costs. Solutions are copied in and out,
// so no caller can change a remembered one. The entries are a ring, the
// oldest overwritten first, each in the memory of the one it replaces; a
// key is found by its hash and then compared whole.
type memo struct {
	slots []memoSlot // at most memoSize
	next  int        // the slot put overwrites once all are used
	seed  maphash.Seed
	buf   []byte // the last key built (key), its memory reused
}

type memoSlot struct {
	hash uint64
	key  []byte
	res  lp.Result
}

// key writes p's key (lp.AppendKey) into the memo's buffer and returns it,
// valid until the next call.
func (m *memo) key(p *lp.Problem, cp lp.Copies) []byte {
	m.buf = lp.AppendKey(m.buf[:0], p, cp)
	return m.buf
}

// find returns the slot holding key, or nil.
func (m *memo) find(key []byte) *memoSlot {
	if len(m.slots) == 0 {
		return nil
	}
	h := maphash.Bytes(m.seed, key)
	for i := range m.slots {
		if s := &m.slots[i]; s.hash == h && bytes.Equal(s.key, key) {
			return s
		}
	}
	return nil
}

// get returns the remembered solution of key.
func (m *memo) get(key []byte) (lp.Result, bool) {
	s := m.find(key)
	if s == nil {
		return lp.Result{}, false
	}
	return copyResult(s.res), true
}

// put remembers r as key's solution, forgetting the oldest beyond
// memoSize.
func (m *memo) put(key []byte, r lp.Result) {
	if len(m.slots) == 0 {
		m.seed = maphash.MakeSeed() // the hash only finds a key: answers do not depend on it
	}
	if m.find(key) != nil {
		return
	}
	if len(m.slots) < memoSize {
		m.slots = append(m.slots, memoSlot{})
	}
	s := &m.slots[m.next]
	m.next = (m.next + 1) % memoSize
	s.hash = maphash.Bytes(m.seed, key)
	s.key = append(s.key[:0], key...)
	x, d := s.res.X, s.res.Duals
	s.res = r
	s.res.X = append(x[:0], r.X...)
	s.res.Duals = append(d[:0], r.Duals...)
}

func copyResult(r lp.Result) lp.Result {
	r.X = append([]float64(nil), r.X...)
	r.Duals = append([]float64(nil), r.Duals...)
	return r
}
