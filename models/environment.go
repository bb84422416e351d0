package models

// Environment is where jobs run and what they are: the cluster, the
// throughput matrix and the job types. Every question of the form "how fast
// does this job run there, and does it fit" needs all three, so they travel
// together: a Snapshot, a simulator Config and a scenario's Workload each
// embed one. JobTypes may be nil when no job type carries a memory figure.
type Environment struct {
	Cluster  *Cluster
	Matrix   *Matrix
	JobTypes map[string]JobType
}

// Throughput is the steps per second job j would get with its whole gang on
// GPU type gpu: the consolidated figure when the gang fits in one server of
// that type, else the spread figure; 0 when the job cannot run there (no
// measured figure, not enough memory, or fewer GPUs of that type than its
// gang).
func (e Environment) Throughput(j *Job, gpu string) float64 {
	t, ok := e.Cluster.Type(gpu)
	if !ok || !e.FitsMemory(j, t) {
		return 0
	}
	if e.Cluster.Capacity(gpu) < j.Gang {
		return 0
	}
	p := Consolidated
	if j.Gang > e.Cluster.MaxServerGPUs(gpu) {
		p = Spread
	}
	return e.Matrix.Throughput(Key{Job: j.Type, GPU: gpu, Gang: j.Gang, Placement: p})
}

// BestThroughput is the highest throughput j gets on any type of the cluster,
// with the type achieving it ("" and 0 when none can run it).
func (e Environment) BestThroughput(j *Job) (string, float64) {
	best, bt := "", 0.0
	for _, g := range e.Cluster.TypeNames() {
		if t := e.Throughput(j, g); t > bt {
			best, bt = g, t
		}
	}
	return best, bt
}

// MemoryNeed is the per-worker memory j needs: its own figure, else its type's.
func (e Environment) MemoryNeed(j *Job) float64 {
	if j.MemoryGB > 0 {
		return j.MemoryGB
	}
	return e.JobTypes[j.Type].MemoryGB
}

// FitsMemory reports whether one worker of j fits in a GPU of type t.
func (e Environment) FitsMemory(j *Job, t GPUType) bool {
	return e.MemoryNeed(j) <= t.MemoryGB
}
