package lp

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	nan := math.NaN()
	ok := func() Problem {
		return Problem{Vars: []Var{{Name: "x", Upper: 1}, {Name: "y", Upper: 1}},
			Rows: []Row{{Name: "r", Coefs: []Term{{0, 1}, {1, 1}}, Lower: -inf, Upper: 1}}}
	}
	cases := []struct {
		name  string
		edit  func(p *Problem)
		wants string
	}{
		{"valid", func(*Problem) {}, ""},
		{"sense", func(p *Problem) { p.Sense = 7 }, "unknown sense 7"},
		{"var lower > upper", func(p *Problem) { p.Vars[1].Lower = 2 }, `var 1 "y": lower 2 > upper 1`},
		{"var NaN bound", func(p *Problem) { p.Vars[0].Upper = nan }, `var 0 "x": bound is NaN`},
		{"var lower +Inf", func(p *Problem) { p.Vars[0].Lower, p.Vars[0].Upper = inf, inf }, "lower bound is +Inf"},
		{"var upper -Inf", func(p *Problem) { p.Vars[0].Lower, p.Vars[0].Upper = -inf, -inf }, "upper bound is -Inf"},
		{"var NaN objective", func(p *Problem) { p.Vars[1].Obj = nan }, `var 1 "y": objective coefficient NaN`},
		{"var infinite objective", func(p *Problem) { p.Vars[1].Obj = -inf }, "objective coefficient -Inf is not finite"},
		{"row lower > upper", func(p *Problem) { p.Rows[0].Lower = 3 }, `row 0 "r": lower 3 > upper 1`},
		{"row NaN bound", func(p *Problem) { p.Rows[0].Lower = nan }, `row 0 "r": bound is NaN`},
		{"term index high", func(p *Problem) { p.Rows[0].Coefs[1].Var = 2 }, `row 0 "r": term 1: variable index 2 out of range [0,2)`},
		{"term index negative", func(p *Problem) { p.Rows[0].Coefs[0].Var = -1 }, "variable index -1 out of range"},
		{"term NaN coefficient", func(p *Problem) { p.Rows[0].Coefs[1].Coef = nan }, `row 0 "r": term 1 (var 1): coefficient NaN is not finite`},
		{"term infinite coefficient", func(p *Problem) { p.Rows[0].Coefs[0].Coef = inf }, "coefficient +Inf is not finite"},
	}
	for _, c := range cases {
		p := ok()
		c.edit(&p)
		err := p.Validate()
		switch {
		case c.wants == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wants != "" && (err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.wants)):
			t.Errorf("%s: %v, want ErrInvalid containing %q", c.name, err, c.wants)
		}
		if c.wants == "" {
			continue
		}
		for _, s := range backends() {
			res, err := s.Solve(&p, Options{})
			if res.Status != Error || !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: %s.Solve = %v, %v; want error status and ErrInvalid", c.name, s.Name(), res.Status, err)
			}
		}
	}
	var nilP *Problem
	if err := nilP.Validate(); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil problem: %v", err)
	}
}

func TestStatusAndSenseStrings(t *testing.T) {
	for s, want := range map[Status]string{Error: "error", Optimal: "optimal", Infeasible: "infeasible",
		Unbounded: "unbounded", LimitReached: "limit reached", Status(9): "Status(9)"} {
		if s.String() != want {
			t.Errorf("%d: %q, want %q", int(s), s.String(), want)
		}
	}
	if Minimize.String() != "minimize" || Maximize.String() != "maximize" || Sense(5).String() != "Sense(5)" {
		t.Error("Sense.String")
	}
}
