package sim

import (
	"time"
)

// Series is the run's time series: one point per bucket of whole rounds
// (Width seconds), each the time average over its bucket.
type Series struct {
	// Start is each bucket's start time in seconds.
	Start []float64 `json:"start_s"`
	// Width is the bucket length in seconds.
	Width float64 `json:"width_s"`
	// Utilisation is the fraction of the cluster's GPUs held by jobs.
	Utilisation []float64 `json:"utilisation"`
	// Share is, per user, the fraction of the cluster's GPUs the user held.
	Share map[string][]float64 `json:"share"`
	// Entitled is, per user, the fraction the user was entitled to: its
	// weighted water-filled share of the cluster given every active user's
	// demand (Σ gang of its active jobs).
	Entitled map[string][]float64 `json:"entitled"`
}

// recorder integrates GPU holdings over time into buckets of whole rounds,
// at a fixed resolution: at most limit buckets of width rounds each, width
// a power of two that doubles (neighbouring buckets merged) whenever the
// run outgrows them. Its memory is limit × users whatever the run's length.
type recorder struct {
	users []string
	gpus  float64
	round time.Duration
	limit int

	width   int      // rounds per bucket
	buckets []bucket // GPU·seconds per user in each bucket

	totalHeld     []float64 // per user, GPU·seconds over the whole run
	totalEntitled []float64
	end           time.Duration // end of the run, set by close
}

type bucket struct{ held, entitled []float64 }

func newRecorder(users []string, gpus int, round time.Duration, limit int) *recorder {
	n := len(users)
	return &recorder{
		users: users, gpus: float64(gpus), round: round, limit: max(limit, 1), width: 1,
		totalHeld: make([]float64, n), totalEntitled: make([]float64, n),
	}
}

// span adds the interval [from, to) during which each user held and was
// entitled to the given numbers of GPUs.
func (r *recorder) span(from, to time.Duration, holding, entitle []float64) {
	for from < to {
		round := int(from / r.round)
		end := min(to, time.Duration(round+1)*r.round)
		dt := (end - from).Seconds()
		b := r.bucket(round)
		for u := range r.users {
			if holding[u] == 0 && entitle[u] == 0 {
				continue // users without active jobs
			}
			b.held[u] += holding[u] * dt
			b.entitled[u] += entitle[u] * dt
			r.totalHeld[u] += holding[u] * dt
			r.totalEntitled[u] += entitle[u] * dt
		}
		from = end
	}
}

// bucket returns the bucket of the given round, adding empty buckets up to
// it and coarsening when they would exceed the limit.
func (r *recorder) bucket(round int) *bucket {
	for round/r.width >= r.limit {
		r.coarsen()
	}
	for len(r.buckets) <= round/r.width {
		n := len(r.users)
		r.buckets = append(r.buckets, bucket{make([]float64, n), make([]float64, n)})
	}
	return &r.buckets[round/r.width]
}

// coarsen doubles the width, merging neighbouring buckets.
func (r *recorder) coarsen() {
	k := 0
	for i := 0; i < len(r.buckets); i += 2 {
		b := r.buckets[i]
		if i+1 < len(r.buckets) {
			for u := range b.held {
				b.held[u] += r.buckets[i+1].held[u]
				b.entitled[u] += r.buckets[i+1].entitled[u]
			}
		}
		r.buckets[k] = b
		k++
	}
	clear(r.buckets[k:])
	r.buckets = r.buckets[:k]
	r.width *= 2
}

// close ends the run at end: every round up to it has its bucket (the
// last possibly cut short).
func (r *recorder) close(end time.Duration) {
	r.end = end
	if end > 0 {
		r.bucket(int((end - 1) / r.round))
	}
}

// series turns the buckets into time averages.
func (r *recorder) series() Series {
	width := time.Duration(r.width) * r.round
	s := Series{Width: width.Seconds(), Share: map[string][]float64{}, Entitled: map[string][]float64{}}
	for i, b := range r.buckets {
		start := time.Duration(i) * width
		// The last bucket may be cut short by the end of the run.
		span := min(width, r.end-start)
		norm := 1 / (r.gpus * span.Seconds())
		var busy float64
		for u, name := range r.users {
			s.Share[name] = append(s.Share[name], b.held[u]*norm)
			s.Entitled[name] = append(s.Entitled[name], b.entitled[u]*norm)
			busy += b.held[u]
		}
		s.Start = append(s.Start, start.Seconds())
		s.Utilisation = append(s.Utilisation, busy*norm)
	}
	return s
}
