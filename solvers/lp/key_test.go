package lp

import (
	"math"
	"testing"
)

// Key tells problems apart by every number that shapes a solution, and
// ignores the names.
func TestKey(t *testing.T) {
	t.Parallel()
	base := func() *Problem {
		return &Problem{Sense: Maximize,
			Vars: []Var{{Name: "x", Upper: 1, Obj: 2}, {Name: "y", Lower: math.Inf(-1), Upper: math.Inf(1), Obj: 1}},
			Rows: []Row{{Name: "r", Lower: math.Inf(-1), Upper: 3, Coefs: []Term{{Var: 0, Coef: 1}, {Var: 1, Coef: 2}}}}}
	}
	k := Key(base(), Copies{})
	renamed := base()
	renamed.Vars[0].Name, renamed.Rows[0].Name = "other", "names"
	if Key(renamed, Copies{}) != k {
		t.Error("names changed the key")
	}
	for name, change := range map[string]func(p *Problem) Copies{
		"sense":       func(p *Problem) Copies { p.Sense = Minimize; return Copies{} },
		"bound":       func(p *Problem) Copies { p.Vars[0].Upper = 2; return Copies{} },
		"objective":   func(p *Problem) Copies { p.Vars[1].Obj = 1e-300; return Copies{} },
		"integer":     func(p *Problem) Copies { p.Vars[0].Integer = true; return Copies{} },
		"row bound":   func(p *Problem) Copies { p.Rows[0].Upper = 4; return Copies{} },
		"coefficient": func(p *Problem) Copies { p.Rows[0].Coefs[1].Coef = math.Nextafter(2, 3); return Copies{} },
		"term var":    func(p *Problem) Copies { p.Rows[0].Coefs[1].Var = 0; return Copies{} },
		"extra row":   func(p *Problem) Copies { p.Rows = append(p.Rows, p.Rows[0]); return Copies{} },
		"copies":      func(p *Problem) Copies { return Copies{Vars: []float64{1, 2}} },
		"row copies":  func(p *Problem) Copies { return Copies{Rows: []float64{2}} },
	} {
		p := base()
		if cp := change(p); Key(p, cp) == k {
			t.Errorf("%s: same key", name)
		}
	}
}
