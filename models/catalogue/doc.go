// Package catalogue is fairbench's built-in data: the GPU types with their
// datasheet memory, the job types with their cited memory and training
// figures, and the measured throughputs of Gavel's and Sia's artifacts, each
// figure carrying its citation (Builtin). It also reads Gavel's throughput
// file format (ReadGavelThroughputs), which scenarios may name to merge their
// own figures over the catalogue's.
//
// figures_gavel.go and pairs_gavel.go are generated from Gavel's artifact file
// by the commands in internal/ (go generate; see catalogue.go).
package catalogue
