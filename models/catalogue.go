package models

// Catalog is a set of GPU types, job types and throughput figures.
type Catalog struct {
	GPUTypes []GPUType
	JobTypes []JobType
	Matrix   *Matrix
}

// Catalogue returns fairbench's built-in catalogue: GPU types with memory and
// generation rank, and job types with throughputs from public measurements,
// each figure carrying its citation. Each call returns a fresh copy.
//
// TODO(catalogue): filled in by the catalogue work.
func Catalogue() Catalog {
	return Catalog{Matrix: NewMatrix()}
}
