package scenarios

import (
	_ "embed"

	"fairbench/models/catalogue"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultYAML returns the text of the built-in default scenario
// (scenarios/default.yaml), a commented example of the format.
func DefaultYAML() []byte { return append([]byte(nil), defaultYAML...) }

// DefaultArrivalRatePerHour is the default scenario's λ; default.yaml
// explains the choice (the rate at which the baselines part ways).
const DefaultArrivalRatePerHour = 3

// Default is the built-in default scenario: 9 servers of 4 V100, 9 of 4
// P100 and 9 of 4 K80 (36 GPUs of each type), 8 users u0..u7 of weight 1,
// 500 Philly-like jobs arriving as a Poisson process at 3 jobs per hour,
// seed 0, 360-second rounds, the built-in catalogue, and no policies: the
// grid has one run with Policy "", and the CLI calls WithPolicies with every
// registered policy.
//
// Default does not check the scenario against the catalogue (Build does),
// so it cannot fail while the catalogue is being filled in.
func Default() *Grid {
	g, err := newGrid(defaultYAML, "", catalogue.Builtin(), false)
	if err != nil {
		panic("scenarios: the built-in default scenario is invalid: " + err.Error())
	}
	return g
}
