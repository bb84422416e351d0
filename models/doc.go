// Package models is fairbench's formal model of a multi-tenant, heterogeneous GPU
// cluster: GPU types, servers, users with tickets, training jobs, the throughput
// matrix, the environment they make together, snapshots, allocations and their
// feasibility, water-filling and Jain's index, and instance files.
//
// The built-in catalogue of GPU types, job types and measured throughputs, and
// the reader of Gavel's throughput file, are in the subpackage catalogue; the
// fairness predicates over allocations are in package fairness.
//
// Every other package of the project builds on models; models imports none of
// them. Validation functions return errors that name the offending field and the
// reason, so that scenario files and instance files can report precisely what is
// wrong with them.
package models
