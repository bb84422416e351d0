// Package scenarios turns scenario files into the inputs of simulation runs.
//
// A scenario file is YAML (see Spec for every key). Any scalar key may be
// written as a list, which makes it an axis of a grid; the grid is the
// cartesian product of its axes (see Grid). Each Run of a grid is one fully
// concrete Spec with one policy and one seed, identified by a content hash
// (see Run.ID). Spec.Build turns a concrete Spec into a Workload: the cluster,
// the users, the jobs (from the synthetic Philly-like generator of Gavel, or
// from a Gavel .trace or CSV trace file), the throughput matrix and the
// preemption costs — everything the simulator needs, and nothing it computes.
//
// The package never runs a simulation and never imports fairbench/sim.
//
// Bad input is refused with an *Error that names the file, the line where
// known, the field path (for example cluster.servers[1].gpus_per_server) and
// the reason.
//
// Why YAML is parsed with go.yaml.in/yaml/v3 and decoded with mapstructure
// rather than read with viper: viper lower-cases every key, which would
// corrupt the case-sensitive job type names used as keys under
// preemption.seconds, and it drops the line numbers that error messages
// name. The decoding into Spec still goes through mapstructure (the decoder
// viper uses) with ErrorUnused set.
package scenarios
