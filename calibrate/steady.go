package calibrate

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the level of the confidence intervals calibrate reports.
const Confidence = 0.95

// Phase is where a Steady tracker is.
type Phase int

const (
	// Warming: the first WarmupSteps steps, dropped.
	Warming Phase = iota
	// Searching: waiting for the last Window step times to be steady.
	Searching
	// Measuring: steady; collecting MeasureSteps fresh steps.
	Measuring
	// Done: the measurement is complete.
	Done
)

func (p Phase) String() string {
	return [...]string{"warm-up", "searching for steady state", "measuring", "done"}[p]
}

// Steady decides when a workload's step time is steady and which steps are
// measured. Feed it every step's duration with Add, in order.
//
// The first Warmup steps are dropped. Then the step time is steady when the
// coefficient of variation CV = s / x̄ (sample standard deviation over mean)
// of the last Window step times falls under Threshold; the Measure steps
// after that point are the measurement, so the steps that passed the test
// are not reused (choosing a window for its low variance and then reporting
// that variance would understate it). If the test has not passed MaxSeconds
// (of step time, summed) after the warm-up, the last Window steps are the
// measurement and Steady reports false: a time bound for workloads that
// never settle (thermal throttling, a noisy neighbour).
type Steady struct {
	Warmup, Window, Measure int
	Threshold               float64
	MaxSeconds              float64

	phase     Phase
	steps     int       // steps seen
	searchSec float64   // step time summed since the warm-up
	window    []float64 // the last Window step times while searching
	measured  []float64
	steady    bool
	steadyAt  int     // step at which the test passed
	lastCV    float64 // CV of the last full window
}

// NewSteady returns a tracker for a profile's settings.
func NewSteady(s *Spec) *Steady {
	return &Steady{Warmup: s.WarmupSteps, Window: s.Window, Measure: s.MeasureSteps,
		Threshold: s.CVThreshold, MaxSeconds: s.MaxSeconds}
}

// Add records the duration in seconds of the next step and returns the
// phase after it. The measured steps are always the last Result().N steps
// added when the phase becomes Done (or Finish is called).
func (t *Steady) Add(sec float64) Phase {
	t.steps++
	switch t.phase {
	case Warming:
		if t.steps <= t.Warmup {
			if t.steps == t.Warmup {
				t.phase = Searching
			}
			return t.phase
		}
		t.phase = Searching
		return t.search(sec)
	case Searching:
		return t.search(sec)
	case Measuring:
		t.measured = append(t.measured, sec)
		if len(t.measured) >= t.Measure {
			t.phase = Done
		}
	}
	return t.phase
}

// search adds a step after the warm-up and applies the steady-state test
// and the time bound.
func (t *Steady) search(sec float64) Phase {
	t.searchSec += sec
	t.window = append(t.window, sec)
	if len(t.window) > t.Window {
		t.window = t.window[1:]
	}
	if len(t.window) < t.Window {
		return t.phase
	}
	t.lastCV = cv(t.window)
	switch {
	case t.lastCV < t.Threshold:
		t.phase, t.steady, t.steadyAt = Measuring, true, t.steps
	case t.searchSec >= t.MaxSeconds:
		t.measured = append([]float64(nil), t.window...)
		t.phase = Done
	}
	return t.phase
}

// Finish ends the measurement early (the workload stopped): what was
// measured is kept if it is at least 2 steps, else the last window, and the
// result is not steady unless the measurement had started after the test
// passed. It reports whether there is anything to measure.
func (t *Steady) Finish() bool {
	switch {
	case t.phase == Done:
	case t.phase == Measuring && len(t.measured) >= 2:
		t.phase = Done
	default:
		// The window (the latest steps searched) and any measured step after
		// it are contiguous and end at the last step added.
		t.measured = append(append([]float64(nil), t.window...), t.measured...)
		t.steady = false
		t.phase = Done
	}
	return len(t.measured) >= 2
}

// Phase is the current phase.
func (t *Steady) Phase() Phase { return t.phase }

// Steps is how many steps were added.
func (t *Steady) Steps() int { return t.steps }

// Result is the measurement: whether steady state was reached (and at which
// step), the measured step times and their statistics.
func (t *Steady) Result() StepStats {
	st := Stats(t.measured)
	st.Steady, st.SteadyAtStep, st.SearchCV = t.steady, t.steadyAt, t.lastCV
	return st
}

// StepStats summarises measured step times.
type StepStats struct {
	N            int     `json:"measured_steps"`
	MeanSeconds  float64 `json:"step_seconds_mean"`
	StdSeconds   float64 `json:"step_seconds_std"`
	CV           float64 `json:"cv"`
	HalfWidth    float64 `json:"step_seconds_ci95_half_width"`
	Steady       bool    `json:"steady"`
	SteadyAtStep int     `json:"steady_at_step,omitempty"`
	SearchCV     float64 `json:"search_cv"` // CV of the last window searched
}

// Stats computes the mean step time and its 95% confidence interval,
// x̄ ± t(0.975, n−1)·s/√n with Student's t (the steps are treated as
// independent draws; consecutive GPU steps are close to that once steady).
func Stats(xs []float64) StepStats {
	st := StepStats{N: len(xs)}
	if len(xs) == 0 {
		return st
	}
	st.MeanSeconds = stat.Mean(xs, nil)
	if len(xs) < 2 {
		return st
	}
	st.StdSeconds = stat.StdDev(xs, nil)
	st.CV = st.StdSeconds / st.MeanSeconds
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(1 - (1-Confidence)/2)
	st.HalfWidth = tq * st.StdSeconds / math.Sqrt(float64(len(xs)))
	return st
}

// Rate turns a step-time statistic into a rate per second with its
// confidence interval: per·1/x̄, and per/(x̄ ± h) for the bounds. The upper
// bound is +Inf when the interval of the mean reaches 0; JSON carries it
// as null.
func (st StepStats) Rate(per float64) (rate, lo, hi float64) {
	if st.MeanSeconds <= 0 {
		return 0, 0, 0
	}
	rate = per / st.MeanSeconds
	lo = per / (st.MeanSeconds + st.HalfWidth)
	if st.MeanSeconds-st.HalfWidth > 0 {
		hi = per / (st.MeanSeconds - st.HalfWidth)
	} else {
		hi = math.Inf(1)
	}
	return rate, lo, hi
}

func cv(xs []float64) float64 {
	m, s := stat.MeanStdDev(xs, nil)
	if m <= 0 {
		return math.Inf(1)
	}
	return s / m
}
