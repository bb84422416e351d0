package lp

import (
	"encoding/binary"
	"math"
	"slices"
)

// Key is a byte string that identifies a problem and its copies exactly
// (names left out: they do not change a solution): two problems with the same
// key have the same solution from any deterministic method.
func Key(p *Problem, cp Copies) string { return string(AppendKey(nil, p, cp)) }

// AppendKey appends Key(p, cp)'s bytes to dst and returns the extended
// slice (dst's memory is reused when it has room).
func AppendKey(dst []byte, p *Problem, cp Copies) []byte {
	nnz := 0
	for _, r := range p.Rows {
		nnz += len(r.Coefs)
	}
	b := slices.Grow(dst, 8*(5+len(p.Vars)*3+len(p.Rows)*3+nnz*2+len(cp.Vars)+len(cp.Rows))+len(p.Vars))
	f := func(v float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
	n := func(v int) { b = binary.LittleEndian.AppendUint64(b, uint64(v)) }
	n(int(p.Sense))
	n(len(p.Vars))
	for _, v := range p.Vars {
		f(v.Lower)
		f(v.Upper)
		f(v.Obj)
		if v.Integer {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	n(len(p.Rows))
	for _, r := range p.Rows {
		f(r.Lower)
		f(r.Upper)
		n(len(r.Coefs))
		for _, t := range r.Coefs {
			n(t.Var)
			f(t.Coef)
		}
	}
	for _, v := range [][]float64{cp.Vars, cp.Rows} {
		n(len(v))
		for _, x := range v {
			f(x)
		}
	}
	return b
}
