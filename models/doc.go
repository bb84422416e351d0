// Package models is fairbench's formal model of a multi-tenant, heterogeneous GPU
// cluster: GPU types, servers, users with tickets, training jobs, the throughput
// matrix, allocations, and the fairness predicates defined over them.
//
// Every other package of the project builds on models; models imports none of
// them. Validation functions return errors that name the offending field and the
// reason, so that scenario files and instance files can report precisely what is
// wrong with them.
package models
