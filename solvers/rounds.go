package solvers

import (
	"fmt"
	"math/rand/v2"
	"time"

	"fairbench/models"
)

// Rounds is implemented by policies that configure the simulator's round
// mechanism: how often an allocation is computed, and how the fractional
// allocation in force is realised round by round (sim.PlanRound). A policy
// that does not implement it is asked at every decision its Triggers name,
// and its fractional allocations are realised with the zero RoundRules.
type Rounds interface {
	RoundRules() RoundRules
}

// RoundRules are a policy's settings of the round mechanism; the zero value
// recomputes the allocation at every decision and visits the GPU types
// newest first.
type RoundRules struct {
	// Resolve, when positive, is Gavel's re-solve cadence: at a decision the
	// simulator asks the policy for a new allocation only when jobs arrived
	// or finished since the last one, and at least Resolve has passed since
	// it (or it was computed at time 0, as in Gavel's simulator); otherwise
	// the allocation in force is kept and realised again. Gavel's value is
	// 1920 s (GavelResolve).
	Resolve time.Duration
	// Arrivals says what the round mechanism does with jobs that arrived
	// after the allocation in force was computed.
	Arrivals Arrivals
	// SkipZero leaves jobs with priority 0 out of the round (Gavel's rule for
	// its FIFO policies); by default they fill GPUs nobody with a share wants.
	SkipZero bool
	// Order, when set, gives the order in which a round visits the GPU
	// types (it receives them newest first and may shuffle a copy); nil
	// keeps newest first, Gavel's order for its heterogeneity-aware
	// policies.
	Order func(types []string) []string
}

// GavelResolve is the least time between two allocation computations in
// Gavel's simulator (minimum_time_between_allocation_resets).
const GavelResolve = 1920 * time.Second

// Arrivals is what a round does with a job that arrived after the allocation
// in force was computed, which the allocation therefore does not know.
type Arrivals string

// The rules for such jobs (see sim.ArrivalRule).
const (
	// ArrivalsFill runs them on GPUs that no job with a share wants (the
	// default; work-conserving).
	ArrivalsFill Arrivals = "fill"
	// ArrivalsWait keeps them waiting until the next allocation.
	ArrivalsWait Arrivals = "wait"
	// ArrivalsBlock is Gavel's simulator: they claim GPUs in the round's
	// walk but are not placed, so those GPUs stay idle for the round.
	ArrivalsBlock Arrivals = "block"
)

// RoundsOf is p's round rules, the zero value when p does not implement
// Rounds.
func RoundsOf(p Policy) RoundRules {
	if r, ok := p.(Rounds); ok {
		return r.RoundRules()
	}
	return RoundRules{}
}

// RoundOptions are the round-mechanism keys a policy may accept in its
// options (decode them with mapstructure's ",squash"):
//
//	resolve_seconds: 1920   Gavel's re-solve cadence (RoundRules.Resolve);
//	                        0 recomputes at every decision
//	arrivals: fill          fill | wait | block (RoundRules.Arrivals)
type RoundOptions struct {
	ResolveSeconds float64  `mapstructure:"resolve_seconds"`
	Arrivals       Arrivals `mapstructure:"arrivals"`
}

// GavelRoundOptions are Gavel's cadence with fairbench's default arrival
// rule.
func GavelRoundOptions() RoundOptions {
	return RoundOptions{ResolveSeconds: GavelResolve.Seconds(), Arrivals: ArrivalsFill}
}

// Rules checks o and turns it into RoundRules (Order and SkipZero are the
// caller's). name prefixes the errors.
func (o RoundOptions) Rules(name string) (RoundRules, error) {
	if !(o.ResolveSeconds >= 0) || o.ResolveSeconds > (1<<62)/float64(time.Second) {
		return RoundRules{}, fmt.Errorf("%s: options: resolve_seconds must be a number of seconds ≥ 0, got %v", name, o.ResolveSeconds)
	}
	switch o.Arrivals {
	case "":
		o.Arrivals = ArrivalsFill
	case ArrivalsFill, ArrivalsWait, ArrivalsBlock:
	default:
		return RoundRules{}, fmt.Errorf("%s: options: arrivals must be %q, %q or %q, got %q", name, ArrivalsFill, ArrivalsWait, ArrivalsBlock, o.Arrivals)
	}
	return RoundRules{Resolve: time.Duration(o.ResolveSeconds * float64(time.Second)), Arrivals: o.Arrivals}, nil
}

// Paced gives a policy Gavel's decision points: it decides at round starts
// only (Triggers), under the round rules it holds (RoundRules). Policies of
// the Gavel family embed it.
type Paced struct {
	Rules RoundRules
}

// Triggers is models.AtRound: Gavel decides at round starts.
func (Paced) Triggers() models.Trigger { return models.AtRound }

// RoundRules are the rules held.
func (p Paced) RoundRules() RoundRules { return p.Rules }

// GavelPaced decodes a Gavel-family policy's round options
// (RoundOptions, Gavel's defaults) from c into a Paced; unknown keys are
// refused, and name prefixes the errors. With shuffle the GPU types are
// visited in a new random order each round, drawn from c.Rand (Gavel's
// heterogeneity-agnostic policies).
func GavelPaced(name string, c Config, shuffle bool) (Paced, error) {
	o := GavelRoundOptions()
	if err := c.Decode(&o); err != nil {
		return Paced{}, fmt.Errorf("%s: options: %w", name, err)
	}
	return o.paced(name, c, shuffle)
}

// paced checks o and builds the Paced of a policy.
func (o RoundOptions) paced(name string, c Config, shuffle bool) (Paced, error) {
	rules, err := o.Rules(name)
	if err != nil {
		return Paced{}, err
	}
	if shuffle {
		rules.Order = ShuffledOrder(c.Rand)
	}
	return Paced{Rules: rules}, nil
}

// Paced builds the Paced of a policy whose options embed o (already
// decoded from c).
func (o RoundOptions) Paced(name string, c Config, shuffle bool) (Paced, error) {
	return o.paced(name, c, shuffle)
}

// ShuffledOrder is a RoundRules.Order that visits the GPU types in a random
// order each round, drawn from r (Gavel shuffles the types every round for
// its heterogeneity-agnostic policies); with r nil, a fixed-seed stream.
func ShuffledOrder(r *rand.Rand) func([]string) []string {
	if r == nil {
		r = rand.New(rand.NewPCG(0, 0))
	}
	return func(types []string) []string {
		r.Shuffle(len(types), func(i, k int) { types[i], types[k] = types[k], types[i] })
		return types
	}
}
