package reproduce

import (
	"fmt"
	"math"
	"strings"

	"fairbench/reports"
)

// Verdict is how a headline came back.
type Verdict int

// Verdicts, best first.
const (
	// Reproduced: the same direction as the paper and within ±Tolerance
	// of its ratio (of its range, for a range; a claim holds).
	Reproduced Verdict = iota
	// DirectionOnly: the same direction, outside ±Tolerance.
	DirectionOnly
	// NotReproduced: the other direction, or a claim that fails.
	NotReproduced
	// NotRun: a policy the headline needs did not run.
	NotRun
)

// Tolerance is how far from the paper's ratio a value may be and still count
// as reproduced: within ±25%.
const Tolerance = 0.25

// claimSlack is how far below its bound a claim's value may fall and still
// hold (measurement noise, e.g. a user at 0.995× its no-trade throughput).
const claimSlack = 0.01

func (v Verdict) String() string {
	switch v {
	case Reproduced:
		return "reproduced"
	case DirectionOnly:
		return "direction only"
	case NotReproduced:
		return "not reproduced"
	}
	return "not run"
}

// Target is a published number as a ratio oriented so that a value above 1
// favours the paper's policy (e.g. baseline's mean JCT ÷ the paper's
// policy's): the range [Lo, Hi] (Lo = Hi for a single number).
type Target struct {
	Lo, Hi float64
	// UpTo marks an "up to" claim: the largest value over the grid's points
	// is judged; otherwise their mean.
	UpTo bool
	// AtLeast marks a claim rather than a ratio: it holds (reproduced) when
	// the value is at least Lo, up to claimSlack, and fails otherwise;
	// AtMost when it is at most Hi.
	AtLeast, AtMost bool
}

// within reports whether v is within ±Tolerance of the target's range.
func (t Target) within(v float64) bool {
	return v >= (1-Tolerance)*t.Lo && v <= (1+Tolerance)*t.Hi
}

// judge is v's verdict against t.
func (t Target) judge(v float64) Verdict {
	switch {
	case math.IsNaN(v):
		return NotRun
	case t.AtLeast:
		if v >= t.Lo*(1-claimSlack) {
			return Reproduced
		}
		return NotReproduced
	case t.AtMost:
		if v <= t.Hi*(1+claimSlack) {
			return Reproduced
		}
		return NotReproduced
	case (v > 1) != (t.Lo > 1) || v == 1:
		return NotReproduced
	case t.within(v):
		return Reproduced
	}
	return DirectionOnly
}

// distance is how far v lies outside the reproduced band, on a log scale (0
// inside): what a sensitivity variation is ranked by.
func (t Target) distance(v float64) float64 {
	if math.IsNaN(v) || v <= 0 {
		return math.Inf(1)
	}
	lo, hi := (1-Tolerance)*t.Lo, (1+Tolerance)*t.Hi
	if t.AtLeast {
		lo, hi = t.Lo*(1-claimSlack), math.Inf(1)
	}
	if t.AtMost {
		lo, hi = 0, t.Hi*(1+claimSlack)
	}
	switch {
	case v < lo:
		return math.Log(lo / v)
	case v > hi:
		return math.Log(v / hi)
	}
	return 0
}

// Check says how a headline is judged: its value at each grid point,
// oriented like the target, reduced over the points as the target says.
type Check struct {
	// Value is ours at point p (false when it cannot be computed there).
	Value  func(r *Results, p *reports.Point) (float64, bool)
	Target Target
	// Paper is the paper's number, short, for the verdict table; Format
	// prints a value ("%.2f×").
	Paper, Format string
	// Needs are the policies Value reads.
	Needs []string
}

// measure is the judged value over the set's points: the largest for an
// "up to" target, else the mean; NaN when a needed policy did not run or no
// point has a value.
func (c *Check) measure(r *Results) float64 {
	if r.missing(c.Needs...) != "" {
		return math.NaN()
	}
	var vs []float64
	for _, p := range r.Set.Points {
		if v, ok := c.Value(r, p); ok && !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return math.NaN()
	}
	if c.Target.UpTo {
		m := vs[0]
		for _, v := range vs[1:] {
			m = math.Max(m, v)
		}
		return m
	}
	s := 0.0
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}

// format writes a judged value.
func (c *Check) format(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf(c.Format, v)
}

// Judgement is one headline's outcome.
type Judgement struct {
	Experiment, Metric string
	Paper, Ours        string
	Value              float64
	Verdict            Verdict
	// Cause, for a headline short of reproduced, is what the sensitivity
	// runs measured: the one setting that brings it closest to the paper.
	Cause string
}

// judge judges every headline of e on r and, for those short of
// reproduced, names the setting of the sensitivity runs that moves each
// closest to the paper's number.
func (e *Experiment) judge(r *Results, sens []sensitivityRun) []Judgement {
	var out []Judgement
	for _, h := range e.Headlines {
		c := &h.Check
		v := c.measure(r)
		j := Judgement{Experiment: e.Name, Metric: h.Metric, Paper: c.Paper, Ours: c.format(v), Value: v, Verdict: c.Target.judge(v)}
		if j.Verdict == DirectionOnly || j.Verdict == NotReproduced {
			j.Cause = cause(c, v, sens)
		}
		out = append(out, j)
	}
	return out
}

// cause ranks the sensitivity variations by how close each brings the
// headline to the paper's number and describes the best one.
func cause(c *Check, base float64, sens []sensitivityRun) string {
	if len(sens) == 0 {
		return "no sensitivity runs (see the report's deviations)"
	}
	best, bestD := -1, c.Target.distance(base)
	for i, s := range sens {
		v := c.measure(s.results)
		if d := c.Target.distance(v); d < bestD-1e-9 {
			best, bestD = i, d
		}
	}
	if best < 0 {
		return "no single setting of the sensitivity table moves it closer to the paper"
	}
	s := sens[best]
	v := c.measure(s.results)
	verb := "moves it to"
	if c.Target.judge(v) == Reproduced {
		verb = "reproduces it:"
	}
	return fmt.Sprintf("%s (%s) %s %s (sensitivity table)", s.Variation.Name, s.Variation.What, verb, c.format(v))
}

// tally counts the verdicts: reproduced, same direction (reproduced or
// direction only), and headlines judged.
func tally(js []Judgement) (reproduced, direction, judged int) {
	for _, j := range js {
		if j.Verdict == NotRun {
			continue
		}
		judged++
		if j.Verdict == Reproduced {
			reproduced++
		}
		if j.Verdict != NotReproduced {
			direction++
		}
	}
	return
}

// wrap breaks s into lines of at most width runes after the prefix,
// indenting continuations by indent spaces.
func wrap(s string, width, indent int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(s) {
		n := len([]rune(w))
		if i > 0 && line+1+n > width {
			b.WriteString("\n" + strings.Repeat(" ", indent))
			line = indent
		} else if i > 0 {
			b.WriteString(" ")
			line++
		}
		b.WriteString(w)
		line += n
	}
	return b.String()
}
