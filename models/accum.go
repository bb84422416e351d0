package models

import (
	"maps"
	"slices"
)

// Gradient accumulation (SJF-BSBF, Luo et al., IWQoS 2024, §III): a job may
// run each training step as k sub-batches of BatchSize/k whose gradients are
// summed before the optimizer step, so the global batch (and convergence) is
// unchanged while the activations in memory shrink. A step then costs k
// iterations at the sub-batch size.

// AccumThroughput is job j's steps per second on its gang of GPUs of type gpu
// at placement p when it runs with k-step gradient accumulation: the measured
// throughput of the same model at batch size BatchSize/k, divided by k (k
// sub-batch iterations per step). It reports false when the sub-batch size is
// not a whole number or no job type of the same model was measured at it:
// the batch-size curve is the matrix's own figures, never an extrapolation.
// k ≤ 1 is the job's ordinary throughput.
func AccumThroughput(types map[string]JobType, m *Matrix, j *Job, gpu string, p Placement, k int) (float64, bool) {
	if k <= 1 {
		f, ok := m.Lookup(Key{Job: j.Type, GPU: gpu, Gang: j.Gang, Placement: p})
		return f.Value, ok && f.Value > 0
	}
	jt, ok := types[j.Type]
	if !ok || jt.Model == "" || jt.BatchSize <= 0 || jt.BatchSize%k != 0 {
		return 0, false
	}
	sub := jt.BatchSize / k
	for _, name := range slices.Sorted(maps.Keys(types)) {
		o := types[name]
		if o.Model != jt.Model || o.BatchSize != sub {
			continue
		}
		if f, ok := m.Lookup(Key{Job: o.Name, GPU: gpu, Gang: j.Gang, Placement: p}); ok && f.Value > 0 {
			return f.Value / float64(k), true
		}
	}
	return 0, false
}

// AccumMemory is the device memory one worker of j needs with k-step
// accumulation: the part that does not depend on the batch (weights,
// gradients, optimizer state, workspace: JobType.FixedMemoryGB) plus the
// rest divided by k. k ≤ 1 is MemoryNeed. 0 means unknown.
func AccumMemory(types map[string]JobType, j *Job, k int) float64 {
	need := MemoryNeed(types, j)
	if k <= 1 || need == 0 {
		return need
	}
	fixed := min(types[j.Type].FixedMemoryGB, need)
	return fixed + (need-fixed)/float64(k)
}
