package check

import (
	"fmt"
	"math"
	"strings"

	"fairbench/models"
)

// TemporalProperty is checked on simulations over growing horizons
// H₀·2^k rounds (TemporalConfig.BaseRounds = H₀).
type TemporalProperty interface {
	Property
	// Workload generates the property's seeded workload, sized for the
	// longest horizon the check may extend to.
	Workload(seed uint64) *Workload
	// Measure simulates the subject on w and measures the property's
	// quantity at each horizon. A simulation that fails for a reason that
	// is not the property's (the policy erring or crashing) is an error; an
	// infeasible allocation is recorded in Measure.Infeasible.
	Measure(subj *Subject, w *Workload, horizons []int) (*Measure, error)
	// Check reports whether a measurement keeps the property, and whether
	// the verdict is sure at the stated confidence.
	Check(m *Measure) (ok, sure bool, reason string)
}

// Workload is a job set for the over-time properties: Static (every job at
// time 0, large enough to outlast the longest horizon) or Dynamic (Poisson
// arrivals over the longest horizon; horizon H keeps the jobs that arrive
// before H rounds). Its instance is what a counterexample file holds.
type Workload struct {
	Kind     string           `json:"kind"`
	Instance *models.Instance `json:"instance"`
	// Load is a dynamic workload's offered load: the work arriving per round
	// over what the cluster serves per round (see dynamicWorkload).
	Load float64 `json:"load,omitempty"`
	// redraw regenerates a dynamic workload at another offered load.
	redraw func(load float64) *Workload
}

// Workload kinds.
const (
	Static  = "static"
	Dynamic = "dynamic"
)

// Measure is an over-time measurement: the property's quantity at each
// horizon, and the growth fitted to it.
type Measure struct {
	Horizons []int     `json:"horizons_rounds"`
	Values   []float64 `json:"values"`
	Unit     string    `json:"unit"`
	// Growth is the fit of v(H) = a + c·H^α to the values as they are.
	Growth Growth `json:"growth"`
	// Exponent is Growth.Alpha (0 when flat), kept for the matrix's CSV.
	Exponent float64 `json:"exponent"`
	Detail   string  `json:"detail,omitempty"`
	// Stalled says a simulation stopped with jobs that could never run;
	// the horizons it left unmeasured have the value −1.
	Stalled bool `json:"stalled,omitempty"`
	// Infeasible is the constraint an allocation of the simulation broke
	// (the policy's answer is infeasible: a violation of every property).
	Infeasible string `json:"infeasible,omitempty"`

	decay bool // a quantity that should shrink (judged by its log-log slope)
}

func (m *Measure) String() string {
	var parts []string
	for i, h := range m.Horizons {
		if !m.Stalled || m.Values[i] >= 0 {
			parts = append(parts, fmt.Sprintf("H=%d: %.3g", h, m.Values[i]))
		}
	}
	s := fmt.Sprintf("%s (%s), %s", strings.Join(parts, ", "), m.Unit, m.Growth)
	if m.Detail != "" {
		s += "; " + m.Detail
	}
	return s
}

// fit fills the measure's growth from its values (unit: the rise below
// which the quantity counts as bounded).
func (m *Measure) fit(unit float64) {
	n := len(m.Values)
	for n > 0 && m.Values[n-1] < 0 {
		n--
	}
	m.Growth = fitGrowth(m.Horizons[:n], m.Values[:n], unit)
	m.Exponent = m.Growth.Alpha
}

// horizons are the rounds H₀·2^(k/2), k ≤ 2(TemporalConfig.Horizons − 1):
// TemporalConfig.Horizons doublings from H₀, with a point halfway (in
// ratio) between each two, so that the three-parameter growth fit has
// degrees of freedom to spare (9 points for 5 doublings).
func (c *Config) horizons() []int {
	return c.horizonsN(c.Temporal.Horizons)
}

// horizonsN are the horizons of n doublings from H₀.
func (c *Config) horizonsN(n int) []int {
	var out []int
	for k := 0; k <= 2*(n-1); k++ {
		h := c.Temporal.BaseRounds << (k / 2)
		if k%2 == 1 {
			h = int(math.Round(float64(c.Temporal.BaseRounds) * math.Pow(2, float64(k)/2)))
		}
		if len(out) == 0 || h > out[len(out)-1] {
			out = append(out, h)
		}
	}
	return out
}

// maxHorizon is the longest horizon a workload is generated for: that of
// TemporalConfig.MaxHorizons, up to which an unsure fit is extended.
func (c *Config) maxHorizon() int {
	return c.Temporal.BaseRounds << (c.Temporal.MaxHorizons - 1)
}
