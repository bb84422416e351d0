package lp

import (
	"strings"
	"testing"
)

func TestOptimalityViolation(t *testing.T) {
	// Wyndor Glass (see TestCoinDuals): max 3x+5y s.t. x ≤ 4, 2y ≤ 12,
	// 3x+2y ≤ 18; optimum x=2, y=6 with shadow prices (0, 1.5, 1), which in
	// minimisation form (y = sign·dual, sign = −1) are (0, −1.5, −1).
	p := &Problem{Sense: Maximize, Vars: []Var{nonneg(3), nonneg(5)},
		Rows: []Row{le(4, 1, 0), le(12, 0, 2), le(18, 3, 2)}}
	rows := p.mergedRows()
	lo, hi := []float64{0, 0}, []float64{inf, inf}
	cases := []struct {
		name string
		x, y []float64
		want string // substring of the violation; "" for none
	}{
		{"optimum", []float64{2, 6}, []float64{0, -1.5, -1}, ""},
		{"infeasible point", []float64{3, 6}, []float64{0, -1.5, -1}, "outside"},
		{"dual on a slack row", []float64{2, 6}, []float64{-1, -1.5, -1}, "row 0 has dual"},
		{"wrong-signed dual", []float64{2, 6}, []float64{0, 1.5, -1}, "not at its lower bound"},
		{"suboptimal vertex", []float64{4, 3}, []float64{0, 0, -1}, "reduced cost"},
	}
	for _, c := range cases {
		got := optimalityViolation(p, rows, lo, hi, c.x, c.y, make([]float64, len(p.Vars)))
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
